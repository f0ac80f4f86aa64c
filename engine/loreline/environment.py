"""The environment as the current work sees it: background work never sees the assistant's
own credentials.

A hook runs with the assistant's environment, and a worker it starts must not spend the
assistant's key or go through its gateway without the person asking: the hook leaves
`ASSISTANT_CREDENTIALS` out of the worker's environment (`loreline_hooks.launch`). Work run
`with background():` (the capture worker wherever it runs: started by a hook, by hand or by
the language server; and `backends.consent`, which says what that work will do) reads the
environment through `environ()`, which leaves them out too: the API key is then found only in
the OS keyring, a login is checked as the worker would see it, and an assistant CLI the worker
starts gets none of them. The flag is a context variable, so a background thread of the
language server changes nothing for the person's own commands in the same process.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any

#: the assistant's own credentials and endpoint, which background work never uses (the hook's
#: `launch.ASSISTANT_CREDENTIALS` is the same list; a test holds them equal)
ASSISTANT_CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY",
                         "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL")

_FLAG: list[Any] = []


class background:  # noqa: N801 (used as `with environment.background():`)
    """Work in this block (this thread or task) is background work. A class, not contextlib:
    the everyday commands import neither."""

    def __enter__(self) -> None:
        self._token = _flag().set(True)

    def __exit__(self, *exc: object) -> None:
        _flag().reset(self._token)


def _flag() -> Any:
    if not _FLAG:
        import contextvars

        _FLAG.append(contextvars.ContextVar("loreline_background", default=False))
    return _FLAG[0]


def in_background() -> bool:
    return bool(_FLAG) and bool(_FLAG[0].get())


def environ() -> dict[str, str]:
    """The environment as this work sees it: in the background, without the assistant's credentials."""
    if not in_background():
        return dict(os.environ)
    return {k: v for k, v in os.environ.items() if k not in ASSISTANT_CREDENTIALS}
