"""GEMINI.md files as native sources: a project's GEMINI.md and the global one are imported
(pinned, tool `gemini-md`, the file's lines as provenance), and what a Gemini CLI session loads
from them is left out of the SessionStart block, so it is never injected twice."""

from __future__ import annotations

import json
from pathlib import Path

from loreline.samples.builder import ClaudeSession
from tests.capture_helpers import hook_env, run_hook
from tests.test_native import cli, memories


def _setup(home: Path, tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "billing"
    (project / ".git").mkdir(parents=True)
    gemini = tmp_path / "gemini-home" / ".gemini"
    gemini.mkdir(parents=True)
    session = ClaudeSession(str(project))
    session.user("In this repo we use pnpm, never npm.")
    session.assistant("Noted.")
    session.user("We decided to keep SQLite because the app runs on laptops.")
    session.assistant("Noted.")
    cli(home, "import", "sessions", "--path", str(session.write(tmp_path / "s" / f"{session.session_id}.jsonl")))
    return project, gemini


def test_gemini_md_files_become_pinned_sources(loreline_home: Path, tmp_path: Path) -> None:
    project, gemini = _setup(loreline_home, tmp_path)
    (project / "GEMINI.md").write_text("# Billing\n\n- Invoices are numbered per tenant, never globally.\n")
    (gemini / "GEMINI.md").write_text("## Gemini Added Memories\n- I prefer short commit messages.\n")
    result = cli(loreline_home, "import", "native", "--gemini-dir", str(gemini), "--claude-dir",
                 str(tmp_path / "no-claude"), "--codex-home", str(tmp_path / "no-codex"), "--json")
    assert result.returncode == 0, result.stderr
    found = memories(loreline_home, str(project))
    invoices = found["Invoices are numbered per tenant, never globally."]
    assert invoices["pinned"]
    [source] = invoices["provenance"]
    assert (source["tool"], source["session_path"], source["line_start"]) == ("gemini-md", str(project / "GEMINI.md"), 3)
    user = memories(loreline_home, str(gemini))
    assert "I prefer short commit messages." in user  # the global file: its own project, never injected


def test_session_start_leaves_out_what_gemini_md_already_loads(loreline_home: Path, tmp_path: Path) -> None:
    project, gemini = _setup(loreline_home, tmp_path)
    (project / "GEMINI.md").write_text("- In this repo we use pnpm, never npm.\n")
    assert cli(loreline_home, "import", "native", "--gemini-dir", str(gemini), "--claude-dir",
               str(tmp_path / "no-claude"), "--codex-home", str(tmp_path / "no-codex")).returncode == 0
    start = {"session_id": "s", "hook_event_name": "SessionStart", "cwd": str(project), "source": "startup"}
    out = run_hook(loreline_home, "SessionStart", stdin=start, env=hook_env(loreline_home))
    assert out.returncode == 0, out.stderr
    block = str(json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"])
    assert "SQLite" in block and "pnpm" not in block
