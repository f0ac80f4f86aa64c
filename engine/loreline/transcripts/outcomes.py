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

import json
import re

OK = "ok"
NO_RESULT = "no result"
BACKGROUND = "running in background"
#: how Claude Code answers a command started with `run_in_background`
BACKGROUND_STARTS = ("Command running in background with ID:",)
INTERRUPTED = "interrupted"
#: what Claude Code appends to the output of a command the person stopped
INTERRUPTED_MARK = "[Request interrupted by user"
MAX_ERROR = 160
HEAD_CHARS = 32_000
TAIL_CHARS = 8_000
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
#: where each assistant writes a command's exit code
_EXIT = re.compile(r"^(?:Exit code:? |Process exited with code |Exit Code: )(-?\d+)\s*$", re.M)
#: framing lines around a command's output that are not the output
_FRAME = re.compile(r"^(?:Exit code:? -?\d+|Process exited with code -?\d+|Exit Code: .*|Wall time: .*|Chunk ID: .*"
                    r"|Original token count: .*|Total output lines: .*|Command: .*|Directory: .*|Signal: .*"
                    r"|Background PIDs: .*|Process Group PGID: .*|Error: \(none\)|Output: \(empty\)|Output:)\s*$")
_FRAME_PREFIX = ("Output: ", "Stdout: ", "Stderr: ")
_ERROR_WORD = re.compile(
    r"\b(?:error|errors|err!|fail|failed|failure|fatal|exception|traceback|panic(?:ked)?|cannot|can't|could not"
    r"|couldn't|unable|not found|no such|denied|invalid|missing|refused|undefined|unknown|unexpected|syntax"
    r"|timed out|timeout|killed|abort(?:ed)?)\b", re.I)
_PY_ERROR = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*")
_TEST_COMMAND = re.compile(
    r"(?:^|[\s;&|(/'\"])(?:py\.?test|pytest|jest|vitest|mocha|rspec|phpunit|tox|nox|ctest|bats|playwright test"
    r"|unittest|nosetests|ava|karma|cypress run)\b"
    r"|\b(?:go|cargo|mix|npm|pnpm|yarn|bun|deno|dotnet|mvn|mvnw|gradle|gradlew|make|just|swift|flutter|dart|rake"
    r"|nx|turbo|lerna|sbt|lein|stack|cabal|zig|elixir)\s+(?:run\s+|-\S+\s+)*(?:test|tests|spec|check|verify)\b"
    r"|\bnpm\s+t\b|(?:^|[\s/])scripts?/test\b", re.I)


def outcome(command: str, output: str, *, failed: bool = False, exit_code: int | None = None) -> str:
    """A command's outcome: a test run's summary, `ok`, or `exit N: <first error line>`
    (`failed: …` when the format records no exit code); `running in background` for a command
    Claude Code started in the background, `interrupted` for one the person stopped."""
    if output.startswith(BACKGROUND_STARTS):
        return BACKGROUND
    if INTERRUPTED_MARK in output[-200:]:
        return INTERRUPTED
    text = _scannable(output)
    code = exit_code if exit_code is not None else exit_code_in(text)
    if is_test(command):
        summary = test_summary(text)
        if summary:
            return summary
    if code == 0 or (code is None and not failed):
        return OK
    head = f"exit {code}" if code is not None else "failed"
    line = first_error(text)
    return f"{head}: {line}" if line else head


def codex_output(raw: object) -> tuple[str, int | None]:
    """A Codex tool output's text and exit code: the JSON-in-a-string of 0.3x–0.4x
    (`{"output": …, "metadata": {"exit_code": N}}`), a list of text items, or plain text."""
    if isinstance(raw, list):
        raw = "\n".join(str(item.get("text", "")) for item in raw if isinstance(item, dict))
    if not isinstance(raw, str):
        return "", None
    if raw.startswith("{") and '"metadata"' in raw[-400:]:
        try:
            value = json.loads(raw)
        except ValueError:
            return raw, None
        if isinstance(value, dict):
            meta = value.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            text = value.get("output")
            return (text if isinstance(text, str) else ""), (code if isinstance(code, int) else None)
    return raw, None


def exit_code_in(text: str) -> int | None:
    match = _EXIT.search(text)
    return int(match.group(1)) if match else None


def is_test(command: str) -> bool:
    """Whether a command line runs a test suite."""
    return bool(command) and _TEST_COMMAND.search(command) is not None


def first_error(text: str) -> str:
    """The first output line that reads like an error (else the last line with words, where
    runners and builds sum up), cut to `MAX_ERROR` characters; a Python traceback gives its
    closing exception line."""
    lines = [line for line in (_unframed(raw) for raw in text.splitlines()) if line]
    if not lines:
        return ""
    for index, line in enumerate(lines):
        if line.startswith("Traceback (most recent call last)"):
            closing = [later for later in lines[index + 1:] if _PY_ERROR.match(later)]
            if closing:
                return cut(closing[-1], MAX_ERROR)
        if _ERROR_WORD.search(line):
            return cut(line, MAX_ERROR)
    return cut(lines[-1], MAX_ERROR)


def cut(text: str, most: int) -> str:
    """`text` on one line, at most `most` characters (cut with `…`)."""
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


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

_COUNT = re.compile(r"(\d+) (failed|passed|errors?|skipped|xfailed|xpassed)\b")
_PYTEST = re.compile(r"^=*\s*((?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)"
                     r"(?:, )?)+)(?: in [\d.]+s.*)?=*\s*$", re.M)
_JEST = re.compile(r"^Tests:\s+(.+?)\s*$", re.M)
_VITEST = re.compile(r"^\s*Tests\s+(.+?)\s*\(\d+\)\s*$", re.M)
_CARGO = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed", re.M)
_GO_PACKAGE = re.compile(r"^(ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[)", re.M)
_GO_TEST = re.compile(r"^\s*--- (PASS|FAIL): ", re.M)
_EXAMPLES = re.compile(r"^(?:.*?(\d+) doctests?, )?(?:.*?(\d+) propert(?:y|ies), )?(\d+) (?:tests?|examples?), "
                       r"(\d+) failures?(?:, (\d+) (?:excluded|pending|skipped|invalid))?", re.M)
_MOCHA = re.compile(r"^\s*(\d+) (passing|failing|pending)\b", re.M)
_BUN = re.compile(r"^\s*(\d+) (pass|fail|skip)\s*$", re.M)
_TAP = re.compile(r"^# (pass|fail|skipped)\s+(\d+)\s*$", re.M)
_UNITTEST = re.compile(r"^Ran (\d+) tests? in [\d.]+s\s*\n+\s*(OK|FAILED)\s*(?:\((.*)\))?", re.M)
_SUREFIRE = re.compile(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)")
_DOTNET = re.compile(r"Failed:\s+(\d+), Passed:\s+(\d+), Skipped:\s+(\d+)")
_DENO = re.compile(r"^(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed", re.M)
_PHPUNIT = re.compile(r"^(?:OK \((\d+) tests?|Tests: (\d+), Assertions: \d+(?:, (?:Errors|Failures): (\d+))*)", re.M)


def test_summary(text: str) -> str | None:
    """The closing counts of a test run, `N failed, N errors, N passed, N skipped`; None when no
    runner's summary is in the output."""
    for read in (_pytest, _jest, _cargo, _go, _examples, _mocha, _unittest, _others):
        counts = read(text)
        if counts is not None and any(counts.values()):
            return _counts(counts)
    return None


def _counts(counts: dict[str, int]) -> str:
    order = ("failed", "errors", "passed", "skipped")
    parts = [f"{counts[key]} {'error' if key == 'errors' and counts[key] == 1 else key}"
             for key in order if counts.get(key)]
    if not counts.get("failed") and not counts.get("errors"):
        parts = parts or ["0 passed"]
    return ", ".join(parts)


def _tally(pairs: list[tuple[str, str]]) -> dict[str, int]:
    names = {"error": "errors", "xfailed": "skipped", "xpassed": "passed", "fail": "failed", "failing": "failed",
             "pass": "passed", "passing": "passed", "pending": "skipped", "skip": "skipped"}
    out: dict[str, int] = {}
    for number, word in pairs:
        key = names.get(word, word)
        if key in ("failed", "errors", "passed", "skipped"):
            out[key] = out.get(key, 0) + int(number)
    return out


def _pytest(text: str) -> dict[str, int] | None:
    found = _PYTEST.findall(text)
    return _tally(_COUNT.findall(found[-1])) if found else None


def _jest(text: str) -> dict[str, int] | None:
    found = _JEST.findall(text) or _VITEST.findall(text)
    return _tally(_COUNT.findall(found[-1].replace("|", ","))) if found else None


def _cargo(text: str) -> dict[str, int] | None:
    found = _CARGO.findall(text)
    if not found:
        return None
    return {"passed": sum(int(p) for p, _ in found), "failed": sum(int(f) for _, f in found)}


def _go(text: str) -> dict[str, int] | None:
    tests = _GO_TEST.findall(text)
    if tests:
        return {"passed": tests.count("PASS"), "failed": tests.count("FAIL")}
    packages = _GO_PACKAGE.findall(text)
    if not packages:
        return None
    return {"passed": packages.count("ok"), "failed": packages.count("FAIL")}


def _examples(text: str) -> dict[str, int] | None:
    """ExUnit (`10 tests, 2 failures, 1 excluded`) and RSpec (`10 examples, 2 failures, 1 pending`)."""
    found = _EXAMPLES.findall(text)
    if not found:
        return None
    doctests, properties, total, failures, left = found[-1]
    runs = sum(int(n) for n in (doctests, properties, total) if n)
    skipped = int(left) if left else 0
    return {"failed": int(failures), "passed": max(0, runs - int(failures) - skipped), "skipped": skipped}


def _mocha(text: str) -> dict[str, int] | None:
    pairs = [(n, w) for n, w in _MOCHA.findall(text)] or [(n, w) for n, w in _BUN.findall(text)]
    pairs = pairs or [(n, w) for w, n in _TAP.findall(text)]
    return _tally(pairs) if pairs else None


def _unittest(text: str) -> dict[str, int] | None:
    """`Ran 12 tests in 0.1s` then `OK` or `FAILED (failures=2, errors=1, skipped=3)`."""
    found = _UNITTEST.findall(text)
    if not found:
        return None
    ran, _, detail = found[-1]
    said = {word: int(n) for word, n in re.findall(r"(failures|errors|skipped)=(\d+)", detail)}
    counts = {"failed": said.get("failures", 0), "errors": said.get("errors", 0), "skipped": said.get("skipped", 0)}
    return {**counts, "passed": max(0, int(ran) - sum(counts.values()))}


def _others(text: str) -> dict[str, int] | None:
    """Maven/Gradle surefire, dotnet test, deno test and PHPUnit closing lines."""
    if found := _SUREFIRE.findall(text):
        run, failures, errors, skipped = (int(n) for n in found[-1])
        return {"failed": failures, "errors": errors, "skipped": skipped,
                "passed": max(0, run - failures - errors - skipped)}
    if found := _DOTNET.findall(text):
        failed, passed, skipped = (int(n) for n in found[-1])
        return {"failed": failed, "passed": passed, "skipped": skipped}
    if found := _DENO.findall(text):
        passed, failed = (int(n) for n in found[-1])
        return {"failed": failed, "passed": passed}
    if found := _PHPUNIT.findall(text):
        ok, total, bad = found[-1]
        if ok:
            return {"passed": int(ok)}
        return {"failed": int(bad or 0), "passed": max(0, int(total) - int(bad or 0))}
    return None
