"""What the editor-client suites share: a real git repository whose sessions were imported into
the test's Loreline home, and how to treat a missing editor host (a skip outside CI, a failure
under CI=true)."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from loreline import pipeline

from loreline.beliefs import conflicts
from loreline.distill.rules import RulesDistiller
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows


@dataclass(frozen=True)
class World:
    """`repo` has three memories (a preference and a decision tied to src/app.py, and a fact)
    from sessions/s0.jsonl; `extra` and `extra2` are sessions not imported yet, each adding one
    fact ("… 42 threads", "… 77 threads")."""

    repo: Path
    extra: Path
    extra2: Path
    home: Path
    tmp: Path


def session(path: Path, repo: Path, *lines: str, read_app: bool = False) -> Path:
    s = ClaudeSession(str(repo / "src"))
    s.user(lines[0])
    if read_app:
        s.assistant("Checking the app.", tools=[("Read", {"file_path": str(repo / "src" / "app.py")}, "import os")])
    for line in lines[1:]:
        s.user(line)
    return s.write(path)


def make_world(tmp_path: Path, home: Path) -> World:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "app.py").write_text("# install deps with pnpm\nimport os\nLOCK = 'advisory'\n")
    (repo / "README.md").write_text("nothing to see\n")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    first = session(tmp_path / "sessions" / "s0.jsonl", repo, "In this repo we use pnpm, never npm.",
                    "We'll use Postgres advisory locks because each billing job needs one worker.",
                    "The fix was to bump the worker pool to 8 threads.", read_app=True)
    with Store() as store:
        pipeline.import_sessions(store, [(first, None)], pipeline.Options(distiller=RulesDistiller()))
    later = tmp_path / "later"
    return World(repo=repo, home=home, tmp=tmp_path,
                 extra=session(later / "s1.jsonl", repo, "The fix was to bump the worker pool to 42 threads."),
                 extra2=session(later / "s2.jsonl", repo, "The fix was to bump the worker pool to 77 threads."))


def briefed(world: World) -> None:
    """Write the project's brief as an import would have (the rules': a line per active memory)."""
    from loreline.brief import rewrite

    with Store() as store:
        rewrite.rewrite(store, str(world.repo))


def pending_conflict(world: World) -> int:
    """Record a pending conflict between the preference (existing) and the decision (new)."""
    with Store() as store:
        found, _ = rows.query(store, rows.Filter(project=str(world.repo), limit=10))
        ids = {m.kind: m.id for m in found}
        with store.write():
            return conflicts.record(store, str(world.repo), ids["preference"], ids["decision"], "test pair")


def missing_host(reason: str) -> None:
    """A real editor host is missing: fail under CI=true, skip with the reason elsewhere."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true and a real part is missing: {reason}")
    pytest.skip(reason)


def conflict_elsewhere(world: World) -> int:
    """A pending conflict in another project (its own session, its own two memories): the
    clients' counts for `repo` must not include it."""
    other = world.tmp / "elsewhere"
    (other / "src").mkdir(parents=True, exist_ok=True)
    path = session(world.tmp / "sessions" / "elsewhere.jsonl", other, "In this repo we use yarn, never npm.",
                   "We'll use Redis locks because each billing job needs one worker.")
    with Store() as store:
        pipeline.import_sessions(store, [(path, None)], pipeline.Options(distiller=RulesDistiller()))
        found, _ = rows.query(store, rows.Filter(project=str(other / "src"), limit=10))
        ids = {m.kind: m.id for m in found}
        with store.write():
            return conflicts.record(store, str(other / "src"), ids["preference"], ids["decision"], "test pair")


HELD = ("In this repo we deploy with nomad, never docker.", "In this repo we lint with ruff, never flake8.")


def held_memories(world: World) -> list[int]:
    """Two memories waiting in the review inbox, made the way the capture worker makes them
    under `capture.review = "ask"` (held, with its reason): `HELD`, in that order."""
    from loreline.capture.worker import REVIEW_REASON

    path = session(world.tmp / "sessions" / "held.jsonl", world.repo, *HELD)
    with Store() as store:
        pipeline.import_sessions(store, [(path, None)], pipeline.Options(distiller=RulesDistiller(), actor="hook",
                                                                          hold=REVIEW_REASON))
        return [int(store.scalar("SELECT id FROM memories WHERE text = ? AND status = 'held'", (text,)))
                for text in HELD]
