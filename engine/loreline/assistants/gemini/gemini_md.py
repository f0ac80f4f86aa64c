"""GEMINI.md files: what the user wrote for Gemini CLI to load, read as pinned material.

Gemini CLI loads at the start of every session the global `<gemini home>/GEMINI.md` and every
`GEMINI.md` from the working directory up to the filesystem root (and, on demand, those in
subfolders it reads). Loreline reads them like CLAUDE.md layers (statements, pinned, never
written) under the provenance tool `gemini-md`; a memory that says what one of them says is
covered for that project, so the SessionStart block leaves it out and it is never injected
twice. The file name is Gemini CLI's default; a `context.fileName` setting naming another
file is not followed.
"""

from __future__ import annotations

from pathlib import Path

from ...native import NativeFile
from ...records import replace
from ..claude_code import claude_md

FILE_NAME = "GEMINI.md"

#: the provenance tool name of its memories
GEMINI_MD = "gemini-md"


def project_files(root: Path) -> list[Path]:
    """The project's own GEMINI.md (imported as its pinned memories)."""
    path = root / FILE_NAME
    return [path] if path.is_file() else []


def loaded_files(root: Path, gemini_root: Path) -> list[Path]:
    """Every GEMINI.md a session started in `root` loads at once: the global one, then those
    from the filesystem root down to `root`."""
    ancestors = [folder for folder in (root, *root.parents) if folder != Path(folder.anchor)]
    found = [gemini_root / FILE_NAME, *(folder / FILE_NAME for folder in reversed(ancestors))]
    return [path for path in found if path.is_file()]


def read(path: Path, project: str, scope: str = "project") -> NativeFile:
    return replace(claude_md.read(path, project, scope), tool=GEMINI_MD)


def read_user(path: Path, home: Path) -> list[NativeFile]:
    """The global GEMINI.md, kept as the project of the Gemini folder itself (searchable, never
    injected: every session loads it)."""
    return [read(path, str(home), scope="user")]
