"""Helpers shared by the CLI commands: opening the application layer, JSON output, project choice."""

from __future__ import annotations

import sys
from typing import Any

import orjson

from ..api import Loreline, project_of


def open_api() -> Loreline:
    return Loreline()


def emit_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def chosen_project(directory: str | None) -> str:
    return project_of(directory)


def short_date(stamp: str | None) -> str:
    return stamp[:10] if stamp else "----------"


_IRREGULAR = {"memory": "memories", "entry": "entries"}


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {_IRREGULAR.get(word, word + 's')}"
