"""Helpers shared by the CLI commands: opening the application layer, JSON output, project choice."""

from __future__ import annotations

import re
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


# what orjson leaves raw in a string and a terminal would still obey: DEL, C1 controls (a
# CSI or OSC introducer), line separators, bidi overrides and isolates
_RAW_IN_JSON = "[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]"  # compiled when JSON is written


def emit_json(value: Any) -> None:
    """JSON on standard output, every character a terminal could obey written as an escape."""
    import orjson

    text = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
    sys.stdout.write(re.sub(_RAW_IN_JSON, lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")


def chosen_project(directory: str | None) -> str:
    from ..api.session import project_of

    return project_of(directory)


def short_date(stamp: str | None) -> str:
    return stamp[:10] if stamp else "----------"


_IRREGULAR = {"memory": "memories", "entry": "entries"}


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {_IRREGULAR.get(word, word + 's')}"


def backend_choice(value: str) -> str:
    """An argparse type for --backend: one of the backends, or `recorded:DIR` (recorded answers)."""
    import argparse

    from ..names import BACKENDS

    if value in BACKENDS or (value.startswith("recorded:") and len(value) > len("recorded:")):
        return value
    raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {', '.join(BACKENDS)}, "
                                     "or recorded:DIR)")
