"""Helpers shared by the CLI commands: opening the application layer, JSON output, project choice."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from typing import Any

    from ..api.session import Loreline

# Every command module is imported to build the parser, so each imports what its command
# runs inside that command: `loreline --help` loads none of it (`tests/test_lazy_imports.py`).


def open_api() -> Loreline:
    from ..api.session import Loreline

    return Loreline()


def emit_json(value: Any) -> None:
    import orjson

    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def chosen_project(directory: str | None) -> str:
    from ..api.session import project_of

    return project_of(directory)


def short_date(stamp: str | None) -> str:
    return stamp[:10] if stamp else "----------"


_IRREGULAR = {"memory": "memories", "entry": "entries"}


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {_IRREGULAR.get(word, word + 's')}"
