"""The sizes the language server accepts (documented in docs/protocol.md, "Limits").

Anything larger is refused with one line (`InvalidParams` for a parameter, `RequestFailed` for
a document) instead of tying up the server.
"""

from __future__ import annotations

#: characters in a `loreline/recall` query
MAX_QUERY = 4096
#: characters in a `loreline/memories` text filter
MAX_TEXT = 1024
#: characters in a folder, path or URI
MAX_PATH = 4096
#: entries in `loreline/import`'s `paths`
MAX_PATHS = 10_000
#: items in one page of `loreline/memories`
MAX_PAGE = 1000
#: characters in an API key handed to `loreline/setApiKey`
MAX_KEY = 1024
#: characters in a document the server keeps open or reads for a hover (8 MiB of text)
MAX_DOCUMENT = 8 * 1024 * 1024
#: bytes in one JSON-RPC message; a larger one is read, dropped and answered with id null
MAX_MESSAGE = 64 * 1024 * 1024
