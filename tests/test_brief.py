"""The project brief: what a model writes reaches the assistant only when its memories say it; the
offline brief, its budget, its versions and a person's edits and pins; the SessionStart hook that
gives it (a real hook process over the real SQLite store), and the prompt hook that adds what it
leaves out.

The model is Loreline's real `ModelClient` (the official SDK) against a local Messages API
server (`tests/fake_anthropic.py`) that answers `write_brief` from the notes each request shows.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from loreline.api import Loreline, project_of
from loreline.brief import block, claims, priority, rewrite, rules, writer
from loreline.brief.topics import topic
from loreline.store import Store
from loreline.store import briefs as table
from loreline.store import memories as rows
from tests.brief_helpers import add, brief_answer, notes
from loreline.samples.builder import ClaudeSession
from tests.capture_helpers import run_hook, write_config
from tests.conftest import loreline_exe, subprocess_env
from tests.fake_anthropic import FakeAnthropic, fake_anthropic, model_client  # noqa: F401  (fixture)

P = "/work/shop"
TESTS = "Run the unit tests with pytest -q from the repo root."
PNPM = "We use pnpm in this repo, never npm."
DEPLOY = "Deploy with fly deploy --remote-only from main."


def _model(fake: FakeAnthropic) -> tuple[object, str]:
    return model_client(fake, max_retries=0), "claude-fake"


# -- the check: a line says nothing its memories do not ---------------------------------------


def test_the_claims_of_a_line_are_its_identifiers_paths_commands_numbers_and_rare_words() -> None:
    line = "Run `pytest -q` in src/app.py with --headed on port 8080 using pnpm and the config_file, as usual"
    assert claims.claims(line) == ["pytest", "-q", "src/app.py", "--headed", "8080", "pnpm", "config_file"]
    assert claims.claims("Always run the tests before you push a change.") == []
    assert claims.claims("Use camelCase in getUserName, never snake_case.") == ["camelcase", "getusername", "snake_case"]
    assert "python" in claims.claims("Use python for scripts.")  # a common word that names a tool


def test_a_claim_occurs_only_whole_in_the_memories() -> None:
    assert not claims.occurs("npm", "we use pnpm here")
    assert claims.occurs("app.py", "see src/app.py for it")
    assert claims.occurs("--headed", "run it with --headed.")
    assert not claims.occurs("8080", "port 18080")


def test_a_line_passes_only_when_its_memories_say_each_claim(loreline_home: Path) -> None:
    with Store() as store:
        tests = rows.get(store, add(store, P, "procedure", TESTS, files=["pyproject.toml"]))
        pnpm = rows.get(store, add(store, P, "preference", PNPM))
    assert claims.problem("Run the unit tests with pytest -q from the repo root.", [tests]) is None
    assert claims.problem("Unit tests: `pytest -q`; the settings are in pyproject.toml.", [tests]) is None
    assert claims.problem("Use pnpm, never npm; test with pytest -q.", [pnpm, tests]) is None
    assert claims.problem("Run the unit tests with `pytest -x`.", [tests]).startswith(claims.UNSUPPORTED)
    assert claims.problem("Run the unit tests with pytest -q in tests/unit.", [tests]) == \
        f"{claims.UNSUPPORTED}: tests/unit"
    assert claims.problem("Use yarn for packages.", [pnpm]) == f"{claims.UNSUPPORTED}: yarn"
    assert claims.problem("Use pnpm, never npm.", [tests]).startswith(claims.UNSUPPORTED)  # cites the wrong memory
    assert claims.problem("Never run the unit tests from the repo root.", [tests]) == f"{claims.NEGATION}: never"
    assert claims.problem("Use pnpm.", []) == claims.NO_SOURCE


# -- the model brief ---------------------------------------------------------------------------


def test_a_model_line_that_invents_is_dropped_and_never_reaches_the_assistant(
        loreline_home: Path, tmp_path: Path, fake_anthropic: FakeAnthropic) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    project = project_of(str(folder))
    with Store() as store:
        add(store, project, "procedure", TESTS, sessions=("s1", "s2"))
        add(store, project, "preference", PNPM)
        gone = add(store, project, "procedure", DEPLOY)
        add(store, "/elsewhere", "preference", "We use yarn workspaces everywhere.")
    with Loreline() as lore:
        lore.forget(gone)

    def plan(numbers: dict[str, int]) -> list[tuple[str, str, list[str | int]]]:
        return [("build", "Unit tests: pytest -q, from the repo root.", [TESTS]),       # kept
                ("build", "Run the tests before pushing.", []),                          # cites nothing
                ("build", "Run the tests on CI.", [99]),                                  # a note it was not given
                ("build", "Run the unit tests with `pytest -x`.", [TESTS]),               # a command not said
                ("conventions", "Use yarn for packages.", [PNPM]),                        # a tool not said
                ("conventions", "Never run the unit tests from the repo root.", [TESTS]), # a prohibition not said
                ("build", DEPLOY, [TESTS])]                                               # a forgotten memory's words
    fake_anthropic.enqueue(brief_answer(plan))
    with Store() as store:
        done = rewrite.rewrite(store, project, _model(fake_anthropic))
    sent = fake_anthropic.requests[0]
    assert sent.body["tool_choice"] == {"type": "tool", "name": "write_brief"}
    assert sorted(notes(sent)) == sorted([TESTS, PNPM])  # the project's active memories alone
    assert done.written and done.brief.writer == "claude-fake"
    assert done.dropped == {claims.NO_SOURCE: 1, claims.UNKNOWN_SOURCE: 1, claims.UNSUPPORTED: 3, claims.NEGATION: 1}
    texts = [(line.text, line.by) for line in done.brief.lines]
    assert ("Unit tests: pytest -q, from the repo root.", "model") in texts
    assert (PNPM, "rules") in texts  # the memory no kept line cites, in its own words
    out = _session_start(loreline_home, folder)
    assert "Unit tests: pytest -q, from the repo root." in out and PNPM in out
    for invented in ("yarn", "pytest -x", "Never run", "on CI", "before pushing", "fly deploy"):
        assert invented not in out


def test_the_model_sees_the_memories_alone_in_an_order_that_depends_on_them_only(
        loreline_home: Path, fake_anthropic: FakeAnthropic) -> None:
    with Store() as store:
        add(store, P, "fact", "The API listens on port 8080.", said="2025-03-02T10:00:00+00:00")
        add(store, P, "preference", PNPM, pinned=True, said="2025-01-01T10:00:00+00:00")
        add(store, P, "procedure", TESTS, sessions=("s1", "s2"), files=["pyproject.toml"])
        memories = rewrite.sources(store, P)
    first = writer.user_message(writer.notes(memories), 600)
    again = writer.user_message(writer.notes(list(reversed(memories))), 600)
    assert first == again
    assert first.index(PNPM) < first.index(TESTS) < first.index("port 8080")  # pinned, said twice, the rest
    assert 'pinned="yes"' in first and 'sessions="2"' in first and 'files="pyproject.toml"' in first
    assert "2025" not in first and P not in first and "#" not in first  # no time, no path of the machine, no id


def test_a_model_that_fails_leaves_the_rules_brief_and_says_why(loreline_home: Path,
                                                               fake_anthropic: FakeAnthropic) -> None:
    with Store() as store:
        add(store, P, "procedure", TESTS)
        fake_anthropic.enqueue(FakeAnthropic.text("Here is your brief: ..."))
        done = rewrite.rewrite(store, P, _model(fake_anthropic))
        assert done.brief.writer == "rules" and [line.text for line in done.brief.lines] == [TESTS]
        assert done.fallback is not None and "write_brief" in done.fallback
        fake_anthropic.enqueue(FakeAnthropic.overloaded())
        again = rewrite.rewrite(store, P, _model(fake_anthropic))
        assert again.brief.writer == "rules" and again.fallback is not None and "RateLimited" in again.fallback


def test_an_import_with_a_model_writes_the_brief_once_and_not_again_when_nothing_changed(
        loreline_home: Path, fake_anthropic: FakeAnthropic) -> None:
    with Store() as store:
        add(store, P, "procedure", TESTS)
        fake_anthropic.enqueue(brief_answer(lambda n: [("build", "Unit tests: pytest -q.", [TESTS])]))
        first = rewrite.after_import(store, [P], _distiller(fake_anthropic))[P]
        second = rewrite.after_import(store, [P], _distiller(fake_anthropic))[P]
    assert first.written and not second.written and second.brief.version == first.brief.version
    assert len(fake_anthropic.requests) == 1


def test_a_model_rewrites_the_brief_once_a_day_of_sessions_and_the_rules_add_what_is_new(
        loreline_home: Path, fake_anthropic: FakeAnthropic) -> None:
    with Store() as store:
        add(store, P, "procedure", TESTS, said="2025-03-01T10:00:00+00:00")
        fake_anthropic.enqueue(brief_answer(lambda n: [("build", "Unit tests: pytest -q.", [TESTS])]))
        first = rewrite.after_import(store, [P], _distiller(fake_anthropic))[P]
        # the same day: a new memory is added by the rules; the model's line is kept, no call made
        add(store, P, "preference", PNPM, said="2025-03-01T15:00:00+00:00")
        same_day = rewrite.after_import(store, [P], _distiller(fake_anthropic))[P]
        assert len(fake_anthropic.requests) == 1 and same_day.written
        texts = [line.text for line in same_day.brief.lines]
        assert "Unit tests: pytest -q." in texts and PNPM in texts
        assert same_day.brief.writer == first.brief.writer == "claude-fake" and same_day.brief.day == "2025-03-01"
        # a new day of sessions: the model writes it again
        add(store, P, "procedure", DEPLOY, said="2025-03-02T09:00:00+00:00")
        fake_anthropic.enqueue(brief_answer(lambda n: [("build", "Deploy: fly deploy --remote-only from main.", [DEPLOY])]))
        next_day = rewrite.after_import(store, [P], _distiller(fake_anthropic))[P]
        assert len(fake_anthropic.requests) == 2 and next_day.brief.day == "2025-03-02"
        assert "Deploy: fly deploy --remote-only from main." in [line.text for line in next_day.brief.lines]


def test_a_kept_model_line_whose_memory_changed_its_words_is_dropped(loreline_home: Path,
                                                                    fake_anthropic: FakeAnthropic) -> None:
    with Store() as store:
        tests_id = add(store, P, "procedure", TESTS)
        fake_anthropic.enqueue(brief_answer(lambda n: [("build", "Unit tests: pytest -q.", [TESTS])]))
        rewrite.after_import(store, [P], _distiller(fake_anthropic))
        with store.write():
            store.conn.execute("UPDATE memories SET text = ? WHERE id = ?", ("Run the unit tests with tox.", tests_id))
        again = rewrite.after_import(store, [P], _distiller(fake_anthropic))[P]
        assert len(fake_anthropic.requests) == 1  # the same day: no call
        assert "Unit tests: pytest -q." not in [line.text for line in again.brief.lines]  # its claim no longer holds


def _distiller(fake: FakeAnthropic) -> object:
    from loreline.distill.anthropic import AnthropicDistiller

    return AnthropicDistiller(model_client(fake, max_retries=0, model="claude-fake"))


# -- the offline brief --------------------------------------------------------------------------


def test_the_rules_group_memories_by_kind_cues_files_and_keywords(loreline_home: Path) -> None:
    with Store() as store:
        ids = {text: add(store, P, kind, text) for kind, text in (
            ("decision", "We chose SQLite because the app runs on laptops."),
            ("preference", PNPM),
            ("procedure", TESTS),
            ("procedure", "Restarting the worker while it imports corrupts the ledger; stop it first."),
            ("fact", "The staging database is reset every night."),
            ("fact", "Invoices are rendered by templates/invoice.html."),
            ("fact", "The importer silently skips files over 2 GB."),
            ("fact", "Our customers are mostly dentists."),
        )}
        found = {rows.get(store, i).text: topic(rows.get(store, i)) for i in ids.values()}
    assert found == {"We chose SQLite because the app runs on laptops.": "decisions", PNPM: "conventions",
                     TESTS: "build", "Restarting the worker while it imports corrupts the ledger; stop it first.": "traps",
                     "The staging database is reset every night.": "build",
                     "Invoices are rendered by templates/invoice.html.": "places",
                     "The importer silently skips files over 2 GB.": "traps",
                     "Our customers are mostly dentists.": "notes"}


def test_pinned_then_corrected_or_said_again_then_how_to_run_then_newest(loreline_home: Path) -> None:
    with Store() as store:
        newest = add(store, P, "fact", "Our customers are mostly dentists.", said="2025-05-01T00:00:00+00:00")
        older = add(store, P, "fact", "Invoices go out on the first of the month.", said="2025-04-01T00:00:00+00:00")
        build = add(store, P, "procedure", TESTS, said="2025-01-01T00:00:00+00:00")
        again = add(store, P, "preference", PNPM, sessions=("s1", "s2"), said="2024-01-01T00:00:00+00:00")
        pinned = add(store, P, "decision", "We chose SQLite.", pinned=True, said="2023-01-01T00:00:00+00:00")
        event = add(store, P, "episode", "The demo for the customer went well.", said="2025-06-01T00:00:00+00:00")
        asked = add(store, P, "fact", "Invoices are numbered per year.", said="2022-01-01T00:00:00+00:00")
        with store.write():  # "remember this": the person asked for it
            rows.mark_asked(store, asked)
        memories = rewrite.sources(store, P)
    ranked = priority.rank(memories, {m.id: topic(m) for m in memories})
    assert [m.id for m in ranked] == [pinned, again, asked, build, newest, older, event]
    with Loreline() as lore:  # a person's edit is a correction, and newer than the one said again
        edited = lore.edit(newest, "Our customers are mostly dentists and vets.").id
    with Store() as store:
        memories = rewrite.sources(store, P)
    assert [m.id for m in priority.rank(memories, {m.id: topic(m) for m in memories})] == \
        [pinned, edited, again, asked, build, older, event]


def test_the_brief_keeps_to_fifteen_lines_and_its_token_budget(loreline_home: Path) -> None:
    with Store() as store:
        for n in range(40):
            add(store, P, "fact", f"Service number {n} answers on its own port and logs to a file of its own, "
                                  f"rotated daily" + " and archived" * (n % 4), said=f"2025-01-{n % 28 + 1:02d}T00:00:00+00:00")
        full = rewrite.rewrite(store, P).brief
        assert len(full.lines) == block.MAX_LINES
        assert block.tokens(block.render([line.row() for line in full.lines]) or "") <= rewrite.max_tokens() == 900
        write_config(loreline_home, "[brief]\nmax_tokens = 200\n")
        tight = rewrite.rewrite(store, P, force=True).brief
    rendered = block.render([line.row() for line in tight.lines]) or ""
    assert 0 < len(tight.lines) < block.MAX_LINES and block.tokens(rendered) <= 200
    assert [line.number for line in tight.lines] == list(range(1, len(tight.lines) + 1))


def test_a_long_memory_is_cut_to_whole_sentences_or_a_word() -> None:
    long = "First sentence says enough about the deployment steps to stand alone. " * 5
    assert rules.shortened(long).endswith("alone.") and len(rules.shortened(long)) <= rules.MAX_CHARS
    words = "word " * 80
    assert rules.shortened(words).endswith("…") and len(rules.shortened(words)) <= rules.MAX_CHARS


# -- when it is written, versions, a person's edit and pin ---------------------------------------


def test_a_persons_change_rewrites_the_rules_brief_and_marks_a_models_stale(
        loreline_home: Path, fake_anthropic: FakeAnthropic) -> None:
    with Store() as store:
        tests = add(store, P, "procedure", TESTS)
        pnpm = add(store, P, "preference", PNPM)
        rewrite.rewrite(store, P)
    with Loreline() as lore:
        lore.forget(pnpm)
        view = lore.brief(P)
    assert view is not None and view.brief.version == 2 and [line.memories for line in view.brief.lines] == [(tests,)]
    with Store() as store:
        fake_anthropic.enqueue(brief_answer(lambda n: [("build", "Unit tests: pytest -q.", [TESTS])]))
        rewrite.rewrite(store, P, _model(fake_anthropic))  # v3, by the model
    with Loreline() as lore:
        lore.forget(tests)
        view = lore.brief(P)
    assert view is not None and view.brief.version == 3 and view.brief.stale
    assert view.brief.lines == () and view.hidden == 1


def test_edited_and_pinned_lines_survive_rewrites_while_their_memories_stay_active(loreline_home: Path) -> None:
    with Store() as store:
        tests = add(store, P, "procedure", TESTS)
        pnpm = add(store, P, "preference", PNPM)
        rewrite.rewrite(store, P)
    with Loreline() as lore:
        first = lore.brief(P)
        assert first is not None
        number = next(line.number for line in first.brief.lines if line.memories == (pnpm,))
        edited = lore.edit_brief_line(P, number, "pnpm only: never npm")
        pinned = lore.pin_brief_line(P, next(line.number for line in edited.brief.lines if line.memories == (tests,)))
        assert [b.version for b in lore.brief_versions(P)] == [3, 2, 1]
        assert lore.brief_versions(P)[0].changed_by == "user"
        with pytest.raises(Exception, match="no line 9"):
            lore.pin_brief_line(P, 9)
    with Store() as store:
        add(store, P, "fact", "The API listens on port 8080.")
        after = rewrite.rewrite(store, P).brief
    kept = {line.text: (line.by, line.edited, line.pinned) for line in after.lines}
    assert kept["pnpm only: never npm"] == ("user", True, False) and kept[TESTS] == ("rules", False, True)
    assert "The API listens on port 8080." in kept and PNPM not in kept
    with Loreline() as lore:
        lore.forget(pnpm)
        final = lore.brief(P)
    assert final is not None and "pnpm only: never npm" not in {line.text for line in final.brief.lines}
    assert pinned.brief.version < final.brief.version


# -- the SessionStart hook and the prompt hook (real processes, real SQLite) ---------------------


def _session_start(home: Path, folder: Path, session: str = "brief-s1", source: str = "startup") -> str:
    result = run_hook(home, "SessionStart", stdin={"session_id": session, "hook_event_name": "SessionStart",
                                                   "cwd": str(folder), "source": source})
    assert result.returncode == 0 and result.stderr == b""
    if not result.stdout:
        return ""
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"])


def _prompt(home: Path, folder: Path, prompt: str, session: str = "brief-s1") -> str:
    result = run_hook(home, "UserPromptSubmit", stdin={"session_id": session, "hook_event_name": "UserPromptSubmit",
                                                       "cwd": str(folder), "prompt": prompt})
    assert result.returncode == 0 and result.stderr == b""
    return str(json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]) if result.stdout else ""


def test_session_start_gives_the_brief_and_the_prompt_hook_adds_only_what_it_leaves_out(
        loreline_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    project = project_of(str(folder))
    with Store() as store:
        pnpm = add(store, project, "preference", PNPM, sessions=("s1", "s2"))
        for n in range(20):
            add(store, project, "fact", f"Report {n} is generated nightly by the scheduler.",
                said=f"2025-02-{n + 1:02d}T00:00:00+00:00")
        oldest = add(store, project, "fact", "The invoice templates live in the templates folder.",
                     said="2024-01-01T00:00:00+00:00")
        rewrite.rewrite(store, project)
    out = _session_start(loreline_home, folder)
    memory_lines = [line for line in out.splitlines() if line.startswith("- ")]
    assert out.startswith(block.OPEN) and "not instructions" in out and len(memory_lines) == block.MAX_LINES
    assert f"- {PNPM} (#{pnpm})" in out and "invoice" not in out
    shown = json.loads((loreline_home / "state" / "injected" / "brief-s1.json").read_text())["ids"]
    assert pnpm in shown and oldest not in shown
    asked = "Which package manager do we use: pnpm?"
    assert PNPM in _prompt(loreline_home, folder, asked, session="no-brief-shown")
    assert _prompt(loreline_home, folder, asked) == ""  # the brief said it
    added = _prompt(loreline_home, folder, "Where do the invoice templates live?")
    assert f"#{oldest}" in added and "invoice templates" in added


def test_session_start_leaves_out_lines_whose_memories_are_gone_and_falls_back_without_a_brief(
        loreline_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    project = project_of(str(folder))
    with Store() as store:
        tests = add(store, project, "procedure", TESTS)
        pnpm = add(store, project, "preference", PNPM)
    before = _session_start(loreline_home, folder)  # no brief yet: the memories, by kind
    assert f"- preference: {PNPM}" in before and f"- procedure: {TESTS}" in before
    with Store() as store:
        rewrite.rewrite(store, project)
        with store.write():  # as if another writer forgot it and the brief was not written since
            rows.forget(store, pnpm)
    after = _session_start(loreline_home, folder)
    assert f"- {TESTS} (#{tests})" in after and PNPM not in after


def test_a_resumed_session_is_not_given_the_lines_it_was_shown(loreline_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    project = project_of(str(folder))
    with Store() as store:
        add(store, project, "procedure", TESTS)
        rewrite.rewrite(store, project)
    assert TESTS in _session_start(loreline_home, folder, "resumed")
    assert _session_start(loreline_home, folder, "resumed", source="resume") == ""
    with Store() as store:
        add(store, project, "preference", PNPM)
        rewrite.rewrite(store, project)
    again = _session_start(loreline_home, folder, "resumed", source="resume")
    assert PNPM in again and TESTS not in again


def test_the_hook_reads_the_brief_the_engine_shows(loreline_home: Path, tmp_path: Path) -> None:
    """The hook's standard-library query and `Loreline.brief` leave out the same lines."""
    from loreline import home
    from loreline.capture.hookread import session_brief

    with Store() as store:
        keep = add(store, P, "procedure", TESTS)
        stale = add(store, P, "fact", "The API listens on port 8080.")
        pinned_stale = add(store, P, "preference", PNPM, pinned=True)
        held = add(store, P, "fact", "Invoices are rendered by templates/invoice.html.")
        rewrite.rewrite(store, P)
        with store.write():
            store.conn.execute("UPDATE memories SET stale = 'changed' WHERE id IN (?, ?)", (stale, pinned_stale))
            rows.hold(store, held, "test")
    with Loreline() as lore:
        view = lore.brief(P)
    found = session_brief(str(home.db_path()), P)
    assert view is not None and found is not None
    assert [(line.topic, line.text, list(line.memories)) for line in view.brief.lines] == found[0]
    assert {i for _, _, ids in found[0] for i in ids} == {keep, pinned_stale} and view.hidden == 2
    assert table.latest(Store(), P) is not None


# -- the command line (the real `loreline` command) ---------------------------------------------


def _cli(home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=subprocess_env(home),
                          cwd=cwd, timeout=120)


def test_the_command_shows_edits_pins_and_lists_versions_of_the_brief_an_import_wrote(
        loreline_home: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    session = ClaudeSession(str(folder))
    session.user("In this repo we use pnpm, never npm.")
    session.user("To run the unit tests, run pytest -q from the repo root.")
    path = session.write(tmp_path / "sessions" / "one.jsonl")
    assert _cli(loreline_home, "brief", "--project", str(folder)).returncode != 0  # none yet: one clear line
    done = _cli(loreline_home, "import", "sessions", "--path", str(path), "--backend", "rules", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["briefs"][0]["writer"] == "rules"
    shown = json.loads(_cli(loreline_home, "brief", "--json", cwd=folder).stdout)
    assert shown["version"] == 1 and shown["writer"] == "rules" and len(shown["lines"]) == 2
    pnpm = next(line for line in shown["lines"] if "pnpm" in line["text"])
    assert pnpm["sources"][0]["id"] == pnpm["memories"][0] and pnpm["sources"][0]["source"]["line_start"] >= 1
    text = _cli(loreline_home, "brief", cwd=folder).stdout
    assert "Conventions and preferences:" in text and f"#{pnpm['memories'][0]} preference" in text
    edited = _cli(loreline_home, "brief", "edit", str(pnpm["number"]), "pnpm only", "--project", str(folder))
    assert edited.returncode == 0 and "pnpm only [edited]" in edited.stdout
    pinned = _cli(loreline_home, "brief", "--project", str(folder), "pin", str(pnpm["number"]))
    assert "pnpm only [pinned] [edited]" in pinned.stdout
    refreshed = json.loads(_cli(loreline_home, "brief", "--refresh", "--backend", "rules", "--json", cwd=folder).stdout)
    assert refreshed["version"] == 4 and any(line["text"] == "pnpm only" and line["pinned"]
                                             for line in refreshed["lines"])
    versions = json.loads(_cli(loreline_home, "brief", "versions", "--json", cwd=folder).stdout)
    assert [(v["version"], v["changed_by"]) for v in versions] == [(4, None), (3, "user"), (2, "user"), (1, None)]
    missing = _cli(loreline_home, "brief", "pin", "99", cwd=folder)
    assert missing.returncode != 0 and "no line 99" in missing.stderr


def test_a_recorded_brief_answer_replays_on_a_store_that_holds_the_same_memories(tmp_path: Path) -> None:
    """The request is a function of the memories alone: a store that gave them other ids, in
    another order, sends the same request, and the recorded answer's lines cite its own ids."""
    from loreline.distill.recorded import AnswerSet, RecordedCaller, request_key

    said = [("procedure", TESTS), ("preference", PNPM), ("fact", "The API listens on port 8080.")]
    answers = AnswerSet(tmp_path / "answers")
    with Store(tmp_path / "one.db") as store:
        for kind, text in said:
            add(store, P, kind, text)
        first = rewrite.rewrite(store, P, (RecordedCaller(answers, "m"), "m"))
    assert first.brief.writer == "rules" and first.fallback is not None and "no recorded answer" in first.fallback
    [key] = answers.pending()
    sent = answers.request(key)
    assert key == request_key(writer.WRITE_BRIEF, writer.instructions(), sent["user"], "m")
    numbers = {text: int(n) for n, text in re.findall(r'<note n="(\d+)"[^>]*>(.*?)</note>', sent["user"])}
    answers.save_answer(key, {"sections": [{"topic": "build", "lines": [
        {"text": "Unit tests: pytest -q from the repo root; the API is on port 8080.",
         "memories": [numbers[TESTS], numbers["The API listens on port 8080."]]}]}]}, "the test")
    with Store(tmp_path / "two.db") as store:
        add(store, "/elsewhere", "fact", "Another project's memory takes the first id.")
        ids = {text: add(store, P, kind, text) for kind, text in reversed(said)}
        again = rewrite.rewrite(store, P, (RecordedCaller(answers, "m"), "m"))
    assert answers.pending() == [] and again.brief.writer == "m" and again.fallback is None
    model_line = next(line for line in again.brief.lines if line.by == "model")
    assert model_line.memories == (ids[TESTS], ids["The API listens on port 8080."])
    assert [line.memories for line in again.brief.lines if line.by == "rules"] == [(ids[PNPM],)]
