"""The hook entry on Gemini CLI's real payloads (`fixtures/hooks/gemini-hook-payloads.jsonl`,
recorded from Gemini CLI 0.61.0: SessionStart, BeforeAgent, SessionEnd of a session and its
resume): SessionEnd is spooled as a Gemini event naming its session file, BeforeAgent answers
with the memories the person's words choose (not the context earlier hooks added to the
request), and the whole run is quiet and exits 0."""

from __future__ import annotations

import json
from pathlib import Path

from tests.capture_helpers import payloads, remembered_project, run_hook, spool_records, worker_lock_held

EVENTS = ("SessionStart", "BeforeAgent", "SessionEnd")


def test_every_real_payload_exits_zero_and_session_end_is_spooled_as_gemini(loreline_home: Path) -> None:
    sent = payloads("gemini-hook-payloads.jsonl")
    assert [p["hook_event_name"] for p in sent] == [*EVENTS, *EVENTS]
    with worker_lock_held(loreline_home):
        for payload in sent:
            result = run_hook(loreline_home, payload["hook_event_name"], stdin=payload)
            assert result.returncode == 0 and result.stderr == b""
            if payload["hook_event_name"] != "SessionStart":
                assert result.stdout == b""  # an empty store has nothing to add to a prompt
    records = spool_records(loreline_home)
    ends = [p for p in sent if p["hook_event_name"] == "SessionEnd"]
    assert [r["event"] for r in records] == ["SessionEnd", "SessionEnd"]
    for record, payload in zip(records, ends):
        assert record["tool"] == "gemini"
        assert (record["session_id"], record["transcript_path"], record["cwd"]) == \
            (payload["session_id"], payload["transcript_path"], payload["cwd"])
        assert record["extra"] == {"reason": "exit"}


def test_before_agent_answers_the_person_s_words_not_the_injected_block(loreline_home: Path, tmp_path: Path) -> None:
    folder, claude_event = remembered_project(tmp_path)
    [real] = [p for p in payloads("gemini-hook-payloads.jsonl") if p["hook_event_name"] == "BeforeAgent"][:1]
    block = ("<hook_context>&lt;loreline-memories&gt;\nNotes Loreline recorded from your earlier sessions in this "
             "project.\n- preference: In this repo we use pnpm, never npm.\n&lt;/loreline-memories&gt;</hook_context>")
    prompt = "Why did we keep SQLite for the app?"
    payload = {**real, "cwd": str(folder), "prompt": f"{block}\n\n{prompt}"}
    result = run_hook(loreline_home, "BeforeAgent", stdin=payload)
    assert result.returncode == 0 and result.stderr == b""
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "We decided to keep SQLite because the app runs on laptops." in context
    assert "pnpm" not in context  # the block's words chose nothing
    alone = run_hook(loreline_home, "BeforeAgent", stdin={**payload, "session_id": "other-session", "prompt": block})
    assert alone.returncode == 0 and alone.stdout == b""  # only injected context: no words of the person
