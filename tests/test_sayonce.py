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

from evallib import sayonce, sayonce_cli
from tests.conftest import FIXTURES
from tests.fake_anthropic import FakeAnthropic, fake_anthropic  # noqa: F401  (fixture)

LABELS = FIXTURES / "sayonce" / "labels.json"


def test_the_replay_counts_what_the_real_hooks_showed_before_each_repeat() -> None:
    results = sayonce.run_labelled("rules", ("tune",), labels=LABELS)["tune"]
    shop = results[0]
    assert shop.saved == [True, False, True]
    total = sayonce.totals(results)
    assert (total["saved"], total["repeats"], total["saved_corrections"], total["corrections"]) == (2, 3, 1, 1)
    # what the SessionStart hook printed, read back from its own block
    assert shop.shown["shop/session-2.jsonl"].start == ["We use pnpm in this repo, never npm."]
    assert any("--headed" in line for line in shop.shown["shop/session-3.jsonl"].start)
    # every typed prompt of the later sessions went through the UserPromptSubmit hook
    assert [line for line, _ in shop.shown["shop/session-2.jsonl"].prompts] == [1, 3, 5]
    assert total["start_noise"] == 0 and total["prompts"] == 5
    assert "saved 2/3 repeats, 1/1 corrections" in sayonce.line("tune", total)


def test_a_memory_shown_after_the_repeat_does_not_save_it() -> None:
    seen = sayonce.Shown(start=[], prompts=[(1, []), (5, ["the e2e suite runs with --headed"])])
    assert seen.before(5) == [] and seen.before(6) == ["the e2e suite runs with --headed"]
    assert sayonce.carries("Run the E2E suite with the --HEADED flag", [["--headed"]])
    assert not sayonce.carries("We use pnpm", [["--headed"], ["e2e", "flag"]])


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
    assert shop.saved == [False, True, True]
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
