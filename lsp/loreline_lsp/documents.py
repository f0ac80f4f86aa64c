"""The text a hover looks at, within `limits.MAX_DOCUMENT`.

An open document over the limit is dropped from the workspace (the server neither keeps nor
splits it) and a hover on it is refused with one line; a document that is not open is read
from disk only when it is a file within the limit.
"""

from __future__ import annotations

import logging
from pathlib import Path
from urllib.parse import unquote

from pygls.workspace import Workspace

from loreline.api.uris import file_path
from loreline.errors import LorelineError
from loreline_lsp import limits
from loreline_lsp.hover import line_of

log = logging.getLogger(__name__)


class Documents:
    def __init__(self) -> None:
        self.too_large: set[str] = set()

    def check(self, workspace: Workspace, uri: str) -> None:
        """After didOpen/didChange: drop the document when it is over the limit."""
        document = workspace.text_documents.get(unquote(uri))
        if document is not None and len(document.source) > limits.MAX_DOCUMENT:
            workspace.remove_text_document(uri)
            self.too_large.add(uri)
            log.warning("not keeping a document over %d characters", limits.MAX_DOCUMENT)

    def closed(self, uri: str) -> None:
        self.too_large.discard(uri)

    def line(self, workspace: Workspace, uri: str, number: int) -> str:
        """Line `number` of the document at `uri` ("" for a document that is not a file)."""
        if uri in self.too_large:
            raise _too_large()
        document = workspace.text_documents.get(unquote(uri))
        if document is not None:
            return line_of(document.source, number)
        path = file_path(uri)
        return "" if path is None else line_of(_read(Path(path)), number)


def _read(path: Path) -> str:
    try:
        if path.stat().st_size > limits.MAX_DOCUMENT:
            raise _too_large()
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise LorelineError(f"cannot read {path}: {err.strerror or type(err).__name__}") from None


def _too_large() -> LorelineError:
    return LorelineError(f"the document is over the {limits.MAX_DOCUMENT:,}-character limit for hovers")
