"""Staleness tied to the code: a memory rests on the files it is tied to, as they were when it
was made; when they change substantially, are deleted or are renamed, it "may be stale".

Anchor. When a memory is tied to a file, the file's content is recorded (`store.anchors`):
its git blob id (the SHA-1 git gives the same bytes, worked out here without running git, so
it is the same inside and outside a repository), a sketch of its lines, and the commit checked
out (for following renames). "When it was made" is when it was imported: the capture worker
imports a session within moments of its turns, while an old session imported later anchors to
the files as they are then (the earlier content is not known). Files tied before anchors
existed are anchored by the first check.

Substantially. A file is compared with its anchor, never with its previous state: the same
blob is fresh; otherwise the sketch says what share of the lines the file had then (distinct,
non-blank, leading and trailing spaces ignored) is gone now, changed or deleted. At
`CHANGED_SHARE` (a fifth) or more the memory may be stale; below it (a typo fixed, a function
added, re-indentation) it is not. Lines added never count: new code does not make an old
statement about the file wrong. The sketch keeps the `SKETCH_SIZE` smallest line hashes (a
bottom-k sample), exact for files of up to that many distinct lines and within about five points
above. Because the comparison is with the anchor, switching branches is handled for free: a
branch where the file differs flags the memory, switching back clears it (the blob matches).

Deleted or renamed. A tied file that is gone is looked up among the renames git sees between
the anchor's commit and the working tree (committed or staged: `git diff -M`), one `git` call
per check that finds missing files (none otherwise); followed, it reads "renamed to …", else
"deleted" (a plain `mv` that git has not been told of is a deletion). A confirmation moves the
tie to the new path. A file still there but unreadable or over `MAX_FILE_BYTES` keeps its state.

Cost. A check reads only the files it is given (a save: one file; a full check: each distinct
tied file once), hashes them, and writes only the ties whose state changed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

from .records import record
from .store import Store
from .store import anchors as rows
from .store import memories
from .store.anchors import Anchor, Tie

SKETCH_SIZE = 64
CHANGED_SHARE = 0.2
MAX_FILE_BYTES = 8 << 20
GIT_TIMEOUT = 10.0
HEAD_TTL = 2.0


@record
class Content:
    """A file as it is now: its blob id and its set of line hashes."""

    blob: str
    lines: frozenset[int]


@record
class CheckReport:
    checked: int
    flagged: tuple[int, ...]
    cleared: tuple[int, ...]


def blob_id(data: bytes) -> str:
    """Git's blob id for these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def line_hashes(data: bytes) -> frozenset[int]:
    """32-bit hashes of the file's distinct non-blank lines, outer spaces ignored."""
    return frozenset(int.from_bytes(hashlib.blake2b(line, digest_size=4).digest(), "big")
                     for line in (raw.strip() for raw in data.splitlines()) if line)


def sketch(lines: frozenset[int]) -> bytes:
    """The `SKETCH_SIZE` smallest line hashes (a bottom-k sample of the lines)."""
    return b"".join(h.to_bytes(4, "big") for h in sorted(lines)[:SKETCH_SIZE])


def gone_share(anchor_sketch: bytes, lines: frozenset[int]) -> float:
    """The share of the anchored lines (as sampled) that the file no longer has."""
    sampled = [int.from_bytes(anchor_sketch[i:i + 4], "big") for i in range(0, len(anchor_sketch), 4)]
    if not sampled:
        return 0.0 if not lines else 1.0
    return sum(1 for h in sampled if h not in lines) / len(sampled)


def read(path: Path) -> Content | None:
    """The file's content now; None when it is missing, unreadable, not a file or too large."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    return Content(blob_id(data), line_hashes(data))


def anchor_of(content: Content, commit: str | None) -> Anchor:
    return Anchor(content.blob, sketch(content.lines), commit)


def resolve(root: str, path: str) -> Path:
    return Path(path) if os.path.isabs(path) else Path(root) / path


def head_commit(root: str) -> str | None:
    """The commit checked out in `root`, or None outside git (asked of git at most once every
    `HEAD_TTL` seconds per folder: an import anchors many memories in a row)."""
    if not (Path(root) / ".git").exists():
        return None
    cached = _heads.get(root)
    if cached is not None and time.monotonic() - cached[0] < HEAD_TTL:
        return cached[1]
    out = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    commit = (out.strip() or None) if out is not None else None
    _heads[root] = (time.monotonic(), commit)
    return commit


_heads: dict[str, tuple[float, str | None]] = {}


def renames(root: str, commit: str) -> dict[str, str]:
    """{old path: new path} for the renames git sees from `commit` to the working tree."""
    out = _git(root, "diff", "-M", "--name-status", "-z", "--diff-filter=R", commit, "--")
    if not out:
        return {}
    parts = out.split("\0")
    found: dict[str, str] = {}
    for i in range(0, len(parts) - 2, 3):
        if parts[i].startswith("R"):
            found[parts[i + 1]] = parts[i + 2]
    return found


def _git(root: str, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True, timeout=GIT_TIMEOUT,
                              check=False, env={**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"})
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def anchor_files(store: Store, root: str, memory_id: int) -> None:
    """Anchor a memory's unanchored ties to their files' content now (inside a write)."""
    if not os.path.isabs(root):
        return
    paths = rows.unanchored(store, memory_id)
    commit = head_commit(root) if paths else None
    for path in paths:
        content = read(resolve(root, path))
        if content is not None:
            rows.set_anchor(store, memory_id, path, anchor_of(content, commit))


def confirm(store: Store, memory_id: int, by: str) -> None:
    """A person vouches for a memory as the code stands now (inside a write): renamed ties
    follow the rename, deleted ones are dropped, every tie is anchored to the content now."""
    memory = memories.get(store, memory_id)
    for old, new in rows.renamed_to(store, memory_id).items():
        rows.move_tie(store, memory_id, old, new)
    commit = head_commit(memory.project) if os.path.isabs(memory.project) else None
    for path in rows.paths_of(store, memory_id):
        content = read(resolve(memory.project, path)) if os.path.isabs(memory.project) else None
        if content is not None:
            rows.set_anchor(store, memory_id, path, anchor_of(content, commit))
        elif os.path.isabs(memory.project):
            rows.drop_tie(store, memory_id, path)
    rows.confirm(store, memory_id, by)
    memories.audit(store, "user", "confirm", memory_id, before={"stale": memory.stale}, after={"by": by})


def verdict(tie: Tie, content: Content | None, renamed: dict[str, str]) -> tuple[str | None, str | None]:
    """(state, detail) of a tie given its file now: fresh is (None, None)."""
    assert tie.anchor is not None
    if content is None:
        if tie.path in renamed:
            return "renamed", f"{tie.path} renamed to {renamed[tie.path]}"
        return "deleted", f"{tie.path} deleted"
    if content.blob == tie.anchor.blob:
        return None, None
    share = gone_share(tie.anchor.sketch, content.lines)
    if share >= CHANGED_SHARE:
        return "changed", f"{tie.path} changed ({round(share * 100)}% of its lines)"
    return None, None


def check(store: Store, project: str, paths: Sequence[str] | None = None) -> CheckReport:
    """Compare the project's tied files (all, or those named) with their anchors, and flag or
    clear the memories resting on them. Writes only when a state changes."""
    if not os.path.isabs(project):
        return CheckReport(0, (), ())
    found = rows.ties(store, project, _relative(project, paths) if paths is not None else None)
    contents = {path: read(resolve(project, path)) for path in {t.path for t in found}}
    renamed = _renames_for(project, [t for t in found if t.anchor is not None and contents[t.path] is None])
    changes: list[tuple[Tie, str | None, str | None]] = []
    adopt: list[tuple[Tie, Content]] = []
    for tie in found:
        content = contents[tie.path]
        if tie.anchor is None:
            if content is not None:
                adopt.append((tie, content))
            continue
        if content is None and resolve(project, tie.path).exists():
            continue  # there but unreadable now (permissions, too large): nothing is known
        state, detail = verdict(tie, content, renamed)
        if state != tie.state:
            changes.append((tie, state, detail))
    return _record(store, project, len(found), changes, adopt)


def _relative(project: str, paths: Iterable[str]) -> list[str]:
    """Paths as ties name them: relative to the project when inside it, else as given."""
    out: list[str] = []
    for path in paths:
        out.append(path)
        if os.path.isabs(path):
            rel = os.path.relpath(path, project)
            if not rel.startswith(".."):
                out.append(rel)
    return list(dict.fromkeys(out))


def _renames_for(root: str, missing: list[Tie]) -> dict[str, str]:
    """One `git diff -M` per anchor commit among the missing files (usually one, often none)."""
    found: dict[str, str] = {}
    for commit in {t.anchor.commit for t in missing if t.anchor is not None and t.anchor.commit}:
        found.update(renames(root, commit))
    return found


def _record(store: Store, project: str, checked: int, changes: list[tuple[Tie, str | None, str | None]],
            adopt: list[tuple[Tie, Content]]) -> CheckReport:
    if not changes and not adopt:
        return CheckReport(checked, (), ())
    before = set(rows.stale_ids(store, [t.memory_id for t, _, _ in changes]))
    with store.write():
        commit = head_commit(project) if adopt else None
        for tie, content in adopt:
            rows.set_anchor(store, tie.memory_id, tie.path, anchor_of(content, commit))
        for tie, state, detail in changes:
            rows.set_state(store, tie.memory_id, tie.path, state, detail)
        touched = {t.memory_id for t, _, _ in changes}
        rows.refresh_stale(store, touched)
        after = set(rows.stale_ids(store, list(touched)))
    return CheckReport(checked, tuple(sorted(after - before)), tuple(sorted(before - after)))
