"""Helpers shared by the CLI commands: opening the store, JSON output, project choice."""

from __future__ import annotations

import os
import sys
from dataclasses import asdict
from typing import Any

import orjson

from ..models import Memory
from ..project import project_key
from ..store import Store


def open_store() -> Store:
    return Store()


def emit_json(value: Any) -> None:
    sys.stdout.write(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n")


def chosen_project(directory: str | None) -> str:
    return project_key(directory or os.getcwd())


def memory_json(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "kind": memory.kind,
        "text": memory.text,
        "status": memory.status,
        "hold_reason": memory.hold_reason,
        "project": memory.project,
        "scope": memory.scope,
        "version": memory.version,
        "pinned": memory.pinned,
        "created_at": memory.created_at,
        "observed_at": memory.observed_at,
        "valid_until": memory.valid_until,
        "extractor": memory.extractor,
        "files": list(memory.files),
        "provenance": [asdict(p) for p in memory.provenance],
    }


def short_date(stamp: str | None) -> str:
    return stamp[:10] if stamp else "----------"


_IRREGULAR = {"memory": "memories", "entry": "entries"}


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {_IRREGULAR.get(word, word + 's')}"
