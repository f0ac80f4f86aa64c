"""Native memory files as sources: Claude Code auto memory, CLAUDE.md layers and Codex memories,
imported through the belief pipeline with provenance to file and lines, edits and deletions
followed, and the memories a session already loads marked as covered.

Fixture formats and their sources: tests/fixtures/native/SOURCES.md."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.assistants import registry
from loreline.native import run as native_run
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.fake_anthropic import FakeAnthropic, fake_anthropic  # noqa: F401
from tests.test_beliefs import answers, judge_for
from tests.test_cli import cli

pytestmark = pytest.mark.slow  # native memory imports in many CLI processes

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "native"


def slug(path: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(path))


def layout(tmp_path: Path, *, session: bool = True) -> dict[str, Path]:
    """A project (a git root), a Claude config dir whose auto memory holds the fixtures, a
    session of that project in the same slug folder, and a Codex home."""
    project = tmp_path / "billing"
    (project / ".git").mkdir(parents=True)
    claude = tmp_path / "claude"
    folder = claude / "projects" / slug(project)
    shutil.copytree(FIXTURES / "claude-memory", folder / "memory")
    codex = tmp_path / "codex"
    shutil.copytree(FIXTURES / "codex-memories", codex / "memories")
    out = {"project": project, "claude": claude, "memory": folder / "memory", "codex": codex}
    if session:
        s = ClaudeSession(str(project))
        s.user("In this repo we use pnpm, never npm.")
        out["session"] = s.write(folder / "0b4f9c1e-1111-4222-8333-444455556666.jsonl")
    return out


def native(home: Path, paths: dict[str, Path], *extra: str) -> dict[str, Any]:
    result = cli(home, "import", "native", "--claude-dir", str(paths["claude"]), "--codex-home",
                 str(paths["codex"]), "--json", *extra)
    return dict(json.loads(result.stdout))


def memories(home: Path, project: str, status: str = "active") -> dict[str, dict[str, Any]]:
    listed = json.loads(cli(home, "memories", "--project", project, "--status", status, "--json").stdout)
    return {m["text"]: m for m in listed}


def test_auto_memory_files_become_sources_with_kinds_lines_and_project(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    cli(loreline_home, "import", "sessions", "--path", str(paths["session"]))
    report = native(loreline_home, paths)
    assert report["failed"] == [] and report["joined"] == 1
    found = memories(loreline_home, str(paths["project"]))
    pnpm = found["In this repo we use pnpm, never npm."]
    assert sorted(p["tool"] for p in pnpm["provenance"]) == ["claude-code", "claude-memory"]
    native_source = next(p for p in pnpm["provenance"] if p["tool"] == "claude-memory")
    assert native_source["session_path"] == str(paths["memory"] / "feedback_pnpm.md")
    assert (native_source["line_start"], native_source["line_end"]) == (6, 6)
    assert native_source["session_id"] == "pnpm not npm" and "**Why:**" in native_source["excerpt"]
    kinds = {text: m["kind"] for text, m in found.items()}
    assert kinds["The user is a backend engineer who owns the billing service and prefers terse answers."] \
        == "preference"
    assert kinds["Billing latency dashboards live at https://grafana.example.internal/d/billing-latency."] == "fact"
    assert kinds["Integration tests need the docker compose stack running first."] in ("fact", "procedure")
    assert not any("](" in text for text in found)  # index lines that point at a file are not memories
    assert len(found) == 5
    assert native(loreline_home, paths)["unchanged"] == 6  # five auto memory files and Codex's MEMORY.md


def test_edits_and_deletions_are_followed(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    cli(loreline_home, "import", "sessions", "--path", str(paths["session"]))
    native(loreline_home, paths)
    freeze = paths["memory"] / "project_freeze.md"
    freeze.write_text(freeze.read_text().replace("2026-12-10", "2026-12-11"))
    (paths["memory"] / "reference_dashboards.md").unlink()
    (paths["memory"] / "feedback_pnpm.md").unlink()
    index = paths["memory"] / "MEMORY.md"
    index.write_text("\n\n" + index.read_text())  # lines move: the sources follow, nothing is re-learnt
    report = native(loreline_home, paths)
    assert report["deleted"] == 2 and report["ended"] == 2 and report["dropped_sources"] == 1
    assert report["added"] == 1 and report["known"] == 1
    active = memories(loreline_home, str(paths["project"]))
    assert "Merge freeze starts 2026-12-11 for the 2026-12-15 release cut; only fixes land after it." in active
    assert not any("2026-12-10" in text for text in active)
    assert not any("grafana" in text for text in active)
    pnpm = active["In this repo we use pnpm, never npm."]  # still said in a session: stays, one source fewer
    assert [p["tool"] for p in pnpm["provenance"]] == ["claude-code"]
    ended = memories(loreline_home, str(paths["project"]), "superseded")
    assert {m["valid_until"] is not None for m in ended.values()} == {True}
    loose = active["Integration tests need the docker compose stack running first."]
    assert [(p["line_start"], p["line_end"]) for p in loose["provenance"]] == [(7, 7)]
    with Store(loreline_home / "loreline.db") as store:
        audit = [r[0] for r in store.rows("SELECT action FROM audit ORDER BY id")]
    assert audit.count("native-source-gone") == 2 and audit.count("drop-source") == 1


def test_claude_md_layers_are_pinned_and_imports_followed(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path, session=False)
    project = paths["project"]
    (project / "CLAUDE.md").write_text("# Billing\n\n- Always run ruff before committing.\n\n@docs/conventions.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "conventions.md").write_text("- Money amounts are integers in cents, never floats.\n")
    rules = project / ".claude" / "rules"
    rules.mkdir(parents=True)
    (rules / "api.md").write_text("---\npaths: src/api/**\n---\n- API handlers return problem+json errors.\n")
    (project / "CLAUDE.local.md").write_text("- My sandbox database is billing_dev_ana on localhost.\n")
    before = {p: p.read_bytes() for p in project.rglob("*.md")}
    native(loreline_home, paths, "--project", str(project))
    found = memories(loreline_home, str(project))
    pinned = {text for text, m in found.items() if m["pinned"]}
    assert {"Always run ruff before committing.", "Money amounts are integers in cents, never floats.",
            "API handlers return problem+json errors.",
            "My sandbox database is billing_dev_ana on localhost."} <= pinned
    ruff = found["Always run ruff before committing."]["provenance"][0]
    assert (ruff["tool"], ruff["session_path"], ruff["line_start"]) == ("claude-md", str(project / "CLAUDE.md"), 3)
    assert {p: p.read_bytes() for p in project.rglob("*.md")} == before  # read-only


def test_the_users_own_claude_md_is_searchable_but_never_injected(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    (paths["claude"] / "CLAUDE.md").write_text("- Answer in British English in every project.\n")
    cli(loreline_home, "import", "sessions", "--path", str(paths["session"]))
    native(loreline_home, paths)
    own = memories(loreline_home, str(paths["claude"]))
    assert list(own) == ["Answer in British English in every project."] and own[
        "Answer in British English in every project."]["pinned"]
    assert "British" not in _session_start(loreline_home, paths["project"])


def test_codex_memories_by_cwd_project(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path, session=False)
    native(loreline_home, paths)
    found = memories(loreline_home, "/work/billing")
    kinds = {text: m["kind"] for text, m in found.items()}
    assert kinds == {
        'when exporting CSV, the user asked: "keep the BOM, Excel needs it" -> always write CSV exports as '
        "UTF-8 with BOM": "preference",
        "Invoice CSV exports are produced by billing/export/csv.py and tested in tests/test_csv_export.py": "fact",
        "symptom: Excel shows mojibake in exported CSV -> cause: no BOM -> fix: encode with utf-8-sig and re-run "
        "the export test": "procedure",
    }
    source = next(iter(found.values()))["provenance"][0]
    assert source["tool"] == "codex-memory" and source["session_id"] == "billing service / invoice exports"


def test_covered_memories_are_those_a_session_loads(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    project = paths["project"]
    (project / "CLAUDE.md").write_text("- In this repo we use pnpm, never npm.\n")
    cli(loreline_home, "import", "sessions", "--path", str(paths["session"]))
    native(loreline_home, paths)
    with Store(loreline_home / "loreline.db") as store:
        covered = {str(r[0]): r[1] for r in store.rows(
            "SELECT m.text, c.path FROM native_covered c JOIN memories m ON m.id = c.memory_id "
            "WHERE c.project = ?", (str(project),))}
    assert covered == {
        "In this repo we use pnpm, never npm.": str(project / "CLAUDE.md"),
        "Integration tests need the docker compose stack running first.": str(paths["memory"] / "MEMORY.md"),
    }  # topic files are read on demand, not at start: their memories are not covered


def test_a_native_memory_contradicting_a_learnt_one_is_a_conflict(
        tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:  # noqa: F811
    paths = layout(tmp_path, session=False)
    project = paths["project"]
    s = ClaudeSession(str(project))
    s.user("In this repo we use npm for installs, not pnpm.")
    fake_anthropic.default = answers("contradictory", "unsure")
    with Store() as store:
        pipeline.import_sessions(store, [(s.write(tmp_path / "s.jsonl"), None)],
                                 pipeline.Options(distiller=RulesDistiller()))
        homes = {"claude-code": paths["claude"], "codex": paths["codex"]}
        report = native_run.run(store, native_run.Roots(registry.ALL, homes, str(project)),
                                judge=judge_for(fake_anthropic))
        pending = store.rows("SELECT a, b, status FROM conflicts")
    assert report.conflicts == 1 and len(pending) == 1 and pending[0][2] == "pending"


def _session_start(home: Path, project: Path, **env: str) -> str:
    from tests.capture_helpers import hook_env, run_hook

    start = {"session_id": "s", "hook_event_name": "SessionStart", "cwd": str(project), "source": "startup"}
    out = run_hook(home, "SessionStart", stdin=start, env=hook_env(home, **env))
    assert out.returncode == 0, out.stderr
    return str(json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"])


def test_session_start_leaves_out_what_the_session_already_loads(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    project = paths["project"]
    claude_md = project / "CLAUDE.md"
    claude_md.write_text("# Billing\n\n- In this repo we use pnpm, never npm.\n")
    cli(loreline_home, "import", "sessions", "--path", str(paths["session"]))
    native(loreline_home, paths)
    block = _session_start(loreline_home, project)
    assert "pnpm" not in block and "docker compose" not in block
    assert "Merge freeze starts 2026-12-10" in block  # a topic file: not loaded at start
    assert block.splitlines()[-2] == ("(2 left out: this session already loads them from CLAUDE.md or "
                                      "MEMORY.md)")
    without_auto = _session_start(loreline_home, project, CLAUDE_CODE_DISABLE_AUTO_MEMORY="1")
    assert "docker compose" in without_auto and "pnpm" not in without_auto
    assert "(1 left out:" in without_auto.splitlines()[-2]
    claude_md.write_text("# Billing\n\n- Tabs in Makefiles.\n")  # edited since the import: no longer proof
    assert "pnpm" in _session_start(loreline_home, project)


def test_status_reports_memory_md_against_its_cap_and_native_duplicates(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    index = paths["memory"] / "MEMORY.md"
    filler = "".join(f"- note {n}: the staging host {n} is rebuilt nightly by the infra cron\n" for n in range(240))
    index.write_text(index.read_text() + "- In this repo we use pnpm, never npm.\n" + filler)
    native(loreline_home, paths)
    info = json.loads(cli(loreline_home, "status", "--json").stdout)
    entry = next(e for e in info["native"] if e["project"] == str(paths["project"]))
    md = entry["memory_md"]
    assert (md["lines"], md["cap_lines"], md["cap_bytes"]) == (246, 200, 25 * 1024)
    assert md["over_cap"] and md["lines_left_out"] == 46
    [dup] = entry["duplicates"]
    assert dup["text"] == "In this repo we use pnpm, never npm."
    assert sorted(Path(s["path"]).name for s in dup["sources"]) == ["MEMORY.md", "feedback_pnpm.md"]
    text = cli(loreline_home, "status").stdout
    assert "MEMORY.md 246/200 lines" in text and "46 lines never loaded" in text
    assert "duplicate #" in text and "feedback_pnpm.md:6" in text


def test_status_names_native_memories_that_contradict_loreline(
        loreline_home: Path, tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:  # noqa: F811
    paths = layout(tmp_path, session=False)
    s = ClaudeSession(str(paths["project"]))
    s.user("In this repo we use npm for installs, not pnpm.")
    fake_anthropic.default = answers("contradictory", "unsure")
    with Store() as store:
        pipeline.import_sessions(store, [(s.write(tmp_path / "s.jsonl"), None)],
                                 pipeline.Options(distiller=RulesDistiller()))
        homes = {"claude-code": paths["claude"], "codex": paths["codex"]}
        native_run.run(store, native_run.Roots(registry.ALL, homes, str(paths["project"])),
                       judge=judge_for(fake_anthropic))
    info = json.loads(cli(loreline_home, "status", "--json").stdout)
    [con] = next(e for e in info["native"] if e["project"] == str(paths["project"]))["contradictions"]
    assert con["native"]["text"] == "In this repo we use pnpm, never npm."
    assert con["loreline"]["text"] == "In this repo we use npm for installs, not pnpm."
    assert con["status"] == "pending"
    assert "contradicts (pending)" in cli(loreline_home, "status").stdout


def test_the_capture_worker_follows_the_sessions_native_files(
        loreline_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from loreline import capture
    from loreline.capture.worker import Worker
    from tests.capture_helpers import event, remembered_session, run_hook, worker_lock_held

    paths = layout(tmp_path, session=False)
    project = paths["project"]
    (project / "CLAUDE.md").write_text("- Always run the linter before committing.\n")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(paths["claude"]))
    session, path = remembered_session(project, paths["claude"] / "projects" / slug(project))
    with worker_lock_held(loreline_home):
        assert run_hook(loreline_home, "Stop", stdin=event("Stop", session, path)).returncode == 0
    report = Worker(capture.Settings(), distiller=RulesDistiller(), lag_base=0.05, horizon=0.0).drain()
    assert report is not None and report.done == 1
    found = memories(loreline_home, str(project))
    linter = found["Always run the linter before committing."]
    assert linter["pinned"] and sorted(p["tool"] for p in linter["provenance"]) == ["claude-code", "claude-md"]
    assert "Merge freeze starts 2026-12-10 for the 2026-12-15 release cut; only fixes land after it." in found
    with Store() as store:
        assert store.scalar("SELECT count(*) FROM native_covered WHERE project = ?", (str(project),)) == 2


def test_secrets_are_redacted_and_an_unknown_project_is_one_failure(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path, session=False)
    secret = "ghp_R8xk2Lq9Vt4Wm7Pz3Ns6Yb1Hc5Jd0Fg2Ea8Q"
    (paths["memory"] / "reference_token.md").write_text(
        "---\nname: deploy token\ndescription: the deploy token\ntype: reference\n---\n"
        f"The deploy token is {secret} for the billing repo.\n")
    orphan = paths["claude"] / "projects" / "-nowhere-at-all-gone" / "memory"
    orphan.mkdir(parents=True)
    (orphan / "MEMORY.md").write_text("- The orphan project deploys with make ship.\n")
    report = native(loreline_home, paths)
    assert [(f["path"], "cannot tell which project" in f["error"]) for f in report["failed"]] == [(str(orphan), True)]
    found = memories(loreline_home, str(paths["project"]), "any")
    token = next(text for text in found if text.startswith("The deploy token is"))
    assert secret not in token and "[REDACTED" in token
    assert secret not in found[token]["provenance"][0]["excerpt"]
    assert found[token]["status"] == "held"  # it names a credential: a person reviews it first
    assert len(found) == 6  # the five fixture memories and the token: the other files were read


def test_a_discovery_import_of_sessions_reads_the_native_files_too(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path)
    done = cli(loreline_home, "import", "sessions", "--claude-dir", str(paths["claude"]), "--codex-home",
               str(paths["codex"]))
    assert "native memory: 6 files read" in done.stdout
    assert "Merge freeze starts 2026-12-10 for the 2026-12-15 release cut; only fixes land after it." in memories(
        loreline_home, str(paths["project"]))
    given = cli(loreline_home, "import", "sessions", "--path", str(paths["session"]), "--json")
    assert "native" not in json.loads(given.stdout)  # explicit files: only those


def test_a_statement_said_twice_in_a_file_survives_losing_one_copy(loreline_home: Path, tmp_path: Path) -> None:
    paths = layout(tmp_path, session=False)
    claude_md = paths["project"] / "CLAUDE.md"
    claude_md.write_text("- Always run ruff before committing.\n- Use tabs in Makefiles.\n"
                         "- Always run ruff before committing.\n")
    native(loreline_home, paths, "--project", str(paths["project"]))
    ruff = memories(loreline_home, str(paths["project"]))["Always run ruff before committing."]
    assert sorted(p["line_start"] for p in ruff["provenance"]) == [1, 3]
    claude_md.write_text("- Use tabs in Makefiles.\n- Always run ruff before committing.\n")
    report = native(loreline_home, paths, "--project", str(paths["project"]))
    assert (report["ended"], report["dropped_sources"], report["added"]) == (0, 1, 0)
    ruff = memories(loreline_home, str(paths["project"]))["Always run ruff before committing."]
    assert [(p["line_start"], p["line_end"]) for p in ruff["provenance"]] == [(2, 2)]
