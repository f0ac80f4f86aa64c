"""`loreline transcript` and `loreline import sessions --tool`, run as real subprocesses with
LORELINE_HOME (and HOME) in a temp dir."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from loreline.chunk import account, chunk, render
from loreline.pipeline import clean_turns
from loreline.samples.builder import ClaudeSession
from loreline.assistants.registry import parse
from tests.conftest import loreline_exe, subprocess_env
from tests.transcripts_helpers import (
    REAL_ROOT, cursor_assistant, cursor_user, environment, response, session_meta, text, tool_use, write_jsonl,
)

UUID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
TREE = REAL_ROOT / "claude-code" / "tree" / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = subprocess_env(home, HOME=str(home.parent / "user-home"))
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=env, timeout=60)


def expected_text(path: Path) -> str:
    t = parse(path).transcript
    turns = clean_turns(t.turns)
    return "\n\n".join(text for _, text in account(turns))


@pytest.mark.parametrize("path", [
    TREE,
    REAL_ROOT / "claude-code" / "cc-2.1.332-headless-continue-compact.jsonl",
    REAL_ROOT / "codex" / "codex-0.40.0-input-image.jsonl",
    REAL_ROOT / "codex" / "codex-0.171.0-exec-resume-compact.jsonl",
], ids=lambda p: p.name[:24])
def test_prints_exactly_what_a_model_would_read(loreline_home: Path, path: Path) -> None:
    out = run(loreline_home, "transcript", str(path))
    assert out.returncode == 0, out.stderr
    body, footer = out.stdout.rstrip("\n").rsplit("\n\n", 1)
    assert body == expected_text(path)
    t = parse(path).transcript
    head = f"— {t.tool} session {t.session_id} · {t.lines_total} lines · kept {len(t.turns)} turns"
    assert footer.startswith(head)
    reasons = footer.split("dropped: ", 1)[1]
    order = sorted(t.stats.dropped.items(), key=lambda kv: (-kv[1], kv[0]))
    assert reasons == ", ".join(f"{reason} {n}" for reason, n in order)


def test_labels_and_footer_on_a_real_session(loreline_home: Path) -> None:
    out = run(loreline_home, "transcript", str(TREE))
    lines = [line for line in out.stdout.splitlines() if line.startswith("L")]
    assert lines[0].startswith("L5 [USER] OK, we're going to make a little experiment here.")
    assert lines[2].startswith("L19-35 [ASSISTANT] Clean master on `master` branch.")
    assert out.stdout.splitlines()[-1].endswith("meta 1, slash-command 1")
    assert "hook-context 46" in out.stdout and "clmail" not in out.stdout  # the SessionStart hook's note


def test_json_has_turns_files_and_drop_counts(loreline_home: Path) -> None:
    path = REAL_ROOT / "codex" / "codex-0.40.0-tool-calls.jsonl"
    out = run(loreline_home, "transcript", str(path), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    t = parse(path).transcript
    assert (data["tool"], data["session_id"], data["cwd"], data["lines"]) == ("codex", t.session_id, t.cwd, 209)
    assert [(x["speaker"], x["line_start"], x["line_end"]) for x in data["turns"]] == [
        ("user", 3, 3), ("assistant", 209, 209)]
    assert set(data["turns"][0]) == {"speaker", "origin", "line_start", "line_end", "timestamp", "text", "files"}
    assert data["turns"][0]["timestamp"] == json.loads(path.read_text().splitlines()[2])["timestamp"]
    assert data["turns"][1]["files"][0] == "packages/services/src/createService.ts"
    assert data["dropped"] == t.stats.dropped and data["bad_lines"] == 0
    assert "chunks" not in data


def test_chunks_show_their_boundaries(loreline_home: Path, tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    for n in range(30):
        s.user(f"Question {n}: " + "why does the cache miss " * 60)
        s.assistant(f"Answer {n}: " + "because the key includes a timestamp " * 40)
    path = s.write(tmp_path / f"{s.session_id}.jsonl")
    t = parse(path).transcript
    pieces = chunk(clean_turns(t.turns), session_id=t.session_id, path=str(path))
    assert len(pieces) >= 3
    out = run(loreline_home, "transcript", str(path), "--chunks")
    rules = [line for line in out.stdout.splitlines() if line.startswith("── chunk ")]
    assert rules == [f"── chunk {p.index + 1}/{len(pieces)} · L{p.line_start}-{p.line_end} · "
                     f"{len(p.turns)} turns · {len(p.text):,} chars ──" for p in pieces]
    data = json.loads(run(loreline_home, "transcript", str(path), "--chunks", "--json").stdout)
    assert [c["text"] for c in data["chunks"]] == [p.text for p in pieces]


def test_secrets_and_injected_memories_never_show(loreline_home: Path, tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.hook_context("<loreline-memories>\n- use pnpm\n</loreline-memories>")
    s.user("<loreline-memories>\n- [fact] staging is eu-west-1\n</loreline-memories>")
    s.user("Point staging at postgres://app:HunterTwo2024@db.internal:5432/app for now.")
    path = s.write(tmp_path / f"{s.session_id}.jsonl")
    out = run(loreline_home, "transcript", str(path))
    assert out.returncode == 0, out.stderr
    assert "HunterTwo2024" not in out.stdout and "eu-west-1" not in out.stdout
    assert "L3 [USER] Point staging at postgres://app:" in out.stdout
    assert "loreline-memories 2" in out.stdout


def test_cursor_and_generic_files_print(loreline_home: Path, tmp_path: Path) -> None:
    cursor_file = write_jsonl(tmp_path / "agent-transcripts" / UUID / f"{UUID}.jsonl", [
        cursor_user("Keep the CLI output under 80 columns."),
        cursor_assistant(text("Will do."), tool_use("Read", path="cli.py"))])
    out = run(loreline_home, "transcript", str(cursor_file), "--json")
    data = json.loads(out.stdout)
    assert data["tool"] == "cursor" and data["cwd"] is None
    assert [x["text"] for x in data["turns"]] == ["Keep the CLI output under 80 columns.", "Will do."]
    assert data["turns"][1]["files"] == ["cli.py"]
    generic = write_jsonl(tmp_path / "chat.jsonl", [{"role": "user", "content": "hello"}])
    forced = run(loreline_home, "transcript", str(generic), "--tool", "generic")
    assert forced.stdout.startswith("L1 [USER] hello")


def test_errors_are_one_line_naming_the_file(loreline_home: Path, tmp_path: Path) -> None:
    missing = run(loreline_home, "transcript", str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr == f"loreline: no such transcript: {tmp_path / 'nope.jsonl'}\n"
    odd = write_jsonl(tmp_path / "metrics.jsonl", [{"metric": "cpu"}])
    unknown = run(loreline_home, "transcript", str(odd))
    assert unknown.returncode == 1 and unknown.stderr.startswith(f"loreline: {odd}: not a transcript format")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    fine = run(loreline_home, "transcript", str(empty))
    assert fine.returncode == 0 and "kept 0 turns" in fine.stdout and "dropped: nothing" in fine.stdout


def test_import_sessions_discovers_codex_and_cursor_with_tool(loreline_home: Path, tmp_path: Path) -> None:
    hour_ago = time.time() - 3600
    rollout = write_jsonl(tmp_path / "codex/sessions/2026/11/29" / f"rollout-2026-11-29T10-00-00-{UUID}.jsonl", [
        session_meta(UUID, "/work/acme"), environment("/work/acme"),
        response("user", "In this repo we use pnpm, never npm."), response("assistant", "OK.")])
    transcript = write_jsonl(tmp_path / "cursor/projects/work-acme/agent-transcripts" / UUID / f"{UUID}.jsonl", [
        cursor_user("We decided to use ruff because it is fast."), cursor_assistant(text("Done."))])
    for path in (rollout, transcript):
        os.utime(path, (hour_ago, hour_ago))
    dirs = ["--claude-dir", str(tmp_path / "claude"), "--codex-home", str(tmp_path / "codex"),
            "--cursor-dir", str(tmp_path / "cursor"), "--gemini-dir", str(tmp_path / "gemini")]
    out = run(loreline_home, "import", "sessions", "--tool", "all", "--backend", "rules", "--json", *dirs)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["sessions"]["imported"] == 2 and report["sessions"]["failed"] == []
    assert report["turns"] == 4
    assert {r["reason"] for r in report["sessions"]["left_out"]} == {"no Claude Code projects folder here",
                                                                    "no Gemini CLI sessions folder here"}
    only = run(loreline_home, "import", "sessions", "--tool", "codex", "--backend", "rules", "--json", *dirs)
    assert json.loads(only.stdout)["sessions"]["unchanged"] == 1
    bad = run(loreline_home, "import", "sessions", "--tool", "aider")
    assert bad.returncode == 2 and "invalid choice: 'aider'" in bad.stderr
