"""Sample sessions bundled with Loreline for `loreline demo`, and a builder for more."""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def sample_files() -> list[Path]:
    return sorted(HERE.glob("*.jsonl"))
