"""The governor report: per project, how full the native `MEMORY.md` is against what a
session loads of it (200 lines / 25 KB), which native memories duplicate each other, and
which contradict a memory Loreline learnt elsewhere (a conflict between them). The index and
its caps are the assistant's (`AutoMemory`, handed in with the assistants)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..store import Store
from ..store import memories as rows
from ..store import native as table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..assistants.base import Assistant, AutoMemory


def report(store: Store, assistants: Sequence[Assistant]) -> list[dict[str, Any]]:
    """One entry per project with native sources, sorted by project."""
    seen = table.seen(store)
    projects = sorted(({s.project for s in seen} | set(table.native_projects(store))) - {"(several)"})
    autos = [a.auto_memory() for a in assistants if a.auto_memory is not None]
    return [_project(store, project, [s for s in seen if s.project == project], autos) for project in projects]


def _project(store: Store, project: str, seen: list[table.Seen], autos: list[AutoMemory]) -> dict[str, Any]:
    index = next(((s.path, auto) for auto in autos for s in seen
                  if s.tool == auto.tool and Path(s.path).name == auto.index), None)
    return {"project": project, "files": len(seen), "memory_md": memory_md(*index) if index else None,
            "duplicates": duplicates(store, project), "contradictions": contradictions(store, project)}


def memory_md(path: str, auto: AutoMemory) -> dict[str, Any]:
    """Size of the index (MEMORY.md) against its load cap, and how many lines a session never sees."""
    try:
        data = Path(path).read_bytes()
        left_out = auto.loaded_part(Path(path))[1]
    except OSError:
        return {"path": path, "missing": True}
    lines = len(data.decode("utf-8", errors="replace").splitlines())
    return {"path": path, "lines": lines, "bytes": len(data), "cap_lines": auto.load_lines,
            "cap_bytes": auto.load_bytes, "lines_left_out": left_out, "over_cap": left_out > 0}


def duplicates(store: Store, project: str) -> list[dict[str, Any]]:
    """Memories that two or more native statements say (in one file or several)."""
    by_memory: dict[int, tuple[str, list[dict[str, Any]]]] = {}
    for memory_id, text, path, start, end in table.native_memories(store, project):
        by_memory.setdefault(memory_id, (text, []))[1].append({"path": path, "lines": [start, end]})
    return [{"memory": mid, "text": text, "sources": sources}
            for mid, (text, sources) in sorted(by_memory.items()) if len(sources) > 1]


def contradictions(store: Store, project: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for conflict_id, native_id, other_id, status in table.native_conflicts(store, project):
        native_text, other_text = (m.text for m in rows.load(store, [native_id, other_id]))
        out.append({"conflict": conflict_id, "status": status, "native": {"memory": native_id, "text": native_text},
                    "loreline": {"memory": other_id, "text": other_text}})
    return out


def lines(entries: list[dict[str, Any]]) -> list[str]:
    """The report as `loreline status` prints it."""
    out: list[str] = []
    for entry in entries:
        md = entry["memory_md"]
        size = ""
        if md and not md.get("missing"):
            size = (f" · MEMORY.md {md['lines']}/{md['cap_lines']} lines, {md['bytes'] / 1024:.1f}/"
                    f"{md['cap_bytes'] // 1024} KB" + (f" — {md['lines_left_out']} lines never loaded"
                                                       if md["over_cap"] else ""))
        out.append(f"Native     {_short(entry['project'])}: {entry['files']} files{size}")
        for dup in entry["duplicates"]:
            where = ", ".join(f"{os.path.basename(s['path'])}:{s['lines'][0]}" for s in dup["sources"])
            out.append(f"           duplicate #{dup['memory']} {dup['text'][:60]!r} in {where}")
        for con in entry["contradictions"]:
            out.append(f"           contradicts ({con['status']}) #{con['native']['memory']} vs Loreline's "
                       f"#{con['loreline']['memory']}: conflict #{con['conflict']}")
    return out


def _short(project: str) -> str:
    home = os.path.expanduser("~")
    return "~" + project[len(home):] if project.startswith(home + os.sep) else project
