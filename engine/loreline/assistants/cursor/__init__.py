"""Cursor: `~/.cursor`, agent transcripts in `projects/<slug>/agent-transcripts/`. Loreline
imports its sessions; it does not connect capture hooks or read native memory for it yet."""

from __future__ import annotations

import glob
from pathlib import Path

from ..base import Assistant, SessionFormat

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from ...transcripts.discover import Discovery, Found

NAME = "cursor"


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    from . import discovery

    return discovery.find_sessions(root, result)


def session_format() -> SessionFormat:
    from . import sessions

    return SessionFormat(sessions.CursorReader, sessions.looks_like, project_guess=sessions.cwd_from_slug,
                         named_like=lambda path: "agent-transcripts" in path.parts)


def locate_session(root: Path, session_id: str) -> Path | None:
    sid = glob.escape(session_id)
    found = sorted(glob.glob(str(root / "projects" / "*" / "agent-transcripts" / sid / f"{sid}.jsonl"))
                   + glob.glob(str(root / "projects" / "*" / "agent-transcripts" / f"{sid}.jsonl")))
    return Path(found[-1]) if found else None


ASSISTANT = Assistant(
    name=NAME, label="Cursor", home_default=".cursor", home_env=None, home_option="--cursor-dir",
    find_sessions=find_sessions, locate_session=locate_session, memory_files=None,
    session_format=session_format,
)
