"""What Loreline knows about each assistant lives in `loreline/assistants/`: outside it, the
product code names Codex, Gemini CLI and Cursor only in prose (docstrings, comments, messages)
and in the few places listed here, each with its reason. Claude Code, the assistant a session
is taken for when nothing says otherwise, is the default in several signatures and is not
counted."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("engine/loreline", "lsp", "hooks")
REGISTRY = "engine/loreline/assistants/"
#: an identifier that names an assistant (`codex_home`, `connect_gemini`, ...)
IDENTIFIER = re.compile(r"codex|gemini", re.I)
#: a string that is an assistant's name, or a name built on it (`"codex"`, `"gemini-md"`); prose
#: with spaces is a message, and messages may name the tools
NAME_STRING = re.compile(r"^(codex|cursor|gemini)([-_][a-z-]+)?$")

ALLOWED: dict[tuple[str, str], str] = {
    # the hook runs on every turn and cannot import the registry: its one module of payloads
    ("hooks/loreline_hooks/payloads.py", "*"): "the hook's per-assistant payloads, in one module",
    ("hooks/loreline_hooks/entry.py", "codex-notify"): "the event name written into Codex's config (user-facing)",
    ("engine/loreline/capture/__init__.py", "codex"): "the hook part's list of tools (test_assistants holds it equal)",
    ("engine/loreline/capture/__init__.py", "gemini"): "the hook part's list of tools (test_assistants holds it equal)",
    # stored values: the names transcripts and native sources carry in the database
    ("engine/loreline/models.py", "codex"): "the stored tool names (a type)",
    ("engine/loreline/models.py", "cursor"): "the stored tool names (a type)",
    ("engine/loreline/models.py", "gemini"): "the stored tool names (a type)",
    ("engine/loreline/store/native.py", "codex-memory"): "the stored native source kinds",
    ("engine/loreline/store/native.py", "gemini-md"): "the stored native source kinds",
    # the CLI's fixed choices, so `--help` loads no registry (test_cli_entry holds them equal to it)
    ("engine/loreline/names.py", "*"): "the CLI's fixed choices, checked against the registry",
    # not the assistant: the vendor prefix of an API key the redactor recognises
    ("engine/loreline/privacy/patterns.py", "gemini"): "a secret's vendor, not an assistant",
}


def _mentions(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type == tokenize.NAME and IDENTIFIER.search(token.string):
            found.append((token.start[0], token.string))
        elif token.type == tokenize.STRING:
            try:
                value = ast.literal_eval(token.string)
            except (ValueError, SyntaxError):
                continue
            if isinstance(value, str) and NAME_STRING.match(value):
                found.append((token.start[0], value))
    return found


def _violations(root: Path) -> list[str]:
    out = []
    for top in PRODUCT:
        for path in sorted((root / top).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            if rel.startswith(REGISTRY) or (rel, "*") in ALLOWED:
                continue
            out += [f"{rel}:{line}: {what}" for line, what in _mentions(path) if (rel, what) not in ALLOWED]
    return out


def test_assistants_are_named_only_in_the_registry_and_the_listed_places() -> None:
    assert _violations(ROOT) == []


def test_every_allowance_is_still_needed() -> None:
    for (rel, what), reason in ALLOWED.items():
        if what == "*":
            assert (ROOT / rel).is_file(), reason
        else:
            assert any(found == what for _, found in _mentions(ROOT / rel)), f"{rel}: {what} ({reason})"


def test_a_planted_mention_is_reported(tmp_path: Path) -> None:
    for top in PRODUCT:
        (tmp_path / top).mkdir(parents=True)
    planted = tmp_path / "engine/loreline/planted.py"
    planted.write_text('"""Reads Codex rollouts (prose is fine)."""\nfrom .assistants.codex import sessions\n'
                       'def tool(path):\n    return "gemini" if path else "cursor"\n', encoding="utf-8")
    (tmp_path / "engine/loreline/assistants").mkdir()
    (tmp_path / "engine/loreline/assistants/codex.py").write_text('NAME = "codex"\n', encoding="utf-8")
    assert _violations(tmp_path) == ["engine/loreline/planted.py:2: codex", "engine/loreline/planted.py:4: gemini",
                                     "engine/loreline/planted.py:4: cursor"]
