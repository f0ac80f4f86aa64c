"""The assistant registry (`loreline.assistants.registry`): one object per assistant, the only place
that knows their homes and the variables that move them, and consistent with the parts that
cannot import it (the hook's tool list) or that it delegates to (the transcript readers)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from loreline import capture
from loreline.assistants import registry
from loreline.cli.main import build_parser
from tests.conftest import REAL


def test_every_assistant_is_registered_once_with_a_reader() -> None:
    assert registry.names() == ("claude-code", "codex", "cursor", "gemini")
    assert [a.name for a in registry.ALL] == list(registry.names())
    for assistant in registry.ALL:
        assert registry.get(assistant.name) is assistant
        assert assistant.name in registry.READERS
    with pytest.raises(KeyError, match="unknown assistant 'aider' .known: claude-code, codex, cursor, gemini"):
        registry.get("aider")


def test_the_hook_s_literal_tool_list_is_the_connectable_assistants() -> None:
    assert set(capture.TOOLS) == {a.name for a in registry.connectable()}


@pytest.mark.parametrize(("name", "variable", "value", "expected"), [
    ("claude-code", "CLAUDE_CONFIG_DIR", "/x/claude", "/x/claude"),
    ("codex", "CODEX_HOME", "/x/codex", "/x/codex"),
    ("gemini", "GEMINI_CLI_HOME", "/x/home", "/x/home/.gemini"),  # a home holding .gemini
])
def test_homes_follow_their_variable_and_an_explicit_folder_wins(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str, variable: str, value: str, expected: str) -> None:
    assistant = registry.get(name)
    monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert assistant.home() == tmp_path / assistant.home_default
    monkeypatch.setenv(variable, value)
    assert assistant.home() == Path(expected)
    assert assistant.home(str(tmp_path / "given")) == tmp_path / "given"
    monkeypatch.setenv(variable, "  ")
    assert assistant.home() == tmp_path / assistant.home_default


def test_the_cli_offers_every_assistant_and_a_folder_option_each() -> None:
    parser = build_parser()
    text = parser.parse_args(["import", "sessions", "--tool", "gemini", "--gemini-dir", "/g"])
    assert text.tool == "gemini" and text.gemini_dir == "/g"
    for assistant in registry.connectable():
        assert parser.parse_args(["connect", assistant.name]).tool == assistant.name
    with pytest.raises(SystemExit):
        parser.parse_args(["connect", "cursor"])  # nothing to connect for Cursor


def test_a_session_is_found_by_its_id(tmp_path: Path) -> None:
    gemini = registry.get("gemini")
    chats = tmp_path / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True)
    session = chats / "session-2026-12-01T16-05-fb0c175a.jsonl"
    shutil.copy(REAL / "gemini" / "gemini-0.61.0-prompt-tool-resume.jsonl", session)
    (chats / "session-2026-12-01T16-07-fb0c175a.jsonl").write_text('{"sessionId": "fb0c175a-other"}\n')
    assert gemini.locate_session(tmp_path, "fb0c175a-d604-46a8-b2ef-b305d2744c20") == session
    assert gemini.locate_session(tmp_path, "00000000-d604-46a8-b2ef-b305d2744c20") is None
    codex = registry.get("codex")
    rollout = tmp_path / "sessions" / "2026" / "11" / "29" / "rollout-2026-11-29T10-00-00-abcdef12-3456.jsonl"
    rollout.parent.mkdir(parents=True)
    rollout.write_text("")
    assert codex.locate_session(tmp_path, "abcdef12-3456") == rollout
    claude = registry.get("claude-code")
    transcript = tmp_path / "projects" / "-w" / "0b4f9c1e-1111-4222-8333-444455556666.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("")
    assert claude.locate_session(tmp_path, "0b4f9c1e-1111-4222-8333-444455556666") == transcript
