"""Check the say-once label file: every repeat points at a person's words, in replay order.

    python tests/eval/sayonce/check_labels.py [LABELS.json]

For each project: its half is named once, its sessions exist. For each repeat: `earlier` and
`later` name a session of the project and a physical line that Loreline reads as a user turn
starting there (`later` as a typed prompt), the earlier session comes first in the replay, and
`correction`, `key`, `claim` and `facts` have their shapes (`facts`: one or more facts, each one
or more non-empty alternative phrases). Prints one line per problem and exits 1 when any.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
LABELS = ROOT / "tests" / "eval" / "sayonce" / "labels.json"


@cache
def user_lines(path: Path) -> dict[int, str]:
    """Line → origin of every user turn Loreline reads in a session file."""
    from loreline.assistants import registry

    turns = registry.parse(path).transcript.turns
    return {t.line_start: t.origin for t in turns if t.speaker == "user"}


def phrases(value: Any) -> bool:
    """A non-empty list of non-empty lists of non-empty strings."""
    return (isinstance(value, list) and bool(value) and all(
        isinstance(alt, list) and bool(alt) and all(isinstance(p, str) and p.strip() for p in alt) for alt in value))


def repeat_problems(name: str, sessions: list[str], root: Path, repeat: dict[str, Any]) -> list[str]:
    where = f"{name}: {repeat.get('later')}"
    found: list[str] = []
    places = {}
    for end in ("earlier", "later"):
        ref = str(repeat.get(end, ""))
        session, _, line = ref.rpartition(":")
        if session not in sessions or not line.isdigit():
            found.append(f"{where}: {end} {ref!r} is not `<session of the project>:<line>`")
            continue
        origin = user_lines(root / session).get(int(line))
        if origin is None or (end == "later" and origin != "prompt"):
            kind = "a typed prompt" if end == "later" else "a user turn"
            found.append(f"{where}: {end} line {line} is not {kind} ({origin or 'no user turn starts there'})")
        places[end] = sessions.index(session)
    if len(places) == 2 and places["earlier"] >= places["later"]:
        found.append(f"{where}: the earlier session does not come before the later one")
    if not isinstance(repeat.get("correction"), bool):
        found.append(f"{where}: correction is not true or false")
    if not isinstance(repeat.get("claim"), str) or not repeat["claim"].strip():
        found.append(f"{where}: no claim")
    for field in ("key", "facts"):
        if not phrases(repeat.get(field)):
            found.append(f"{where}: {field} is not a list of lists of phrases")
    return found


def problems(data: dict[str, Any]) -> list[str]:
    found: list[str] = []
    halves = [name for half in data["split"].values() for name in half]
    for name in sorted(set(halves) ^ set(data["projects"])):
        found.append(f"{name}: in the split or the projects but not both")
    found += [f"{name}: in two halves" for name in sorted({n for n in halves if halves.count(n) > 1})]
    for name, project in data["projects"].items():
        root = ROOT / str(project.get("root", data["root"]))
        sessions: list[str] = project["sessions"]
        found += [f"{name}: session {s} is missing" for s in sessions if not (root / s).is_file()]
        if len(set(sessions)) != len(sessions):
            found.append(f"{name}: a session is listed twice")
        present = [s for s in sessions if (root / s).is_file()]
        for repeat in project["repeats"]:
            found += repeat_problems(name, present, root, repeat)
    return found


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else LABELS
    data = json.loads(path.read_text(encoding="utf-8"))
    found = problems(data)
    for line in found:
        print(f"PROBLEM {line}")
    counts = {half: sum(len(data["projects"][n]["repeats"]) for n in names) for half, names in data["split"].items()}
    print(f"{path.name}: {len(data['projects'])} projects, " + ", ".join(f"{h} {c} repeats" for h, c in counts.items()))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
