"""The benchmark generator, every benchmark at a tiny size, and the eval's scoring.

No timing is asserted here: the benchmarks report budgets, they never fail on them. What is
checked is that the generated trees have Claude Code's shape, that each benchmark returns
well-formed figures, that the committed eval set is what `cases.py` generates, and that
the metrics compute what their definitions say on hand-worked cases.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import orjson
import pytest

from loreline.assistants import registry as assistants
from loreline.transcripts import discover
from tests.conftest import ROOT

SCRIPTS = str(ROOT / "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

from benchlib import __main__ as bench_main  # noqa: E402
from benchlib import docs, gen, registry, suite  # noqa: E402
from evallib import __main__ as eval_main  # noqa: E402
from evallib import dataset, extraction, metrics, retrieval  # noqa: E402
from evallib.backends import rules  # noqa: E402

pytestmark = pytest.mark.slow  # every benchmark and the eval at a small size


@pytest.fixture(scope="module")
def tiny_tree(tmp_path_factory: pytest.TempPathFactory) -> gen.Tree:
    return gen.generate(tmp_path_factory.mktemp("tree"), 0.6, seed=3)


def test_the_generated_tree_has_claude_codes_layout(tiny_tree: gen.Tree) -> None:
    projects = tiny_tree.root / "projects"
    assert tiny_tree.sessions and tiny_tree.subagents
    for path in tiny_tree.sessions:
        assert path.parent.parent == projects and discover.SESSION_NAME.match(path.name)
    for path in tiny_tree.subagents:
        assert path.parent.name == "subagents" and path.name.startswith("agent-")
        assert path.parent.parent.name + ".jsonl" in {p.name for p in tiny_tree.sessions}
        assert path.with_name(path.name.removesuffix(".jsonl") + ".meta.json").is_file()
    found = assistants.discover_claude(tiny_tree.root, days=365, max_sessions=10_000)
    assert sorted(f.path for f in found.sessions) == sorted(tiny_tree.sessions)
    left_out = {p for p, reason in found.left_out if "subagent" in reason}
    assert left_out == {str(p) for p in tiny_tree.subagents}


def test_every_line_parses_and_the_rare_shapes_are_there(tiny_tree: gen.Tree) -> None:
    kinds: set[str] = set()
    blocks: set[str] = set()
    for path in (*tiny_tree.sessions, *tiny_tree.subagents):
        for line in path.read_bytes().splitlines():
            record = orjson.loads(line)
            assert isinstance(record, dict)
            kinds.add(record["type"])
            content = record.get("message", {}).get("content")
            for block in content if isinstance(content, list) else []:
                blocks.add(block["type"])
                blocks.update(b["type"] for b in block.get("content", []) if isinstance(block.get("content"), list))
    assert {"user", "assistant", "progress", "attachment", "file-history-snapshot"} <= kinds
    assert {"thinking", "tool_use", "tool_result", "image", "text"} <= blocks
    raw = b"".join(p.read_bytes() for p in tiny_tree.sessions)
    assert b"postgres://app:" in raw and (b"AKIA" in raw or b"ghp_" in raw)
    assert tiny_tree.counts.durable >= 1 and tiny_tree.counts.secrets >= 2 and tiny_tree.counts.images >= 1
    for path in tiny_tree.sessions:
        parsed = assistants.parse(path, tool="claude-code").transcript
        assert parsed.turns and parsed.stats.bad_lines == 0


def test_the_same_seed_gives_the_same_bytes(tmp_path: Path) -> None:
    one = gen.generate(tmp_path / "a", 0.2, seed=9, now=1_800_000_000)
    two = gen.generate(tmp_path / "b", 0.2, seed=9, now=1_800_000_000)
    assert [p.read_bytes() for p in one.sessions] == [p.read_bytes() for p in two.sessions]
    counted = gen.generate(tmp_path / "c", 0, seed=2, count=7, fixed_kb=10)
    assert len(counted.sessions) == 7


def tiny_context(tmp_path: Path) -> registry.Context:
    return registry.Context(tmp_path / "work", size_mb=0.4, slope_mb=(0.5, 1.5), sessions=12, memories=(150, 450), project_memories=150,
                            queries=6, runs=1, heavy_runs=1, quiet=True)


def test_every_registered_benchmark_returns_well_formed_rows(tmp_path: Path) -> None:
    ctx = tiny_context(tmp_path)
    by_name = {name: fn(ctx) for name, fn in suite.BENCHMARKS.items()}
    for name, rows in by_name.items():
        assert rows, name
        for row in rows:
            assert row.name and row.figure and row.unit and row.runs >= 1
            assert row.value > 0, (name, row)
            assert row.verdict() in ("pass", "FAIL", "—")
    startup = {r.name: r for r in by_name["startup"]}
    assert {"start-up: loreline --help", "start-up: loreline status",
            "start-up: loreline recall (in-process)"} <= set(startup)
    assert all(r.detail["floor_wall_ms"] > 0 and r.detail["wall_ratio"] > 0 for r in startup.values())
    assert startup["start-up: loreline --help"].budget.startswith("≤ 4×")
    (throughput,) = by_name["throughput"]
    assert throughput.detail["floor_mb_per_s"] > 0 and throughput.detail["mb_per_s"] > 0
    assert all(r > 0 for r in throughput.detail["ratio_runs"])
    (reimport,) = by_name["reimport"]
    assert reimport.detail["unchanged_per_run"] == [12] and reimport.detail["sessions"] == 12
    assert [r.detail["memories"] for r in by_name["recall"]] == [150, 450]
    assert all(r.detail["in_project"] == 150 and r.detail["p95_ms"] >= r.detail["p50_ms"] for r in by_name["recall"])
    (rss,) = by_name["peak-rss"]
    assert rss.detail["report"]["imported"] == len(ctx.main_tree().sessions)
    assert rss.value >= rss.detail["baseline_mb"] > 0
    per_project, per_memories = by_name["store-size"]
    assert per_project.detail["bytes_per_project"] < 16 * 1024  # a project is its rows, not an index chunk
    assert per_memories.detail["memories"] == 450 and per_memories.detail["vector_bytes"] >= 450 * 1024


def test_the_bench_command_writes_json_and_only_its_docs_section(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# Benchmarks\n\n<!-- eval:start -->\nEVAL KEPT\n<!-- eval:end -->\n", encoding="utf-8")
    out = tmp_path / "results.json"
    code = bench_main.main(["--only", "reimport", "--sessions", "5", "--runs", "1", "--json", str(out),
                            "--work", str(tmp_path / "w"), "--docs", str(doc)])
    assert code == 0
    data = json.loads(out.read_text())
    assert [r["name"] for r in data["results"]] == ["re-import of unchanged sessions"]
    assert data["machine"]["cores"] >= 1 and data["settings"]["sessions"] == 5
    text = doc.read_text()
    assert "EVAL KEPT" in text and "<!-- bench:start -->" in text and "re-import of unchanged sessions" in text
    assert bench_main.main(["--only", "nope"]) == 2
    assert bench_main.main(["--size-mb", "0"]) == 2
    assert bench_main.main(["--memories", "10,x"]) == 2
    assert bench_main.main(["--slope-mb", "71,44"]) == 2 and bench_main.main(["--slope-mb", "44"]) == 2


def test_docs_sections_replace_only_themselves(tmp_path: Path) -> None:
    doc = tmp_path / "b.md"
    docs.write_section("bench", "one", doc)
    docs.write_section("eval", "two", doc)
    docs.write_section("bench", "three", doc)
    text = doc.read_text()
    assert "one" not in text and "three" in text and "two" in text
    assert text.count("<!-- bench:start -->") == 1 and text.index("three") < text.index("two")


def test_percentiles_and_medians() -> None:
    assert registry.percentile([1, 2, 3, 4, 5], 50) == 3
    assert registry.percentile([0, 10], 95) == pytest.approx(9.5)
    assert registry.median([3, 1, 2]) == 2


# -- eval -------------------------------------------------------------------------------


def test_the_committed_eval_set_is_what_cases_py_generates(tmp_path: Path) -> None:
    dataset.write(tmp_path / "sessions", tmp_path / "labels.json")
    stale = "tests/eval is stale: run `scripts/eval make-sessions` and commit the result"
    assert (tmp_path / "labels.json").read_text() == dataset.LABELS.read_text(), stale
    made = sorted(p.relative_to(tmp_path / "sessions") for p in (tmp_path / "sessions").rglob("*") if p.is_file())
    committed = sorted(p.relative_to(dataset.SESSIONS) for p in dataset.SESSIONS.rglob("*") if p.is_file())
    assert made == committed, stale
    for rel in made:
        assert (tmp_path / "sessions" / rel).read_bytes() == (dataset.SESSIONS / rel).read_bytes(), f"{rel}: {stale}"
    cases = dataset.load()
    assert len(cases) >= 20 and len({c.name for c in cases}) == len(cases)
    assert sum(1 for c in cases if c.empty) >= 3


def _label(name: str, path: str, project: str, expected: list[dataset.ExpectedLabel],
           forbidden: tuple[tuple[str, ...], ...] = (), empty: bool = False) -> dataset.CaseLabel:
    return dataset.CaseLabel(name, "", (dataset.SessionLabel(path, project),), tuple(expected), forbidden, empty)


def test_metrics_on_a_hand_worked_case() -> None:
    a = dataset.ExpectedLabel("c1", "pnpm", ("preference",), ("pnpm",), (5,), "s1.jsonl", "/p")
    b = dataset.ExpectedLabel("c1", "redis", ("decision",), ("redis",), (9,), "s1.jsonl", "/p")
    cases = [
        _label("c1", "s1.jsonl", "/p", [a, b], forbidden=(("akia",),)),
        _label("c2", "s2.jsonl", "/p", [], empty=True),
        _label("c3", "s3.jsonl", "/q", [], empty=True),
    ]
    produced = [
        metrics.Produced(1, "/p", "preference", "We use pnpm.", "active", (("s1.jsonl", 5, 5),)),
        metrics.Produced(2, "/p", "preference", "Always pnpm, never npm.", "active", (("s1.jsonl", 7, 7),)),
        metrics.Produced(3, "/p", "decision", "Redis for sessions", "superseded", (("s1.jsonl", 9, 9),)),
        metrics.Produced(4, "/p", "fact", "Key AKIA123 works", "active", (("s2.jsonl", 2, 2),)),
        metrics.Produced(5, "/x", "fact", "Some note", "active", (("s1.jsonl", 3, 3),)),
    ]
    s = metrics.score(cases, produced)
    assert s.stored == 4 and s.superseded == 1
    assert s.precision == pytest.approx(2 / 4)  # the two pnpm memories; AKIA and the misplaced note are wrong
    assert s.recall == pytest.approx(1 / 2)  # redis is only in a superseded memory
    assert s.duplicates == 1
    assert s.evidence_accuracy == pytest.approx(1 / 2)  # memory 2 cites line 7, not 5
    assert s.forbidden_hits == 1
    assert s.abstention == pytest.approx(1 / 2)  # c2 stored the AKIA memory, c3 stored nothing
    assert s.scope_errors == 1
    c1 = s.cases[0]
    assert c1.missed == ["redis"] and c1.matched == ["pnpm"] and c1.unmatched == ["fact: Some note"]


def test_a_right_memory_of_the_wrong_kind_is_a_kind_mismatch_not_a_match() -> None:
    item = dataset.ExpectedLabel("c", "x", ("fact",), ("node 20",), (3,), "s.jsonl", "/p")
    s = metrics.score([_label("c", "s.jsonl", "/p", [item])],
                      [metrics.Produced(1, "/p", "preference", "Use Node 20", "active", (("s.jsonl", 3, 3),))])
    assert s.found == 0 and s.precision == 0 and s.cases[0].kind_mismatches == ["x: stored as preference"]


def test_the_eval_on_a_few_real_cases(tmp_path: Path) -> None:
    wanted = {"explicit-preference", "nothing-durable", "subagent-decides", "reversal-across-sessions"}
    cases = [c for c in dataset.load() if c.name in wanted]
    raw = json.loads(dataset.LABELS.read_text())
    sessions = tmp_path / "sessions"
    for case in raw["cases"]:
        if case["name"] in wanted:
            for rel in [s["path"] for s in case["sessions"]] + case["sidecars"]:
                (sessions / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(dataset.SESSIONS / rel, sessions / rel)
    backend = rules()
    assert backend.make is not None
    run = extraction.run("rules", backend.make(), cases, sessions, tmp_path / "home")
    assert run.undiscovered == [] and run.unlabelled == []
    s = run.score
    assert s.expected == 2 and s.empty_cases == 2
    assert s.recall == pytest.approx(s.found / 2)
    assert s.precision == pytest.approx(s.correct / s.stored)
    by_name = {c.name: c for c in s.cases}
    assert by_name["explicit-preference"].matched == ["pnpm"]
    assert by_name["subagent-decides"].stored == []  # the sidecar is never imported
    assert s.scope_errors == 0


def test_retrieval_scores_and_reciprocal_rank(tmp_path: Path) -> None:
    assert retrieval.reciprocal_rank(["a", "b", "c"], {"c"}) == pytest.approx(1 / 3)
    assert retrieval.reciprocal_rank(["a"], {"z"}) == 0
    result = retrieval.evaluate(tmp_path / "home")
    assert result.questions >= 40
    for method in result.methods:
        for half in ("tune", "test", "all"):
            score = method.halves[half]
            assert 0 < score.recall_at_5 <= 1 and 0 < score.mrr <= 1
            assert score.leaks == 0  # the other project's memories never answer
            assert score.abstentions > 0 and score.paraphrases > 0


@pytest.mark.parametrize("spec_path", retrieval.SETS, ids=lambda p: p.name)
def test_retrieval_set_paraphrases_share_no_content_word_with_their_answer(spec_path: Path) -> None:
    """The set's labels hold: a question marked `paraphrase` has no content word in common
    with any memory that answers it (so lexical search cannot find it by spelling)."""
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    text = {m["key"]: m["text"] for m in spec["memories"]}
    marked = [q for q in spec["questions"] if q.get("paraphrase")]
    assert len(marked) >= 20 and len(spec["questions"]) >= 40
    for question in marked:
        for key in question["relevant"]:
            assert not content_words(question["q"]) & content_words(text[key]), question["q"]
    assert {q["split"] for q in spec["questions"]} == {"tune", "test"}


STOPWORDS = frozenset(
    "a an the is are was were be been do does did i we you it its this that these those to of in on at for "
    "with by from and or not no any what which who whom how why when where can could may might should would "
    "will shall our my your their there here as if than then so just only about into over under before after "
    "up down out off one some such very too also ok okay still like something else thing things get got use "
    "used using run runs".split())


def content_words(text: str) -> set[str]:
    out = set()
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        if word in STOPWORDS or len(word) < 2:
            continue
        for suffix in ("ing", "ed", "es", "s"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        out.add(word)
    return out


def test_eval_redaction_hands_over_to_the_redaction_script(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delitem(sys.modules, "eval_redaction", raising=False)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if Path(p or ".").resolve() != Path(SCRIPTS).resolve()])
    assert eval_main.main(["redaction"]) == 2
    assert "not there yet" in capsys.readouterr().err
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "eval_redaction.py").write_text("def main(argv):\n    print('got', argv)\n    return 3\n")
    monkeypatch.syspath_prepend(str(fake))
    assert eval_main.main(["redaction", "--strict"]) == 3
    assert "got ['--strict']" in capsys.readouterr().out


def test_the_eval_command_writes_json_and_only_its_docs_section(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text("# B\n\n<!-- bench:start -->\nBENCH KEPT\n<!-- bench:end -->\n", encoding="utf-8")
    out = tmp_path / "eval.json"
    assert eval_main.main(["--backend", "rules", "--json", str(out), "--docs", str(doc)]) == 0
    data = json.loads(out.read_text())
    (rules_run,) = data["extraction"]
    assert rules_run["backend"] == "rules" and rules_run["expected"] >= 19
    assert 0 <= rules_run["precision"] <= 1 and rules_run["scope_errors"] == 0
    assert [r["name"] for r in data["retrieval"]] == ["retrieval.json", "retrieval2.json", "retrieval3.json"]
    assert all(len(r["methods"]) >= 2 for r in data["retrieval"])
    text = doc.read_text()
    assert "BENCH KEPT" in text and "<!-- eval:start -->" in text and "recall@5" in text
    assert "Extraction" in capsys.readouterr().out
    assert eval_main.main(["--backend", "nope"]) == 2


def test_the_retrieval_set_checker_passes_both_sets_and_catches_a_broken_one(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(retrieval.SPEC.parent))
    try:
        import check_retrieval_set as checker
    finally:
        sys.path.remove(str(retrieval.SPEC.parent))
    assert checker.main([str(p) for p in retrieval.SETS]) == 0
    spec = json.loads(retrieval.SETS[1].read_text(encoding="utf-8"))
    paraphrase = next(q for q in spec["questions"] if q.get("paraphrase"))
    answer = next(m for m in spec["memories"] if m["key"] == paraphrase["relevant"][0])
    paraphrase["q"] += " " + max(answer["text"].split(), key=len)  # now shares a content word with its answer
    moved = next(q for q in spec["questions"] if q is not paraphrase)
    moved["split"] = "tune" if moved["split"] == "test" else "test"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(spec), encoding="utf-8")
    capsys.readouterr()
    assert checker.main([str(broken)]) == 1
    out = capsys.readouterr()
    assert f"{paraphrase['q']!r}: paraphrase shares" in out.out + out.err
    assert f"{moved['q']!r}: split should be" in out.out + out.err
