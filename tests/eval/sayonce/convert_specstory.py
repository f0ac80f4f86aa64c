"""Convert SpecStory Markdown exports (`.specstory/history/*.md`) into Loreline's generic JSONL.

    python tests/eval/sayonce/convert_specstory.py OUT_DIR CWD FILE.md...

One JSON line per message: `{"role", "content", "timestamp", "cwd", "session_id", "source_line"}`,
where `source_line` is the line of the Markdown file where the message's marker
(`_**User**_` / `_**Assistant**_`) stands. The person's words are kept verbatim (whitespace at
the ends trimmed). The assistant's words are kept verbatim too, less the collapsed tool sections
(`<details>` … `</details>`: tool calls and their output), and cut at `ASSISTANT_MAX` characters
(marked with `[…]`). Credentials left in the exports are replaced by fakes of the same shape
(`SCRUB`). The session's start time comes from the export's title line; each message's
timestamp adds one second per message, so their order is kept.
"""

from __future__ import annotations

import json
import re
import sys
import uuid
from datetime import datetime, timedelta
from pathlib import Path

ASSISTANT_MAX = 3000
_MARKER = re.compile(r"^_\*\*(User|Assistant)\*\*_\s*$")
_TITLE_TIME = re.compile(r"\((\d{4}-\d\d-\d\d) (\d\d):(\d\d)Z\)\s*$")
_DETAILS = re.compile(r"<details>.*?</details>", re.S)
#: credentials left in the exports, replaced by fakes of the same shape (a share link's token, a
#: publishable key)
SCRUB = (
    (re.compile(r"token=eyJ[A-Za-z0-9._-]+"), "token=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..FAKEFAKEFAKEFAKE.FAKEFAKEFAKE"),
    (re.compile(r"pk_test_[A-Za-z0-9]+"), "pk_test_ZmFrZS1rZXktZm9yLWxvcmVsaW5lLWV2YWwk"),
    (re.compile(r"sk_test_[A-Za-z0-9]{8,}"), "sk_test_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE"),
)


def convert(path: Path, cwd: str) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    start = datetime(2000, 1, 1)
    for line in lines[:6]:
        found = _TITLE_TIME.search(line)
        if found:
            start = datetime.fromisoformat(f"{found.group(1)}T{found.group(2)}:{found.group(3)}:00")
    session = str(uuid.uuid5(uuid.NAMESPACE_URL, path.name))
    out: list[dict[str, object]] = []
    role, at, body = None, 0, []
    def flush() -> None:
        if role is None:
            return
        text = "\n".join(body).strip()
        if text.endswith("---"):
            text = text[:-3].rstrip()
        if role == "assistant":
            text = _DETAILS.sub("", text).strip()
            if len(text) > ASSISTANT_MAX:
                text = text[:ASSISTANT_MAX].rstrip() + " […]"
        for pattern, fake in SCRUB:
            text = pattern.sub(fake, text)
        if text:
            stamp = (start + timedelta(seconds=len(out))).strftime("%Y-%m-%dT%H:%M:%S.000Z")
            out.append({"role": role, "content": text, "timestamp": stamp, "cwd": cwd, "session_id": session,
                        "source_line": at})
    for number, line in enumerate(lines, 1):
        marker = _MARKER.match(line)
        if marker:
            flush()
            role, at, body = marker.group(1).lower(), number, []
        elif role is not None:
            body.append(line)
    flush()
    return out


def main(argv: list[str]) -> int:
    out_dir, cwd, files = Path(argv[0]), argv[1], [Path(a) for a in argv[2:]]
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in files:
        rows = convert(path, cwd)
        (out_dir / (path.stem + ".jsonl")).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                                                     encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
