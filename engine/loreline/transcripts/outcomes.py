"""What a command's result says, in a few words: `ok`, `exit N: <first error line>`, or a
test runner's summary (`3 failed, 10 passed`).

The only part of a tool's output a distiller ever reads is what `outcome` returns: never more
than `MAX_ERROR` characters of it. The result text comes in each assistant's framing, read here:

* Claude Code: `Exit code N` on the first line of a failed Bash result (older releases mark the
  failure only with `is_error`);
* Codex: the JSON `{"output": …, "metadata": {"exit_code": N}}` of 0.3x–0.4x, `Exit code: N`
  (`shell_command`), `Process exited with code N` (`exec_command`), with `Wall time:`,
  `Chunk ID:`, `Original token count:` and `Output:` lines around the output;
* Gemini CLI: `Command:`, `Directory:`, `Output:`, `Error:`, `Exit Code:`, `Signal:`,
  `Background PIDs:`, `Process Group PGID:` lines.

A test run (`is_test`: pytest, jest, vitest, mocha, go test, cargo test, mix test, rspec,
npm/pnpm/yarn/bun test, …) is summarised by its runner's own closing line, counted as
`N failed, N errors, N passed, N skipped`; when no summary is found it is an ordinary command.
Only the head and the tail of a long output are scanned (`HEAD_CHARS`, `TAIL_CHARS`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

OK = "ok"
NO_RESULT = "no result"
BACKGROUND = "running in background"
#: how Claude Code answers a command started with `run_in_background`, and Codex one still running
BACKGROUND_STARTS = ("Command running in background with ID:",)
_STILL_RUNNING = re.compile(r"^Process running with session ID \S+\s*$", re.M)
INTERRUPTED = "interrupted"
#: what Claude Code appends to the output of a command the person stopped
INTERRUPTED_MARK = "[Request interrupted by user"
MAX_ERROR = 160
HEAD_CHARS = 32_000
TAIL_CHARS = 8_000
#: how far into a result's head and tail its framing (exit code) is looked for
FRAMING_CHARS = 600
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
#: where each assistant writes a command's exit code
_EXIT = re.compile(r"^(?:Exit code:? |Process exited with code |Exit Code: )(-?\d+)\s*$", re.M)
#: framing lines around a command's output that are not the output
_FRAME = re.compile(r"^(?:Exit code:? -?\d+|Process exited with code -?\d+|Exit Code: .*|Wall time: .*|Chunk ID: .*"
                    r"|Original token count: .*|Total output lines: .*|Process running with session ID .*|Command: .*|Directory: .*|Signal: .*"
                    r"|Background PIDs: .*|Process Group PGID: .*|Error: \(none\)|Output: \(empty\)|Output:)\s*$")
_FRAME_PREFIX = ("Output: ", "Stdout: ", "Stderr: ")
_ERROR_WORD = re.compile(
    r"\b(?:error|errors|err!|fail|failed|failure|fatal|exception|traceback|panic(?:ked)?|cannot|can't|could not"
    r"|couldn't|unable|not found|no such|denied|invalid|missing|refused|undefined|unknown|unexpected|syntax"
    r"|timed out|timeout|killed|abort(?:ed)?)\b", re.I)
TRACEBACK = "Traceback (most recent call last)"
#: line breaks `str.splitlines` knows besides `\n` (a carriage return among them); looked for one by one
#: (`in` is a C scan, a character class in `re` costs ten times more)
_OTHER_BREAKS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_PY_ERROR = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*")
_TEST_COMMAND = re.compile(
    r"(?:^|[\s;&|(/'\"])(?:py\.?test|pytest|jest|vitest|mocha|rspec|phpunit|tox|nox|ctest|bats|playwright test"
    r"|unittest|nosetests|ava|karma|cypress run)\b"
    r"|\b(?:go|cargo|mix|npm|pnpm|yarn|bun|deno|dotnet|mvn|mvnw|gradle|gradlew|make|just|swift|flutter|dart|rake"
    r"|nx|turbo|lerna|sbt|lein|stack|cabal|zig|elixir)\s+(?:run\s+|-\S+\s+)*(?:test|tests|spec|check|verify)\b"
    r"|\bnpm\s+t\b|(?:^|[\s/])scripts?/test\b", re.I)


#: words every command `_TEST_COMMAND` matches holds one of (a cheap first look)
_TEST_HINTS = ("test", "spec", "check", "verify", "jest", "mocha", "tox", "nox", "bats", "karma", "cypress", "ava",
               "npm t")


def outcome(command: str, output: str, *, failed: bool = False, exit_code: int | None = None) -> str:
    """A command's outcome: a test run's summary, `ok`, or `exit N: <first error line>`
    (`failed: …` when the format records no exit code); `running in background` for a command
    Claude Code started in the background (or Codex left running), `interrupted` for one the
    person stopped. Only the framing is read of a command that went well. The exit code is read
    from the output's framing for a failed command; a reader whose format frames every result
    with its code (Codex, Gemini CLI) passes it (`exit_code_in`)."""
    head = output[:FRAMING_CHARS]
    if head.startswith(BACKGROUND_STARTS) or (exit_code is None and "Process running" in head
                                              and _STILL_RUNNING.search(head)):
        return BACKGROUND
    if INTERRUPTED_MARK in output[-200:]:
        return INTERRUPTED
    code = exit_code if exit_code is not None else exit_code_in(output) if failed else None
    if is_test(command):
        summary = test_summary(_scannable(output[-SUMMARY_LINES * 160:]))
        if summary:
            return summary
    if code == 0 or (code is None and not failed):
        return OK
    head = f"exit {code}" if code is not None else "failed"
    line = first_error(_scannable(output))
    return f"{head}: {line}" if line else head


def exit_code_in(text: str) -> int | None:
    """The exit code a result's framing states: at its head (Claude Code, Codex) or its tail
    (Gemini CLI)."""
    match = _EXIT.search(text, 0, FRAMING_CHARS) or _EXIT.search(text, max(0, len(text) - FRAMING_CHARS))
    return int(match.group(1)) if match else None


def is_test(command: str) -> bool:
    """Whether a command line runs a test suite."""
    lowered = command.lower()
    return any(hint in lowered for hint in _TEST_HINTS) and _TEST_COMMAND.search(command) is not None


def first_error(text: str) -> str:
    """The first output line that reads like an error (else the last line with words, where
    runners and builds sum up), cut to `MAX_ERROR` characters; a Python traceback gives its
    closing exception line.

    Read from the first error word on: the lines before it are never split apart, and the
    lines after it only for a traceback's closing line (read from the end). Text with line
    breaks other than `\n` is read line by line (`_first_error_lines`), with the same answer."""
    if any(char in text for char in _OTHER_BREAKS):
        return _first_error_lines(text)
    at = 0
    while (found := _ERROR_WORD.search(text, at)) is not None:
        start = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.end())
        end = len(text) if end < 0 else end
        line = _unframed(text[start:end])
        if line and _ERROR_WORD.search(line):
            if line.startswith(TRACEBACK):
                closing = _last_line(text, end, _PY_ERROR.match)
                if closing:
                    return cut(closing, MAX_ERROR)
            return cut(line, MAX_ERROR)
        at = end
    last = _last_line(text, 0, bool)
    return cut(last, MAX_ERROR) if last else ""


def _last_line(text: str, floor: int, test: Callable[[str], object]) -> str | None:
    """The last line (unframed, not empty) after position `floor` that passes `test`, read from the end."""
    end = len(text)
    while end > floor:
        newline = text.rfind("\n", floor, end)
        line = _unframed(text[newline + 1 if newline >= 0 else floor:end])
        if line and test(line):
            return line
        end = newline if newline >= 0 else floor
    return None


def _first_error_lines(text: str) -> str:
    """`first_error`, every line read: for text with line breaks other than `\n` (`str.splitlines`')."""
    lines = [line for line in (_unframed(raw) for raw in text.splitlines()) if line]
    if not lines:
        return ""
    for index, line in enumerate(lines):
        if line.startswith(TRACEBACK):
            closing = [later for later in lines[index + 1:] if _PY_ERROR.match(later)]
            if closing:
                return cut(closing[-1], MAX_ERROR)
        if _ERROR_WORD.search(line):
            return cut(line, MAX_ERROR)
    return cut(lines[-1], MAX_ERROR)


def cut(text: str, most: int) -> str:
    """`text` on one line, at most `most` characters, cut with `…` between words: a word the
    limit would split is left out whole, so no part of a secret (a password in a URL, a token
    after `Bearer`) survives a cut that would hide it from the redactor."""
    cropped = len(text) > most * 2
    if cropped:
        text = text[: most * 2]
    words = text.split()
    if cropped and words and not text[-1].isspace():
        words.pop()  # the crop went through this word
    text = " ".join(words)
    if len(text) <= most and not cropped:
        return text
    head = text[: most - 1]
    if len(text) > most - 1 and text[most - 1] != " ":
        head = head[: head.rfind(" ")] if " " in head else ""
    return head.rstrip() + "…"


def _unframed(line: str) -> str:
    line = line.strip()
    if not line or _FRAME.match(line):
        return ""
    for prefix in _FRAME_PREFIX:
        if line.startswith(prefix):
            return line[len(prefix):].strip()
    return line


def _scannable(output: str) -> str:
    """The head and tail of a long output, without terminal escapes, carriage returns as line ends."""
    if len(output) > HEAD_CHARS + TAIL_CHARS:
        output = output[:HEAD_CHARS] + "\n" + output[-TAIL_CHARS:]
    if "\r" in output:  # a progress meter redraws its line: each redraw is a line of its own
        output = output.replace("\r\n", "\n").replace("\r", "\n")
    return _ANSI.sub("", output) if "\x1b" in output else output


# -- test runners' summaries ---------------------------------------------------------
#
# A runner sums up in its last lines: only the last `SUMMARY_LINES` lines of the output are read,
# each reader matching whole lines (a runner that prints its failures after its counts, as mocha
# and RSpec can, is then read from its exit code and first error line instead).

SUMMARY_LINES = 40
_PYTEST_OPENS = frozenset("=0123456789")
#: how a line that can hold a runner's counts opens (every reader below reads only such lines)
_SUMMARY_OPENS = frozenset("=0123456789#")
_SUMMARY_STARTS = ("Tests", "test result:", "ok", "FAIL", "--- ", "Ran ", "OK", "Failed", "Passed", "Total", "[",
                   "Tests run:")
_START_FIRSTS = frozenset(start[0] for start in _SUMMARY_STARTS)  # a set lookup before the `startswith`
_COUNT = re.compile(r"(\d+) (failed|passed|errors?|skipped|xfailed|xpassed)\b")
_PYTEST = re.compile(r"=*\s*((?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)"
                     r"(?:, )?)+)(?: in [\d.]+s.*?)?\s*=*\s*$")
_VITEST = re.compile(r"\s*Tests\s+(.+?)\s*\(\d+\)\s*$")
_CARGO = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed")
_GO_PACKAGE = re.compile(r"(ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[)")
_GO_TEST = re.compile(r"\s*--- (PASS|FAIL): ")
_EXAMPLES = re.compile(r"(?:(\d+) doctests?, )?(?:(\d+) propert(?:y|ies), )?(\d+) (?:tests?|examples?), "
                       r"(\d+) failures?(?:, (\d+) (?:excluded|pending|skipped|invalid))?")
_MOCHA = re.compile(r"\s*(\d+) (passing|failing|pending)\b|\s*(\d+) (pass|fail|skip)\s*$|# (pass|fail|skipped)\s+(\d+)\s*$")
_UNITTEST = re.compile(r"Ran (\d+) tests? in [\d.]+s")
_UNITTEST_END = re.compile(r"(OK|FAILED)\s*(?:\((.*)\))?\s*$")
_SUREFIRE = re.compile(r".*Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)")
_DOTNET = re.compile(r".*Failed:\s+(\d+), Passed:\s+(\d+), Skipped:\s+(\d+)")
_DENO = re.compile(r"(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed")
_PHPUNIT = re.compile(r"OK \((\d+) tests?|Tests: (\d+), Assertions: \d+(?:, (?:Errors|Failures): (\d+))*")


def test_summary(text: str) -> str | None:
    """The closing counts of a test run, `N failed, N errors, N passed, N skipped`; None when no
    runner's summary is in the output's last lines (stripped, each reader looking first at how a
    line opens)."""
    lines = [line for raw in text[-SUMMARY_LINES * 160:].splitlines()[-SUMMARY_LINES:] if (line := raw.strip())
             and ((first := line[0]) in _SUMMARY_OPENS or (first in _START_FIRSTS and line.startswith(_SUMMARY_STARTS)))]
    if not lines:
        return None
    said = "\n".join(lines)
    for read, words in _READERS:
        for word in words:
            if word in said:
                break
        else:
            continue  # the reader matches no line without one of its words: most outputs skip most readers
        counts = read(lines)
        if counts is not None and any(counts.values()):
            return _counts(counts)
    return None


def _readers() -> tuple[tuple[Callable[[list[str]], dict[str, int] | None], tuple[str, ...]], ...]:
    """Each runner's reader with the words one of which every line it reads holds (a test checks
    that a reader given lines without them finds nothing)."""
    return (
        (_pytest, (" passed", " failed", " error")),
        (_jest, ("Tests",)),
        (_cargo, ("test result:",)),
        (_go, ("--- ", "ok", "FAIL")),
        (_examples, (" failure",)),
        (_mocha, ("pass", "fail", "pending", "skip")),
        (_unittest, ("Ran ",)),
        (_others, ("Tests run:", "Passed:", " passed |", "OK (", "Tests: ")),
    )


def _counts(counts: dict[str, int]) -> str:
    order = ("failed", "errors", "passed", "skipped")
    parts = [f"{counts[key]} {'error' if key == 'errors' and counts[key] == 1 else key}"
             for key in order if counts.get(key)]
    return ", ".join(parts or ["0 passed"])


def _tally(pairs: list[tuple[str, str]]) -> dict[str, int]:
    names = {"error": "errors", "xfailed": "skipped", "xpassed": "passed", "fail": "failed", "failing": "failed",
             "pass": "passed", "passing": "passed", "pending": "skipped", "skip": "skipped"}
    out: dict[str, int] = {}
    for number, word in pairs:
        key = names.get(word, word)
        if key in ("failed", "errors", "passed", "skipped"):
            out[key] = out.get(key, 0) + int(number)
    return out


def _last(pattern: re.Pattern[str], lines: list[str], word: str) -> re.Match[str] | None:
    """The last line holding `word` that `pattern` matches from its start."""
    for line in reversed(lines):
        if word in line and (found := pattern.match(line)):
            return found
    return None


def _pytest(lines: list[str]) -> dict[str, int] | None:
    for line in reversed(lines):
        if line[0] in _PYTEST_OPENS and (" passed" in line or " failed" in line or " error" in line) \
                and (found := _PYTEST.match(line)):
            return _tally(_COUNT.findall(found.group(1)))
    return None


def _jest(lines: list[str]) -> dict[str, int] | None:
    """jest's `Tests:       3 failed, 10 passed, 13 total`, vitest's `Tests  3 failed | 10 passed (13)`."""
    for line in reversed(lines):
        if line.startswith("Tests:"):
            return _tally(_COUNT.findall(line))
        if line.startswith("Tests ") and (found := _VITEST.match(line)):
            return _tally(_COUNT.findall(found.group(1).replace("|", ",")))
    return None


def _cargo(lines: list[str]) -> dict[str, int] | None:
    found = [m for line in lines if line.startswith("test result:") and (m := _CARGO.match(line))]
    if not found:
        return None
    return {"passed": sum(int(m.group(1)) for m in found), "failed": sum(int(m.group(2)) for m in found)}


def _go(lines: list[str]) -> dict[str, int] | None:
    tests = [m.group(1) for line in lines if line.startswith("--- ") and (m := _GO_TEST.match(line))]
    if tests:
        return {"passed": tests.count("PASS"), "failed": tests.count("FAIL")}
    packages = [m.group(1) for line in lines if line.startswith(("ok", "FAIL")) and (m := _GO_PACKAGE.match(line))]
    if not packages:
        return None
    return {"passed": packages.count("ok"), "failed": packages.count("FAIL")}


def _examples(lines: list[str]) -> dict[str, int] | None:
    """ExUnit (`10 tests, 2 failures, 1 excluded`) and RSpec (`10 examples, 2 failures, 1 pending`)."""
    found = _last(_EXAMPLES, [line for line in lines if line[0].isdigit()], " failure")
    if found is None:
        return None
    doctests, properties, total, failures, left = found.groups()
    runs = sum(int(n) for n in (doctests, properties, total) if n)
    skipped = int(left) if left else 0
    return {"failed": int(failures), "passed": max(0, runs - int(failures) - skipped), "skipped": skipped}


def _mocha(lines: list[str]) -> dict[str, int] | None:
    """mocha's `10 passing` / `2 failing`, bun's `10 pass` / `2 fail`, node's TAP `# pass 10`."""
    pairs: list[tuple[str, str]] = []
    for line in lines:
        if (line[0].isdigit() or line[0] == "#") and (m := _MOCHA.match(line)):
            number, word = (m.group(1), m.group(2)) if m.group(1) else \
                (m.group(3), m.group(4)) if m.group(3) else (m.group(6), m.group(5))
            pairs.append((number, word))
    return _tally(pairs) if pairs else None


def _unittest(lines: list[str]) -> dict[str, int] | None:
    """`Ran 12 tests in 0.1s` then `OK` or `FAILED (failures=2, errors=1, skipped=3)`."""
    for index in range(len(lines) - 1, -1, -1):
        ran = _UNITTEST.match(lines[index]) if lines[index].startswith("Ran ") else None
        if ran is None:
            continue
        end = next((m for line in lines[index + 1:] if line.strip() and (m := _UNITTEST_END.match(line))), None)
        said = {w: int(n) for w, n in re.findall(r"(failures|errors|skipped)=(\d+)", end.group(2) or "")} if end else {}
        counts = {"failed": said.get("failures", 0), "errors": said.get("errors", 0), "skipped": said.get("skipped", 0)}
        return {**counts, "passed": max(0, int(ran.group(1)) - sum(counts.values()))}
    return None


def _others(lines: list[str]) -> dict[str, int] | None:
    """Maven/Gradle surefire, dotnet test, deno test and PHPUnit closing lines."""
    if found := _last(_SUREFIRE, lines, "Tests run:"):
        run, failures, errors, skipped = (int(n) for n in found.groups())
        return {"failed": failures, "errors": errors, "skipped": skipped,
                "passed": max(0, run - failures - errors - skipped)}
    if found := _last(_DOTNET, lines, "Passed:"):
        failed, passed, skipped = (int(n) for n in found.groups())
        return {"failed": failed, "passed": passed, "skipped": skipped}
    if found := _last(_DENO, lines, " passed |"):
        return {"failed": int(found.group(2)), "passed": int(found.group(1))}
    if found := _last(_PHPUNIT, lines, "OK (") or _last(_PHPUNIT, lines, "Tests: "):
        ok, total, bad = found.groups()
        if ok:
            return {"passed": int(ok)}
        return {"failed": int(bad or 0), "passed": max(0, int(total) - int(bad or 0))}
    return None


_READERS = _readers()
