"""Each retrieval cue a model or a person wrote (a question a memory answers, its topic words) has
a vector of its own, and a memory counts with its best similarity: a question asked the way
one of its cues asks is found although the memory's statement says it otherwise. Checked
through the real command line and the real prompt hook asking the real warm process, and the
cue vectors are kept through an edit, an export and import, and a re-embed."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from loreline import beliefs
from loreline.embed import default_embedder
from loreline.models import Candidate, Evidence, Provenance
from loreline.project import project_key
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline_hooks import warm
from tests.capture_helpers import hook_env, run_hook, wait_for, worker_lock_held
from tests.test_cli import cli

#: its statement says "canary … thirty minutes"; only its cues speak of a soak period
DEPLOY = ("Deploys go out from the release branch after the canary in eu-west-1 has run for thirty minutes "
          "without a new alert.")
CUES = ("how long do we wait before promoting a rollout?\nwhich region gets changes first?\n"
        "is there a soak period before shipping?\nrelease process, canary")
OTHERS = ("The API answers errors as RFC 7807 problem JSON.", "Release notes are written in CHANGELOG.md by hand.",
          "Background work goes through the arq pool in worker/settings.py; keep jobs idempotent.")
ASKED = "what soak time do we use?"


def _fill(home: Path, project: str) -> int:
    with Store(home / "loreline.db") as store, store.write():
        embedder = default_embedder(store)
        ids = []
        for n, (text, cues) in enumerate([(DEPLOY, CUES), *((t, "") for t in OTHERS)], start=1):
            candidate = Candidate("procedure", text, (Evidence(n, text),), "anthropic/m/distill-v2", cues=cues)
            prov = Provenance("claude-code", f"s-{n}", "/tmp/s.jsonl", n, n, text, None)
            _, memory_id = beliefs.reconcile(store, candidate, beliefs.Context(project, prov, (), f"k-{n}"), embedder)
            assert memory_id is not None
            ids.append(memory_id)
    return ids[0]


def _recall(home: Path, project: str, query: str) -> list[int]:
    found = json.loads(cli(home, "recall", query, "--project", project, "--json").stdout)
    return [hit["memory"]["id"] for hit in found]


def _cue_vectors(home: Path, memory_id: int) -> int:
    with Store(home / "loreline.db") as store:
        return int(store.scalar("SELECT count(*) FROM memory_cue_vec WHERE memory_id = ?", (memory_id,)) or 0)


def test_a_question_only_a_cue_asks_is_found_by_the_cli_and_the_prompt_hook(loreline_home: Path,
                                                                             tmp_path: Path) -> None:
    folder = tmp_path / "proj"
    folder.mkdir()
    deploy = _fill(loreline_home, project_key(str(folder)))
    assert _recall(loreline_home, str(folder), ASKED)[:1] == [deploy]

    session = ClaudeSession(cwd=str(folder))
    session.user("hello")
    path = session.write(tmp_path / "sessions" / f"{session.session_id}.jsonl")
    payload = {"session_id": session.session_id, "transcript_path": str(path), "cwd": str(folder),
               "permission_mode": "default", "hook_event_name": "UserPromptSubmit", "prompt": ASKED}
    env = hook_env(loreline_home, LORELINE_PROMPT_RECALL="meaning")
    warm_process = subprocess.Popen([sys.executable, "-m", "loreline_warm"], env=env,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("LORELINE_HOME", str(loreline_home))
            wait_for(warm.listening, 60, "the warm process to listen")
        with worker_lock_held(loreline_home):
            result = run_hook(loreline_home, "UserPromptSubmit", stdin=payload, env=env)
        assert warm_process.poll() is None
    finally:
        warm_process.kill()
        warm_process.wait()
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    block = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert [int(i) for i in re.findall(r"^- #(\d+) ", block, re.M)][:1] == [deploy]


def test_cue_vectors_follow_edits_export_import_and_reembed(loreline_home: Path, tmp_path: Path) -> None:
    project = "/work/cue-vectors"
    deploy = _fill(loreline_home, project)
    assert _cue_vectors(loreline_home, deploy) == 4  # one per line a model wrote
    assert _recall(loreline_home, project, ASKED)[:1] == [deploy]

    cli(loreline_home, "edit", str(deploy), "--cues", "when can a rollout be promoted?; soak period; canary")
    assert _cue_vectors(loreline_home, deploy) == 3

    out = tmp_path / "all.jsonl"
    cli(loreline_home, "export", "-o", str(out))
    for suffix in ("", "-wal", "-shm"):
        Path(str(loreline_home / "loreline.db") + suffix).unlink(missing_ok=True)
    cli(loreline_home, "import", "memories", str(out))
    assert _cue_vectors(loreline_home, deploy) == 3
    assert _recall(loreline_home, project, ASKED)[:1] == [deploy]

    with Store(loreline_home / "loreline.db") as store, store.write():
        store.conn.execute("DELETE FROM memory_cue_vec")  # as a store from before cue vectors
    cli(loreline_home, "reembed")
    assert _cue_vectors(loreline_home, deploy) == 3
    assert _recall(loreline_home, project, ASKED)[:1] == [deploy]

    edited = cli(loreline_home, "edit", str(deploy), "Deploys wait forty minutes on the canary.")
    assert edited.returncode == 0
    with Store(loreline_home / "loreline.db") as store:
        newest = int(store.scalar("SELECT max(id) FROM memories"))
    assert newest != deploy and _cue_vectors(loreline_home, newest) == 3  # the next version keeps its cues


def test_the_glossarys_cues_get_no_vectors_of_their_own(loreline_home: Path, tmp_path: Path) -> None:
    session = ClaudeSession("/work/cue-vectors-rules")
    session.user("In this repo we use pnpm, never npm.")
    cli(loreline_home, "import", "sessions", "--path", str(session.write(tmp_path / "s.jsonl")))
    with Store(loreline_home / "loreline.db") as store:
        assert store.scalar("SELECT count(*) FROM memories WHERE cues != ''") == 1
        assert store.scalar("SELECT count(*) FROM memory_cue_vec") == 0


def test_the_in_memory_matrix_and_sql_agree_on_a_memorys_best_vector(loreline_home: Path) -> None:
    from loreline.store import search, vectorcache

    project = "/work/cue-vectors-knn"
    deploy = _fill(loreline_home, project)
    with Store(loreline_home / "loreline.db") as store:
        query = default_embedder(store).embed(ASKED)
        in_sql = search.knn(store, query, project, 10)
        held = vectorcache.knn(store, query, project, 10)
        best = search.similarities(store, query, [deploy])[deploy]
        embedder = default_embedder(store)
        by_line = max(_cosine(query, embedder.embed(line)) for line in CUES.splitlines())
    assert [mid for mid, _ in held] == [mid for mid, _ in in_sql] and in_sql[0][0] == deploy
    assert all(abs(a[1] - b[1]) < 1e-5 for a, b in zip(held, in_sql))
    assert abs(best - by_line) < 1e-4 and abs((1.0 - in_sql[0][1]) - best) < 1e-5  # its best cue's similarity


def _cosine(a: bytes, b: bytes) -> float:
    from array import array

    x, y = array("f", a), array("f", b)
    dot = sum(p * q for p, q in zip(x, y))
    return dot / ((sum(p * p for p in x) ** 0.5) * (sum(q * q for q in y) ** 0.5))
