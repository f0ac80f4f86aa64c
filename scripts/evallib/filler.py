"""Ordinary work between the labelled statements: asks, tool calls, answers, noise lines.

Nothing here states a preference, decision, fact or procedure; it only gives the labelled
lines the surroundings real sessions have (and long sessions their length).
"""

from __future__ import annotations

import hashlib

from loreline.samples.builder import ClaudeSession

ASKS = (
    "Show me where the cart total is computed.",
    "Add a loading spinner to the orders table.",
    "Why does this test time out on the first run?",
    "Rename the helper to something clearer.",
    "Can you add a docstring to that function?",
    "Look at the failing snapshot test.",
    "Extract the date formatting into a helper.",
    "Add an index on orders.created_at and show me the plan.",
)

PARAGRAPH = ("I read through the surrounding code first so the change stays small. The function is called from "
             "two places: the page component and the export job. Both pass the same arguments, so the edit is "
             "local. I kept the existing names and added a short comment where the behaviour is not obvious. ")


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]


def warmup(s: ClaudeSession, cwd: str) -> None:
    """A session's usual start: the assistant looks at the project before the real ask."""
    s.user("Take a quick look at the project layout first.")
    s.assistant("Looking at the layout.", thinking="List the top-level files, then read the package manifest.", tools=[
        ("Bash", {"command": "ls"}, "README.md\npackage.json\nsrc\ntests\nmigrations"),
        ("Read", {"file_path": f"{cwd}/README.md"}, "     1\t# Project\n     2\t\n     3\tInternal service.")])
    s.progress("git status --short")
    s.assistant("It's a small service: sources in src/, tests in tests/, SQL migrations in migrations/.")


def exchange(s: ClaudeSession, cwd: str, ask: str, *, prose_chars: int = 300) -> int:
    """One ask and the assistant's tool-backed answer; returns the ask's line number."""
    line = s.user(ask)
    name = f"src/{_digest(ask + str(line))}.ts"
    output = "\n".join(f"{i:6d}\texport const value{i} = compute({i});" for i in range(1, 40))
    s.assistant("Let me look.", thinking="Find the relevant file and read it before changing anything.", tools=[
        ("Read", {"file_path": f"{cwd}/{name}"}, output)])
    s.progress("pnpm lint --fix")
    body = (PARAGRAPH * (prose_chars // len(PARAGRAPH) + 1))[:prose_chars].strip()
    s.assistant(body)
    s.line("system", subtype="turn_duration", durationMs=41_000 + line, isMeta=False)
    return line
