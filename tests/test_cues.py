"""A memory's retrieval cues (the questions it answers, its topic words): written by a model
backend in the same `record_memories` call, from the glossary for rules memories, stored and
searched beside the text, shown, edited, exported and imported — through the real command line
against a real store."""

from __future__ import annotations

import json
from pathlib import Path

from loreline import beliefs
from loreline.distill.anthropic import RECORD_MEMORIES, parse_memories
from loreline.embed import default_embedder
from loreline.evidence import check
from loreline.models import Candidate, Chunk, Evidence, Provenance, Turn
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.test_cli import cli

PROJECT = "/work/cues"
#: shares no content word with any question below; only its cues do
WORKER = "Background work goes through the arq pool in worker/settings.py; keep jobs idempotent."
CUES = "what does the overnight robot do?\nwhere do periodic tasks live?\nscheduled jobs, cron"


def test_the_schema_asks_for_optional_questions_and_topics() -> None:
    item = RECORD_MEMORIES["input_schema"]["properties"]["memories"]["items"]
    assert {"questions", "topics"} <= set(item["properties"])
    assert item["required"] == ["kind", "text", "evidence"]  # the cues are optional


def test_a_models_questions_and_topics_become_cues_and_malformed_ones_cost_nothing() -> None:
    answer = {"memories": [
        {"kind": "preference", "text": "We use uv, never pip.", "evidence": [{"line": 3, "quote": "uv"}],
         "questions": ["which package manager do we use?", "  how do I add a dependency?  ", 7, "x" * 500],
         "topics": ["python package manager", "dependencies"]},
        {"kind": "fact", "text": "CI runs on GitHub Actions.", "evidence": [{"line": 4, "quote": "CI"}],
         "questions": "not a list"},
    ]}
    first, second = parse_memories(answer, "anthropic/m/distill-v2")
    assert first.cues.splitlines() == ["which package manager do we use?", "how do I add a dependency?",
                                       "python package manager, dependencies"]
    assert second.cues == ""


def test_cues_follow_the_evidence_rules_no_secret_in_them() -> None:
    turn = Turn(speaker="user", text="We use uv, never pip.", line_start=1, line_end=1)
    chunk = Chunk("s", "p", 0, (turn,), "L1 [USER] We use uv, never pip.")
    clean = Candidate("preference", "We use uv, never pip.", (Evidence(1, "We use uv, never pip."),), "m", cues="pip?")
    leaky = Candidate("preference", "We use uv, never pip.", (Evidence(1, "We use uv, never pip."),), "m",
                      cues="token sk-live-0123456789abcdefghijklmnop?")
    assert check(clean, chunk, lambda text: "sk-live" in text) is None
    assert check(leaky, chunk, lambda text: "sk-live" in text) == "secret"


def _add(store: Store, text: str, cues: str, n: int) -> int:
    candidate = Candidate("procedure", text, (Evidence(n, text),), "anthropic/m/distill-v2", cues=cues)
    prov = Provenance("claude-code", f"s-{n}", "/tmp/s.jsonl", n, n, text, None)
    _, memory_id = beliefs.reconcile(store, candidate, beliefs.Context(PROJECT, prov, (), f"k-{n}"),
                                     default_embedder(store))
    assert memory_id is not None
    return memory_id


def _recall(home: Path, query: str) -> list[int]:
    found = json.loads(cli(home, "recall", query, "--project", PROJECT, "--json").stdout)
    return [hit["memory"]["id"] for hit in found]


def test_cues_are_searched_shown_edited_exported_and_imported(loreline_home: Path, tmp_path: Path) -> None:
    with Store(loreline_home / "loreline.db") as store:
        with store.write():
            worker = _add(store, WORKER, CUES, 1)
            _add(store, "The API answers errors as RFC 7807 problem JSON.", "", 2)
            _add(store, "Release notes are written in CHANGELOG.md by hand.", "", 3)
    assert _recall(loreline_home, "what does the overnight robot do?")[:1] == [worker]

    shown = cli(loreline_home, "show", str(worker)).stdout
    assert "found by: what does the overnight robot do?; where do periodic tasks live?; scheduled jobs, cron" in shown
    assert json.loads(cli(loreline_home, "show", str(worker), "--json").stdout)["cues"] == CUES.splitlines()

    edited = cli(loreline_home, "edit", str(worker), "--cues", "who babysits the nightly batch?; job queue")
    assert f"Memory #{worker} is found by: who babysits the nightly batch?; job queue" in edited.stdout
    assert worker in _recall(loreline_home, "who babysits the nightly batch?")[:1]
    assert worker not in _recall(loreline_home, "what does the overnight robot do?")

    out = tmp_path / "all.jsonl"
    cli(loreline_home, "export", "-o", str(out))
    exported = [json.loads(line) for line in out.read_text().splitlines()]
    assert next(r for r in exported if r.get("id") == worker)["cues"] == "who babysits the nightly batch?\njob queue"
    for suffix in ("", "-wal", "-shm"):
        Path(str(loreline_home / "loreline.db") + suffix).unlink(missing_ok=True)
    cli(loreline_home, "import", "memories", str(out))
    assert json.loads(cli(loreline_home, "show", str(worker), "--json").stdout)["cues"] == [
        "who babysits the nightly batch?", "job queue"]
    assert worker in _recall(loreline_home, "who babysits the nightly batch?")[:1]


def test_rules_memories_carry_the_glossarys_cues(loreline_home: Path, tmp_path: Path) -> None:
    session = ClaudeSession(PROJECT)
    session.user("In this repo we use pnpm, never npm.")
    session.user("We keep the lunch order short.")
    cli(loreline_home, "import", "sessions", "--path", str(session.write(tmp_path / "s.jsonl")))
    listed = json.loads(cli(loreline_home, "memories", "--project", PROJECT, "--json").stdout)
    cues = {m["text"]: m["cues"] for m in listed}
    assert any("javascript package manager" in c for c in cues["In this repo we use pnpm, never npm."])
    assert all(not c for text, c in cues.items() if "pnpm" not in text)


def test_a_secret_typed_into_a_cue_is_never_stored(loreline_home: Path) -> None:
    with Store(loreline_home / "loreline.db") as store, store.write():
        worker = _add(store, WORKER, CUES, 1)
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    cli(loreline_home, "edit", str(worker), "--cues", f"which token does CI use? {token}")
    with Store(loreline_home / "loreline.db") as store:
        assert token not in str(store.rows("SELECT cues FROM memories")) and token not in str(
            store.rows("SELECT after FROM audit"))


def test_a_bad_edit_says_one_line_and_changes_nothing(loreline_home: Path) -> None:
    with Store(loreline_home / "loreline.db") as store, store.write():
        worker = _add(store, WORKER, CUES, 1)
    done = cli(loreline_home, "edit", str(worker), check=False)
    assert done.returncode != 0 and len(done.stderr.strip().splitlines()) == 1
    assert json.loads(cli(loreline_home, "show", str(worker), "--json").stdout)["cues"] == CUES.splitlines()
