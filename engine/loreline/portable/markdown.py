"""`loreline export --format markdown`: active memories grouped by kind, for reading or for
pasting into a CLAUDE.md. Pinned memories come first within a kind; each line names where
the memory came from (tool, file name and lines) in a trailing HTML comment, invisible when
rendered. Pasted into a CLAUDE.md, the lines come back through `import native` as sources of
the same memories (exact duplicates), not as copies. Every stored value is written through
`privacy.display.printable`: a control character shows as an escape, on a terminal or in a file."""

from __future__ import annotations

from pathlib import PurePath

from ..models import KINDS, Memory
from ..privacy.display import printable
from ..store import Store
from ..store import memories as rows

TITLES = {"preference": "Preferences", "decision": "Decisions", "fact": "Facts", "procedure": "Procedures",
          "episode": "Episodes"}


def render(store: Store, project: str | None) -> str:
    found, _ = rows.query(store, rows.Filter(project=project, status="active", limit=1_000_000))
    by_project: dict[str, list[Memory]] = {}
    for memory in found:
        by_project.setdefault(memory.project, []).append(memory)
    out: list[str] = []
    for name in sorted(by_project):
        out.extend(_project(name, by_project[name]))
    return "\n".join(out).rstrip() + "\n" if out else "(no active memories)\n"


def _project(name: str, memories: list[Memory]) -> list[str]:
    out = [f"# Memories of {printable(name)}", ""]
    kinds = [*KINDS, *sorted({m.kind for m in memories} - set(KINDS))]
    for kind in kinds:
        picked = sorted((m for m in memories if m.kind == kind), key=lambda m: (not m.pinned, m.id))
        if not picked:
            continue
        out.extend([f"## {printable(TITLES.get(kind, kind.title()))}", ""])
        out.extend(_line(m) for m in picked)
        out.append("")
    return out


def _line(memory: Memory) -> str:
    text = printable(" ".join(memory.text.split())).replace("<!--", "<!- -")
    notes = (["pinned"] if memory.pinned else []) + _source(memory)
    return f"- {text}" + (f" <!-- {printable('; '.join(notes)).replace('-->', '- ->')} -->" if notes else "")


def _source(memory: Memory) -> list[str]:
    if not memory.provenance:
        return []
    p = memory.provenance[0]
    more = f" +{len(memory.provenance) - 1}" if len(memory.provenance) > 1 else ""
    return [f"{p.tool} {PurePath(p.session_path).name}:{p.line_start}-{p.line_end}{more}"]
