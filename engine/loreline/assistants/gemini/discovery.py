"""Which files under Gemini CLI's folder are sessions (and why the others are not).

Gemini CLI: `<dir>/tmp/<project>/chats/session-*.jsonl` (`<dir>` is `--gemini-dir`, else
`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`); the older single-document `session-*.json`
chats are reported, not read.
"""

from __future__ import annotations

from pathlib import Path

from ...transcripts.discover import Discovery, Found, found_file, unlistable


def find_sessions(root: Path, result: Discovery) -> list[Found]:
    tmp = root / "tmp"
    if not tmp.is_dir():
        result.left_out.append((str(tmp), "no Gemini CLI sessions folder here"))
        return []
    unlistable(tmp, result, depth=2)
    candidates: list[Found] = []
    for path in sorted(tmp.glob("*/chats/session-*")):
        if path.name.endswith(".jsonl"):
            candidates.append(found_file(path, "gemini"))
        elif path.name.endswith(".json"):
            result.left_out.append((str(path), "older single-document Gemini chat (.json), not read"))
        else:
            result.left_out.append((str(path), "not a session file"))
    return candidates
