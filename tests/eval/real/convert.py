"""One-off: turn public exported Claude Code conversations (Markdown) into Claude Code JSONL.

The user's and the assistant's words are kept verbatim; the JSONL envelope (uuids, timestamps,
cwd) is written here, one message per physical line, so every label can cite a line. Tool
results are shortened to 400 characters unless they carry the user's words (a rejection
reason or an AskUserQuestion answer). Run from a checkout of each source repository:

    python tests/eval/real/convert.py SOURCE REPO_DIR OUT_DIR

SOURCE is one of: brain_explore, production_patterns, claude_transcript, ccexport, cctrace,
unrealfrog, bookminder.
See SOURCES.md.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import uuid
from pathlib import Path

KEEP_WHOLE = ("reason for the rejection", "User has answered your questions")
# Credentials the publishers left in their exports are replaced by fakes of the same shape, so the
# labelled set still exercises redaction without carrying anyone's real secret.
# (keyed by a hash of the credential, so this file does not carry it either)
SCRUB = {
    "d441520f420161f750dd96fb": "xoxb-1111111111111-2222222222222-FakeFakeFakeFakeFake1234",
    "d6bcf4a66da5bea8719890ff": "0fak3t0k3n0fak3t",
    "92049fd8880ddde88f969637": "example-password",
    "e211e969eb06a4dea6e28415": "xapp-1-A00000FAKE0-0000000000000-fakefakefakefakefakefakefakefak",
}
SCRUB_CANDIDATE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{7,}")


def scrub(line: str) -> str:
    """Replace every word whose hash names a known leaked credential with its fake."""
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        for end in range(len(word), 7, -1):  # the credential may be glued to following characters
            fake = SCRUB.get(hashlib.sha256(word[:end].encode()).hexdigest()[:24])
            if fake is not None:
                return fake + word[end:]
        return word
    return SCRUB_CANDIDATE.sub(swap, line)


def git_show(repo: Path, path: str, commit: str = "HEAD") -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], capture_output=True,
                          text=True, check=True).stdout


def git_ls(repo: Path, under: str) -> list[str]:
    out = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD", under],
                         capture_output=True, text=True, check=True).stdout
    return [p for p in out.split("\n") if p.endswith(".md")]


def _blocks(text: str) -> list[dict] | None:
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, list) and all(isinstance(b, dict) for b in value) else None


def _shorten(block: dict) -> dict:
    if block.get("type") == "tool_use":
        short = {k: (v[:400] if isinstance(v, str) else v) for k, v in (block.get("input") or {}).items()}
        return dict(block, input=short)
    if block.get("type") != "tool_result":
        return block
    content = block.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    if len(text) > 400 and not any(k in text for k in KEEP_WHOLE):
        block = dict(block, content=text[:400] + "\n[… shortened for the labelled set]")
    return block


def brain_explore(md: str) -> list[tuple[str, object]]:
    body = md.split("## Conversation", 1)[-1]
    parts = re.split(r"^### (User|Assistant)\n> [^\n]*\n\n", body, flags=re.M)
    out: list[tuple[str, object]] = []
    for i in range(1, len(parts), 2):
        text = re.sub(r"\n+---\s*$", "", parts[i + 1].rstrip())
        blocks = _blocks(text)
        out.append((parts[i].lower(), [_shorten(b) for b in blocks] if blocks is not None else text))
    return out


def production_patterns(md: str) -> list[tuple[str, object]]:
    parts = re.split(r"^## (👤 User|🤖 Claude)\s*\n", md, flags=re.M)
    out: list[tuple[str, object]] = []
    for i in range(1, len(parts), 2):
        text = re.sub(r"\n+---\s*$", "", parts[i + 1].strip()).strip()
        if not text or "🔧 Using tool:" in text:
            continue
        out.append(("user" if "User" in parts[i] else "assistant", text))
    return out


def claude_transcript(md: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for para in re.split(r"\n\n(?=> \[!IMPORTANT\])|(?<=\n)\n(?!> )", md):
        lines = para.strip("\n").split("\n")
        if lines and lines[0] == "> [!IMPORTANT]":
            text = "\n".join(re.sub(r"^> ?", "", l) for l in lines[1:]).rstrip()
            if text and not text.startswith("`/"):
                out.append(("user", text))
    return out


def _sections(md: str, heading: str, user: str) -> list[tuple[str, object]]:
    parts = re.split(heading, md, flags=re.M)
    out: list[tuple[str, object]] = []
    for i in range(1, len(parts), 2):
        text = re.sub(r"\n+---\s*(?:\n\*\*\[[^\n]*\]\*\*\s*)?$", "", parts[i + 1].strip()).strip()
        if not text or text.startswith(("📊 **Tool Result", "<details>")):
            continue
        out.append(("user" if user in parts[i] else "assistant", text))
    return out


def ccexport(md: str) -> list[tuple[str, object]]:
    return _sections(md, r"^## (👤 User|🤖 Assistant|🤖🔧 Assistant|🔧 Tool Use)\s*\n", "User")


def cctrace(md: str) -> list[tuple[str, object]]:
    return _sections(md, r"^### (👤 User|🤖 Assistant[^\n]*)\n", "User")


def unrealfrog(md: str) -> list[tuple[str, object]]:
    parts = re.split(r"^## (User|Assistant) \(\d\d:\d\d UTC\)\n", md, flags=re.M)
    out: list[tuple[str, object]] = []
    for i in range(1, len(parts), 2):
        text = parts[i + 1].strip()
        if text:
            out.append((parts[i].lower(), text))
    return out


def bookminder(md: str) -> list[tuple[str, object]]:
    """A terminal copy: a prompt is a `> ` line plus the indented and blank lines after it (a pasted
    text keeps its blank lines) up to the next line at column 0 or tool output (`  ⎿`); the rest is
    the assistant's output. Slash-command echoes (`> /cost`) are left out."""
    out: list[tuple[str, object]] = []
    lines, i, reply = md.split("\n"), 0, []
    while i < len(lines):
        if lines[i].startswith("> "):
            if "\n".join(reply).strip() and out:
                out.append(("assistant", "\n".join(reply).strip()))
            reply, prompt = [], [lines[i][2:]]
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")) \
                    and not lines[i].lstrip().startswith("⎿"):
                prompt.append(lines[i][2:])
                i += 1
            text = "\n".join(prompt).strip()
            if text and not text.startswith("/"):
                out.append(("user", text))
            continue
        reply.append(lines[i])
        i += 1
    if "\n".join(reply).strip() and out:
        out.append(("assistant", "\n".join(reply).strip()))
    return out


def emit(messages: list[tuple[str, object]], session: str, cwd: str) -> str:
    lines, parent = [], None
    for n, (role, content) in enumerate(messages):
        me = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{session}/{n}"))
        body = content if role == "user" else (content if isinstance(content, list)
                                                else [{"type": "text", "text": content}])
        record = {"parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd,
                  "sessionId": session, "version": "export", "type": role, "uuid": me,
                  "timestamp": f"2025-11-30T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
                  "message": {"role": role, "content": body}}
        lines.append(scrub(json.dumps(record, ensure_ascii=False)))
        parent = me
    return "\n".join(lines) + "\n"


# one file each, read at a fixed commit (cctrace-js removed its export from later commits)
SINGLE = {"ccexport": ("VIBE.md", "6c5cfe5decbb0b2e60b668c19981f579a8e7d171", ccexport),
          "cctrace": ("conversation_full.md", "c5adb4be13cd34cf89e563855f2a21ba54ae8435", cctrace)}

# sessions typed by the person (subagent briefs, team tasks and plan-only hand-offs left out)
UNREALFROG = (
    "2026-02-13T02-07-00-setup-the-agent-team-described-in",
    "2026-02-13T03-35-00-remove-the-randroid-plugin",
    "2026-02-13T03-58-00-lets-kickoff-the-project-get-the",
    "2026-02-13T04-31-00-i-have-feedback-for-the-team",
    "2026-02-13T04-45-00-one-more-piece-of-advice-when",
    "2026-02-14T15-17-00-implement-the-following-plan-qa-defect",
    "2026-02-14T16-41-00-implement-the-following-plan-sprint-3",
    "2026-02-15T01-40-00-plan-the-next-sprint",
    "2026-02-15T04-06-00-continue-the-inprogress-sprint-use-agent",
    "2026-02-15T16-22-00-restart-the-sprint",
    "2026-02-15T17-48-00-have-the-agent-team-plan-the",
    "2026-02-16-0802-spin-up-the-agent-team-and",
    "2026-02-16T03-20-00-have-the-agents-do-a-retrospective",
    "2026-02-16T03-45-00-properly-utilize-all-applicable-agents-on",
    "2026-02-16T06-07-00-we-need-to-cleanup-our-transcripts",
    "2026-02-17-0429-this-sprint-has-been-a-disaster",
    "2026-02-18-0405-implement-the-following-plan-plan-visual",
)
# the Claude Code days (days 012-016 were spent with another assistant and were left out)
BOOKMINDER_DAYS = ("day-002", "day-003", "day-005", "day-006", "day-017")
PICKED = {
    "unrealfrog": (".claude/transcripts", "dc20bb855490ec404c58fd812200f41545d293a3", UNREALFROG, unrealfrog),
    "bookminder": ("claude-dev-log-diary", "451791e291c7635cc77e2256163847e946546eb5", BOOKMINDER_DAYS, bookminder),
}

PARSERS = {"brain_explore": ("claude-prompts", brain_explore),
           "production_patterns": ("docs/transcripts/claude-code", production_patterns),
           "claude_transcript": (".claude-transcripts", claude_transcript)}


def main(source: str, repo: Path, out: Path) -> None:
    if source in SINGLE:
        path, commit, single = SINGLE[source]
        messages = single(git_show(repo, path, commit))
        session = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{source}/{path}"))
        target = out / source / f"{Path(path).stem}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(emit(messages, session, f"/home/user/{source}"), encoding="utf-8")
        return
    if source in PICKED:
        under, commit, names, parse = PICKED[source]
        for stem in names:
            messages = parse(git_show(repo, f"{under}/{stem}.md", commit))
            session = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{source}/{stem}"))
            target = out / source / f"{stem[:60]}.jsonl"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(emit(messages, session, f"/home/user/{source}"), encoding="utf-8")
        return
    under, parse = PARSERS[source]
    for path in git_ls(repo, under):
        if "/contents/" in path or path.endswith("README.md"):
            continue
        messages = parse(git_show(repo, path))
        if not any(r == "user" and isinstance(c, str) for r, c in messages):
            continue
        name = Path(path).stem
        session = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{source}/{name}"))
        target = out / source / f"{name[:60]}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(emit(messages, session, f"/home/user/{source}"), encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))
