"""Pick one export per session from a repository's SpecStory history, across its whole git history.

    python tests/eval/sayonce/select_specstory.py GIT_DIR OUT_DIR > manifest.tsv

Every `.specstory/history/*.md` path ever added or modified in `GIT_DIR` (all refs) is read at
the newest commit that wrote it, so exports deleted or renamed later are still found. Exports
holding no `_**User…**_` message are skipped. SpecStory often wrote one session twice (an older
and a newer exporter: `…_13-31Z-…` and `…_13-31-41Z-…`, or a renamed title); exports are grouped
by their start minute (`YYYY-MM-DD_HH-MM` in the name), and within a group an export is a copy of
a kept one when its first prompt appears in the kept one's text. The kept export of a group is
the newer exporter's (`Markdown v2`, which shows tool calls) else the longest. Tiny stubs (under
1,000 characters) are dropped when the minute has a real export, or when their only prompt is
the title. Parallel sessions started in the same minute (different first prompts) are all kept.

Prints one line per kept export: `name`, `commit`, `path`, `size` (tab-separated).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

FOLDER = ".specstory/history"
STUB = 1000
_PREFIX = re.compile(r"(\d{4}-\d\d-\d\d_\d\d-\d\d)")
_FIRST = re.compile(r"^_\*\*User[^\n]*\n(.*?)(?=^_\*\*|\Z)", re.M | re.S)
_TITLE = re.compile(r"^# (.*?)(?: \(\d{4}-.*)?$", re.M)


def git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def newest_versions(repo: str) -> dict[str, str]:
    """Each export path → the newest commit that added or modified it."""
    found: dict[str, str] = {}
    commit = ""
    for row in git(repo, "log", "--all", "--format=C %H", "--name-only", "--diff-filter=AM", "--", FOLDER).splitlines():
        if row.startswith("C "):
            commit = row[2:]
        elif row.endswith(".md") and row not in found:
            found[row] = commit
    return found


def words(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


def export(repo: str, path: str, commit: str) -> dict[str, Any] | None:
    text = git(repo, "show", f"{commit}:{path}")
    name = path.rsplit("/", 1)[-1]
    prefix = _PREFIX.match(name)
    if not re.search(r"^_\*\*User", text, re.M) or prefix is None:
        return None
    first = _FIRST.search(text)
    prompt = words(first.group(1))[:80] if first else ""
    title = _TITLE.search(text)
    stub = len(text) < STUB and title is not None and words(title.group(1)) == prompt
    return {"name": name, "path": path, "commit": commit, "text": text, "size": len(text), "prefix": prefix.group(1),
            "v2": "Markdown v2" in text[:200], "prompt": prompt, "stub": stub, "words": words(text)}


def keep(group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    group = sorted(group, key=lambda e: (e["v2"], e["size"]), reverse=True)
    if len(group) > 1:
        group = [e for e in group if e["size"] >= STUB] or group[:1]
    kept: list[dict[str, Any]] = []
    for item in (e for e in group if not e["stub"]):
        if not any(not item["prompt"] or item["prompt"] in other["words"] for other in kept):
            kept.append(item)
    return kept


def main(argv: list[str]) -> int:
    repo, out = argv[0], Path(argv[1])
    groups: dict[str, list[dict[str, Any]]] = {}
    for path, commit in newest_versions(repo).items():
        item = export(repo, path, commit)
        if item is not None:
            groups.setdefault(item["prefix"], []).append(item)
    out.mkdir(parents=True, exist_ok=True)
    for prefix in sorted(groups):
        for item in keep(groups[prefix]):
            (out / item["name"]).write_text(item["text"], encoding="utf-8")
            print(item["name"], item["commit"], item["path"], item["size"], sep="\t")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
