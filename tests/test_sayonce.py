"""The say-once replay on a small recorded history: real import pipeline, real hook processes.

`tests/fixtures/sayonce/shop` holds three sessions of one project. The pnpm rule is said in
session 1 in a shape the offline distiller keeps, so the real SessionStart hook shows it before
session 2 repeats it (a correction). The e2e flag is said in a shape it does not keep, so session 2
has to say it again; said twice, it is learned and shown before session 3.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from evallib import sayonce, sayonce_cli, sayonce_judge, sayonce_report
from tests.conftest import FIXTURES
from tests.fake_anthropic import FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

LABELS = FIXTURES / "sayonce" / "labels.json"


def test_the_replay_counts_what_the_real_hooks_showed_before_each_repeat() -> None:
    results = sayonce.run_labelled("rules", ("tune",), labels=LABELS)["tune"]
    shop = results[0]
    assert shop.saved["keyword"] == [True, False, True]
    assert shop.saved["claim"] == [True, False, True]
    # the store held the e2e flag only once it was said twice (session 2), as it showed it
    assert shop.carried["claim"] == [True, False, True]
    total = sayonce_report.totals(results)
    assert (total["saved"], total["repeats"], total["saved_corrections"], total["corrections"]) == (2, 3, 1, 1)
    # what the SessionStart hook printed, read back from its own block
    assert shop.shown["shop/session-2.jsonl"].start == ["We use pnpm in this repo, never npm."]
    assert any("--headed" in line for line in shop.shown["shop/session-3.jsonl"].start)
    # every typed prompt of the later sessions went through the UserPromptSubmit hook
    assert [line for line, _ in shop.shown["shop/session-2.jsonl"].prompts] == [1, 3, 5]
    assert total["start_noise"] == 0 and total["prompts"] == 5
    assert "saved 2/3 repeats, 1/1 corrections" in sayonce_report.line("tune", total)
    assert "2/3 at the claim" in sayonce_report.line("tune", total)
    assert total["start_shown"] == 3 and total["start_chars"] > 0 and total["model_calls"] == 0


def test_a_memory_shown_after_the_repeat_does_not_save_it() -> None:
    seen = sayonce.Shown(start=[], prompts=[(1, []), (5, ["the e2e suite runs with --headed"])])
    assert seen.before(5) == [] and seen.before(6) == ["the e2e suite runs with --headed"]
    assert sayonce_judge.carries("Run the E2E suite with the --HEADED flag", [["--headed"]])
    assert not sayonce_judge.carries("We use pnpm", [["--headed"], ["e2e", "flag"]])


def test_at_the_claim_a_memory_that_only_shares_the_topic_does_not_carry_it() -> None:
    facts = [["odoo-web"], ["upgrade"], ["yourself", "itself", "the assistant runs"]]
    # key words would take any memory about the container; the claim needs every fact in one memory
    assert sayonce_judge.carries("The Odoo container is odoo-web.", [["odoo-web"]])
    assert not sayonce_judge.carries_claim("The Odoo container is odoo-web.", facts)
    assert not sayonce_judge.carries_claim("Modules are upgraded with -u in the container.", facts)
    # two memories that together hold the facts do not count: one memory must carry the claim
    shown = ["The Odoo container is odoo-web.", "The assistant runs module upgrades itself."]
    assert not any(sayonce_judge.carries_claim(m, facts) for m in shown)
    assert sayonce_judge.carries_claim("Upgrade modules in the `odoo-web` container yourself: "
                                       "docker exec odoo-web odoo -u MODULE.", facts)
    assert not sayonce_judge.carries_claim("anything", [])  # a label without facts carries nothing


def test_a_persons_own_history_is_replayed_without_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "my-project"
    shutil.copytree(FIXTURES / "sayonce" / "shop", history)
    assert sayonce_cli.main(["--history", str(history), "--no-docs", "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    assert "3 sessions of" in out
    assert "session-2.jsonl: 1 at session start, 0 for 3 prompts" in out
    assert "session-3.jsonl: 2 at session start" in out
    assert "Without labels" in out


def test_a_history_too_small_to_replay_says_so_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "one").mkdir()
    shutil.copy(FIXTURES / "sayonce" / "shop" / "session-1.jsonl", tmp_path / "one")
    assert sayonce_cli.main(["--history", str(tmp_path / "one"), "--no-docs"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "needs two or more" in err[0]


def test_a_model_backend_goes_through_the_same_replay(fake_anthropic: FakeAnthropic,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The plumbing only: a scripted model that learns the e2e flag from session 1 and nothing
    else, so the first e2e repeat (which the offline distiller misses) is saved and pnpm is not."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-" + "T" * 20 + "fake")
    headed = {"kind": "preference", "text": "The e2e suite runs with the --headed flag.",
              "evidence": [{"line": 3, "quote": "Run the e2e suite with the --headed flag."}]}
    fake_anthropic.enqueue(FakeAnthropic.tool("record_memories", {"memories": [headed]}))
    fake_anthropic.default = FakeAnthropic.tool("record_memories", {"memories": []})
    shop = sayonce.run_labelled("anthropic", ("tune",), labels=LABELS)["tune"][0]
    assert shop.saved["keyword"] == [False, True, True]
    assert shop.shown["shop/session-2.jsonl"].start == ["The e2e suite runs with the --headed flag."]
    assert any("record_memories" in str(r.body.get("tools")) for r in fake_anthropic.requests)


def test_a_persons_own_history_is_scored_with_their_labels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    history = tmp_path / "my-project"
    shutil.copytree(FIXTURES / "sayonce" / "shop", history)
    repeats = json.loads(LABELS.read_text())["projects"]["shop"]["repeats"]
    for repeat in repeats:  # paths relative to the person's folder
        repeat["earlier"], repeat["later"] = (repeat[k].removeprefix("shop/") for k in ("earlier", "later"))
    labels = tmp_path / "mine.json"
    labels.write_text(json.dumps({"repeats": repeats}))
    assert sayonce_cli.main(["--history", str(history), "--labels", str(labels), "--no-docs"]) == 0
    out = capsys.readouterr().out
    assert "labelled: saved 2/3 repeats, 1/1 corrections" in out
    assert "MISSED my-project: session-2.jsonl:5" in out


def _answer_everything(folder: Path, answer_for: dict[str, dict[str, object]]) -> int:
    """Write an answer for every pending request of the set, by tool name (a test's model)."""
    from loreline.distill.recorded import AnswerSet

    answers = AnswerSet(folder)
    pending = answers.pending()
    for key in pending:
        tool = answers.request(key)["tool"]["name"]
        answers.save_answer(key, answer_for[tool], "the test")
    return len(pending)


def test_recorded_answers_replay_the_model_and_name_what_they_lack(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from loreline.distill import recorded

    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "set.json").write_text(json.dumps({"model": "claude-haiku-4-5", "written_by": "the test"}))
    recorded.MISSING.clear()
    # first run: no answer yet; every request is written and listed, and the figure is withheld
    code = sayonce_cli.main(["--backend", f"recorded:{folder}", "--half", "tune", "--no-docs", "--labels", str(LABELS),
                             "--json", str(tmp_path / "o.json")])
    err = capsys.readouterr().err
    assert code == 3 and "had no recorded answer" in err and "record_memories" in err
    headed = {"kind": "preference", "text": "The shop's e2e suite runs with the --headed flag.",
              "evidence": [{"line": 3, "quote": "Run the e2e suite with the --headed flag."}]}
    # the project brief each import writes: no line of the model's, so the rules brief is shown
    others = {"classify_relations": {"relations": []},
              "judge_conflict": {"verdict": "unsure", "reason": "not settled"}, "write_brief": {"sections": []}}
    from loreline.distill.recorded import AnswerSet

    distills = [k for k in AnswerSet(folder).pending() if AnswerSet(folder).request(k)["tool"]["name"] == "record_memories"]
    assert len(distills) == 3  # one chunk per session
    _answer_everything(folder, {"record_memories": {"memories": []}, **others})
    # answer session 1's request with the flag: the replay now saves the first e2e repeat
    answers = AnswerSet(folder)
    first = next(k for k in answers.keys() if "L3 [USER] Run the e2e suite with the --headed flag." in
                 answers.request(k)["user"] and "pnpm in this repo" in answers.request(k)["user"])
    answers.save_answer(first, {"memories": [headed]}, "the test")
    recorded.MISSING.clear()
    sayonce.run_labelled(f"recorded:{folder}", ("tune",), labels=LABELS)  # its store differs now: new requests
    _answer_everything(folder, others)
    recorded.MISSING.clear()
    shop = sayonce.run_labelled(f"recorded:{folder}", ("tune",), labels=LABELS)["tune"][0]
    assert not recorded.MISSING  # every request answered: the figure is complete
    assert shop.saved["claim"] == [False, True, True]
    total = sayonce_report.totals([shop])
    assert total["model_calls"] >= 3 and total["input_tokens"] > 1000  # estimated from what was sent


def test_a_changed_prompt_makes_the_run_name_the_answers_it_lacks(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from loreline.distill import anthropic, recorded

    folder = tmp_path / "answers"
    folder.mkdir()
    (folder / "set.json").write_text(json.dumps({"model": "m", "written_by": "the test"}))
    recorded.MISSING.clear()
    sayonce.run_labelled(f"recorded:{folder}", ("tune",), labels=LABELS)
    _answer_everything(folder, {"record_memories": {"memories": []},
                                "classify_relations": {"relations": []},
                                "write_brief": {"sections": []}})
    recorded.MISSING.clear()
    sayonce.run_labelled(f"recorded:{folder}", ("tune",), labels=LABELS)
    assert not recorded.MISSING
    monkeypatch.setattr(anthropic, "instructions", lambda: "A different distill prompt.")
    sayonce.run_labelled(f"recorded:{folder}", ("tune",), labels=LABELS)
    assert [tool for _, _, tool in recorded.MISSING].count("record_memories") == 3


def test_the_model_judge_reads_its_verdicts_from_recorded_answers(tmp_path: Path) -> None:
    from loreline.distill.recorded import AnswerSet, RecordedCaller

    folder = tmp_path / "verdicts"
    folder.mkdir()
    judge = sayonce_judge.ClaimJudge(RecordedCaller(AnswerSet(folder), "judge-model"))
    claim = "The shop's e2e suite runs with the --headed flag."
    notes = ["We use pnpm.", "E2E runs headed (--headed)."]
    assert judge.carried_by(claim, notes) is None and judge.unanswered == 1  # no verdict: never a guess
    key = AnswerSet(folder).pending()[0]
    request = AnswerSet(folder).request(key)
    assert claim in request["user"] and "2. E2E runs headed" in request["user"]
    assert "--headed" not in json.dumps(request["tool"])  # the judge sees the claim, never the label's phrases
    AnswerSet(folder).save_answer(key, {"carried_by": [2, 7], "reason": "note 2 states it"}, "the test")
    assert judge.carried_by(claim, notes) == [1]  # out-of-range numbers are dropped
    assert judge.carried_by(claim, []) == []  # nothing shown: nothing to ask
