"""The account of actions a distiller reads (`chunk.account`): labels, folding, the bound; the
evidence check on action lines and on lines several turns share; the files a memory is tied
to; and the pieces an action line is made of (`actions`, `outcomes`)."""

from __future__ import annotations

import pytest

from loreline import evidence, pipeline
from loreline.chunk import ACTION_FLOOR, account, chunk, left_out, render
from loreline.distill.rules import RulesDistiller
from loreline.models import ACTION_LABELS, Candidate, Evidence, Turn
from loreline.transcripts import actions, outcomes


def act(origin: str, text: str, line: int, files: tuple[str, ...] = ()) -> Turn:
    return Turn("action", text, line, line, None, files, origin)


def say(speaker: str, text: str, line: int, end: int | None = None) -> Turn:
    return Turn(speaker, text, line, end or line)


def test_each_action_renders_under_its_label() -> None:
    assert render(act("ran", "docker exec db psql -c 'select 1' → ok", 347)) == "L347 [RAN] docker exec db psql -c 'select 1' → ok"
    assert render(act("edited", "src/list.tsx", 350)) == "L350 [EDITED] src/list.tsx"
    assert render(act("denied", "Bash: rm -rf build", 352)) == "L352 [DENIED] Bash: rm -rf build"
    # the labels the distill prompt explains are these constants
    assert (actions.RAN, actions.EDITED, actions.DENIED) == ("RAN", "EDITED", "DENIED") == tuple(ACTION_LABELS.values())


def test_the_same_action_again_is_one_line_with_a_count_at_its_first_place() -> None:
    turns = [say("user", "make the build pass", 1), act("ran", "npm run build → exit 1: TS2304", 3),
             say("assistant", "Fixing the import.", 4), act("edited", "src/a.ts", 5),
             act("ran", "npm run build → exit 1: TS2304", 6), act("ran", "npm run build → ok", 8),
             act("edited", "src/a.ts", 9)]
    texts = [text for _, text in account(turns)]
    assert texts == ["L1 [USER] make the build pass", "L3 [RAN] npm run build → exit 1: TS2304 (×2)",
                     "L4 [ASSISTANT] Fixing the import.", "L5 [EDITED] src/a.ts (×2)", "L8 [RAN] npm run build → ok"]
    kept = [turn for turn, _ in account(turns) if turn is not None]
    assert [t.line_start for t in kept] == [1, 3, 4, 5, 8]
    assert kept[1].text == "npm run build → exit 1: TS2304 (×2)"  # the text a quote is checked against


def test_a_short_session_shows_its_commands_up_to_the_floor() -> None:
    turns = [say("user", "deploy", 1)] + [act("ran", f"./deploy/step-{n:02d}.sh --region eu-west-1 --dry-run=false → ok", n + 2)
                                          for n in range(40)]
    rendered = "\n\n".join(text for _, text in account(turns))
    kept = sum(1 for turn, _ in account(turns) if turn is not None and turn.speaker == "action")
    assert 0 < kept < 40 and left_out(turns) == 40 - kept
    actions_chars = sum(len(text) + 2 for turn, text in account(turns) if turn is not None and turn.speaker == "action")
    assert ACTION_FLOOR - 40 <= actions_chars <= ACTION_FLOOR
    assert rendered.count("more actions left out]") == 1 and f"[{40 - kept} more actions left out]" in rendered


def test_over_the_bound_the_account_keeps_refusals_failures_tests_edits_then_the_rest() -> None:
    prose = [say("user", "x" * 20_000, 1)]  # room: a fifth of the prose
    fine = [act("ran", f"make step{n:03d} {'-v ' * 10}→ ok", 100 + n) for n in range(200)]
    special = [act("denied", "Bash: rm -rf build", 2), act("ran", "cargo build → exit 101: error[E0425]", 3),
               act("ran", "uv run pytest -q → 1 failed, 30 passed", 4), act("ran", "uv run pytest -q → 31 passed", 5),
               act("edited", "src/lib.rs", 6)]
    entries = account(prose + special + fine)
    kept = [turn for turn, _ in entries if turn is not None and turn.speaker == "action"]
    assert set(special) <= set(kept)
    assert [t.line_start for t in kept] == sorted(t.line_start for t in kept)  # transcript order
    first_fine = [t.line_start for t in kept if t.line_start >= 100]
    assert first_fine == list(range(100, 100 + len(first_fine)))  # earlier first among equals
    size = sum(len(text) + 2 for turn, text in entries if turn is not None and turn.speaker == "action")
    assert size <= 4_000
    note = next(text for turn, text in entries if turn is None)
    assert note == f"[{205 - len(kept)} more actions left out]"


def test_chunks_carry_the_account_and_the_note_never_stands_alone() -> None:
    turns = [say("user", "go", 1)] + [act("ran", f"task-{n} {'x' * 60} → ok", n + 2) for n in range(60)]
    pieces = chunk(turns, session_id="s", path="p", budget=600)
    joined = "\n\n".join(p.text for p in pieces)
    assert joined == "\n\n".join(text for _, text in account(turns))
    assert all(p.turns for p in pieces)


# -- evidence ------------------------------------------------------------------------------


def piece(*turns: Turn) -> object:
    return chunk(list(turns), session_id="s", path="p")[0]


def no_secret(_: str) -> bool:
    return False


def test_a_procedure_or_fact_may_rest_on_action_lines_a_preference_or_decision_may_not() -> None:
    turns = (say("user", "the db container keeps dying", 1), say("assistant", "Restarting it with a bigger shm.", 2),
             act("ran", "docker run --shm-size=1g -d postgres:16 → ok", 3))
    cited = (Evidence(3, "docker run --shm-size=1g -d postgres:16"),)
    for kind, reason in (("procedure", None), ("fact", None), ("preference", "assistant-only-support"),
                         ("decision", "assistant-only-support")):
        candidate = Candidate(kind, "Postgres runs with docker run --shm-size=1g.", cited, "test")
        assert evidence.check(candidate, piece(*turns), no_secret) == reason, kind  # type: ignore[arg-type]
    backed = Candidate("decision", "Postgres gets 1g of shm.", (*cited, Evidence(1, "the db container keeps dying")),
                       "test")
    assert evidence.check(backed, piece(*turns), no_secret) is None  # type: ignore[arg-type]


def test_a_quote_matches_any_turn_on_its_line_and_takes_that_turns_speaker() -> None:
    shared = (say("user", "bump it", 1), say("assistant", "Bumping the version.", 2),
              act("ran", "npm version patch → ok", 2))
    on_action = Candidate("procedure", "Versions are bumped with npm version patch.",
                          (Evidence(2, "npm version patch"),), "test")
    on_prose = Candidate("fact", "The version was bumped.", (Evidence(2, "Bumping the version"),), "test")
    nowhere = Candidate("fact", "x", (Evidence(2, "yarn version"),), "test")
    chunk_ = piece(*shared)
    assert evidence.check(on_action, chunk_, no_secret) is None  # type: ignore[arg-type]
    assert evidence.check(on_prose, chunk_, no_secret) is None  # type: ignore[arg-type]
    assert evidence.check(nowhere, chunk_, no_secret) == "quote-mismatch"  # type: ignore[arg-type]
    assert evidence.cited(chunk_, on_action.evidence[0]).speaker == "action"  # type: ignore[arg-type,union-attr]
    assert evidence.cited(chunk_, on_prose.evidence[0]).speaker == "assistant"  # type: ignore[arg-type,union-attr]


def test_the_offline_rules_read_only_the_persons_lines() -> None:
    turns = [say("user", "never run git push yourself", 1),
             act("ran", "echo 'we always use pnpm, never npm' > NOTES → ok", 2),
             act("denied", "Bash: we always deploy on fridays", 3)]
    found = RulesDistiller().distill(piece(*turns))  # type: ignore[arg-type]
    assert found and all(e.line == 1 for c in found for e in c.evidence)


def test_a_memory_is_tied_to_the_files_the_edits_around_it_touched() -> None:
    turns = (say("user", "reduce the padding of the list", 1), say("assistant", "Done.", 2),
             act("edited", "src/list.tsx", 3, ("/work/shop/src/list.tsx",)),
             act("ran", "pnpm test → ok", 4),
             say("user", "great, keep it that compact", 5),
             act("edited", "src/other.tsx", 7, ("/work/shop/src/other.tsx",)),
             say("user", "unrelated", 8))
    asked = Candidate("decision", "The list is compact.", (Evidence(1, "reduce the padding of the list"),), "t")
    accepted = Candidate("decision", "The list is compact.", (Evidence(5, "keep it that compact"),), "t")
    chunk_ = piece(*turns)
    assert pipeline.files_near(chunk_, asked, "/work/shop") == ("src/list.tsx",)  # type: ignore[arg-type]
    assert pipeline.files_near(chunk_, accepted, "/work/shop") == ("src/list.tsx", "src/other.tsx")  # type: ignore[arg-type]


# -- the pieces of a line --------------------------------------------------------------------


@pytest.mark.parametrize(("line", "looks"), [
    ("ls -la src", True), ("cat a.py | head -50", True), ("sed -n '1,80p' src/a.py", True),
    ("rg TODO -n src | wc -l", True), ("git status && git log --oneline -5", True), ("git diff HEAD~1 -- src", True),
    ("find . -name '*.py' 2>/dev/null | head", True), ("grep -rn foo src 2>&1", True), ("FOO=1 ls", True),
    ("sed -i 's/a/b/' a.py", False), ("sed -i.bak 's/a/b/' a.py", False), ("find . -name '*.pyc' -delete", False),
    ("echo x > notes.md", False), ("cat a > b", False), ("git branch new-feature", False), ("git branch -D old", False),
    ("git remote add origin x", False), ("npm test", False), ("ls $(pwd)", False), ("(cd src && ls)", False),
    ("docker ps", False), ("ls 'unclosed", False), ("python -c 'print(1)'", False),
])
def test_which_shell_lines_only_look(line: str, looks: bool) -> None:
    assert actions.inspects_only(line) is looks


def test_command_lines_are_one_shell_line_as_the_session_folder_sees_it() -> None:
    assert actions.command_line(["bash", "-lc", "make test"]) == "make test"
    assert actions.command_line(["/bin/zsh", "-c", "ls"]) == "ls"
    assert actions.command_line(["git", "commit", "-m", "fix it"]) == "git commit -m 'fix it'"
    assert actions.command_line(["a", 1]) == ""
    cwd = "/work/shop"
    ran = actions.Pending(actions.Call("ran", "shell", "cd /work/shop && make test", workdir="/work/shop/api"), "ok")
    turns = actions.settle([Turn("action", "", 3, 3)], {0: ran}, cwd)
    assert turns[0].text == "cd api && make test → ok"
    long = actions.Pending(actions.Call("ran", "Bash", "echo " + "a" * 500 + "\nls"))
    text = actions.settle([Turn("action", "", 3, 3)], {0: long}, cwd)[0].text
    assert text.endswith("… → no result") and len(text) <= actions.MAX_COMMAND + len(" → no result")
    script = actions.settle([Turn("action", "", 3, 3)], {0: actions.Pending(
        actions.Call("ran", "Bash", "cat > .env <<'EOF'\nDB_PASSWORD=Vq7rT2mXw9Lp\nEOF"), "ok")}, cwd)[0]
    assert script.text == "cat > .env <<'EOF'\nDB_PASSWORD=Vq7rT2mXw9Lp\nEOF → ok"  # lines kept for the redactor
    assert pipeline.clean_turns([script])[0].text == \
        "cat > .env <<'EOF' ↵ DB_PASSWORD=[REDACTED:password] ↵ EOF → ok"  # then one line


RUNNER_OUTPUTS = [
    ("pytest -q", "..F\n1 failed, 2 passed in 0.12s\n", "1 failed, 2 passed"),
    ("python -m pytest", "==== 3 failed, 10 passed, 2 warnings in 2.31s ====", "3 failed, 10 passed"),
    ("npx jest", "Tests:       3 failed, 1 skipped, 10 passed, 14 total", "3 failed, 10 passed, 1 skipped"),
    ("pnpm vitest run", "      Tests  2 failed | 30 passed (32)", "2 failed, 30 passed"),
    ("go test ./...", "ok  \texample.com/a\t0.01s\nFAIL\texample.com/b\t0.02s\nFAIL", "1 failed, 1 passed"),
    ("cargo test", "test result: FAILED. 2 passed; 1 failed; 0 ignored", "1 failed, 2 passed"),
    ("mix test", "1 doctest, 10 tests, 2 failures, 1 excluded", "2 failed, 8 passed, 1 skipped"),
    ("bundle exec rspec", "10 examples, 0 failures", "10 passed"),
    ("npm test", "  10 passing (20ms)\n  2 failing", "2 failed, 10 passed"),
    ("python -m unittest", "Ran 12 tests in 0.1s\n\nFAILED (failures=2, errors=1)", "2 failed, 1 error, 9 passed"),
    ("mvn test", "Tests run: 10, Failures: 2, Errors: 0, Skipped: 1", "2 failed, 7 passed, 1 skipped"),
    ("npm test", "sh: 1: jest: not found", "ok"),  # no summary and no failure: an ordinary command
    ("npm test", "# tests 12\n# pass 10\n# fail 2", "2 failed, 10 passed"),
    ("bun test", " 10 pass\n 2 fail\n 1 skip", "2 failed, 10 passed, 1 skipped"),
    ("dotnet test", "Failed!  - Failed:     2, Passed:    10, Skipped:     1, Total: 13", "2 failed, 10 passed, 1 skipped"),
    ("deno test", "ok | 10 passed | 2 failed", "2 failed, 10 passed"),
    ("vendor/bin/phpunit tests", "OK (12 tests, 30 assertions)", "12 passed"),
    ("vendor/bin/phpunit tests", "Tests: 12, Assertions: 30, Failures: 2", "2 failed, 10 passed"),
]


@pytest.mark.parametrize(("command", "output", "expected"), RUNNER_OUTPUTS)
def test_a_test_run_reads_as_its_runners_summary(command: str, output: str, expected: str) -> None:
    assert outcomes.outcome(command, output) == expected


@pytest.mark.parametrize("output", [case[1] for case in RUNNER_OUTPUTS])
def test_a_runners_reader_is_skipped_only_for_lines_it_cannot_read(output: str) -> None:
    """`test_summary` tries a reader only when the lines hold one of its words: every reader,
    given every runner's lines, finds counts only in lines that hold one."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for read, words in outcomes._READERS:
        if read(lines) is not None:
            assert any(word in "\n".join(lines) for word in words), (read.__name__, output)


def test_a_failed_command_gives_its_first_error_line() -> None:
    assert outcomes.outcome("ls /x", "Exit code 2\nls: cannot access '/x': No such file", failed=True) == \
        "exit 2: ls: cannot access '/x': No such file"
    assert outcomes.outcome("python x.py", "Exit code 1\nTraceback (most recent call last):\n  File \"x.py\"\n"
                            "KeyError: 'a'", failed=True) == "exit 1: KeyError: 'a'"
    assert outcomes.outcome("make", "\x1b[31mmake: *** [all] Error 2\x1b[0m", exit_code=2) == "exit 2: make: *** [all] Error 2"
    assert outcomes.outcome("tree x", "lsd: 3: No such file or directory", failed=True) == \
        "failed: lsd: 3: No such file or directory"
    long = outcomes.outcome("x", "error: " + "word " * 100, exit_code=1)
    assert long.startswith("exit 1: error: word word") and long.endswith("word…")
    assert len(long) <= len("exit 1: ") + outcomes.MAX_ERROR
    # a cut never keeps part of a word: a password in a URL is gone whole, never left half-shown
    # where the redactor no longer sees a URL
    assert outcomes.outcome("x", "error: " + "y" * 400, exit_code=1) == "exit 1: error:…"
    url = "export DATABASE_URL=postgres://app:pfFdtOp3rzHjUsGd0w@db:5432/app"
    assert outcomes.cut(url, 50) == "export…"
    assert outcomes.cut("a " * 20 + url, 50) == "a " * 20 + "export…"
    assert outcomes.outcome("x", "Command running in background with ID: b1") == "running in background"
    assert outcomes.outcome("pnpm dev", "Chunk ID: 7\nWall time: 10.0 seconds\nProcess running with session ID 73\n"
                            "Output:\nready on :3000") == "running in background"
    # a format that frames every result with its code hands it over; a success reads no further
    assert outcomes.exit_code_in("Output: x\nExit Code: 3\nProcess Group PGID: 9") == 3
    assert outcomes.outcome("grep x f", "Exit code 1", failed=True) == "exit 1"
    assert outcomes.outcome("x", "partial\n[Request interrupted by user for tool use]", failed=True) == "interrupted"


def test_the_distill_prompt_explains_every_label_a_chunk_can_hold() -> None:
    from loreline.distill import anthropic as backend

    text = backend.instructions()
    for name in actions.LABELS:
        assert f"[{name}]" in text, name
    assert actions.ARROW.strip() in text  # `command → outcome`, as the lines are written


@pytest.mark.parametrize("output", [
    "", "\n\n", "all good\nok", "Exit code 1\nOutput: boom\nError: (none)", "Stdout: fine\n  Stderr:   failed  \nlast",
    "Traceback (most recent call last):\n  File \"x.py\"\nKeyError: 'a'\nValueError: b\nmore\n",
    "Traceback (most recent call last):\n  File \"x.py\"\nno closing line", "ok\nExit Code: error\nCommand: rm error\nthe end",
    "a\nTraceback (most recent call last):", "npm ERR! missing script\nnpm ERR! later", "x\r\nerror: y\rz", "a\x0cerror b\n",
])
def test_the_first_error_line_is_found_from_the_first_error_word_as_reading_every_line_finds_it(output: str) -> None:
    assert outcomes.first_error(output) == outcomes._first_error_lines(output)
