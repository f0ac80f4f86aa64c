"""`loreline disconnect` leaves each settings file as it was before `loreline connect`: the
original bytes when nothing else changed the file in between; when the person changed it, their
change stays and only Loreline's entries go, every other character as it was; no leftover
objects (`"mcpServers": {}`), and a file connect created is gone again. Through the real CLI, for
Claude Code, Codex and Gemini CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import loreline_exe, subprocess_env

#: per assistant: (file under the home, its text before connect or None for no file), laid out
#: the way people write them: inline objects, odd indentation, number spellings, escapes, tabs,
#: CRLF, comments, a file on one line
FILES: dict[str, list[tuple[str, str | None]]] = {
    "claude-code": [
        (".claude/settings.json", '{\n   "model": "opus",\n   "permissions": {"allow": ["Bash(ls)"]},\n'
                                  '   "cleanupPeriodDays": 3e1,\n   "statusLine": {"text": "caf\\u00e9"}\n}\n'),
        (".claude.json", '{"numStartups": 3,"projects": {"/w": {"allowedTools": []}}}'),
    ],
    "codex": [
        (".codex/config.toml", '# my codex\nmodel = "o3"   # fast\n\n[features]\nhooks = true\n\n'
                               '[mcp_servers.docs]\ncommand = "docs-mcp"\n'),
        (".codex/hooks.json", None),
    ],
    "gemini": [(".gemini/settings.json", '{\r\n\t"theme": "Dracula",\r\n\t"general": {"vimMode": true}\r\n}\r\n')],
}
#: a change the person makes in between, per assistant: (file, old text, new text)
EDITS = {
    "claude-code": [(".claude/settings.json", '"model": "opus"', '"model": "sonnet"'),
                    (".claude.json", '"numStartups": 3', '"numStartups": 4')],
    "codex": [(".codex/config.toml", 'model = "o3"', 'model = "o4-mini"')],
    "gemini": [(".gemini/settings.json", '"Dracula"', '"Solarized"')],
}


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = subprocess_env(home / "loreline", HOME=str(home))
    for name in ("CODEX_HOME", "GEMINI_CLI_HOME"):
        env.pop(name, None)
    done = subprocess.run([loreline_exe(), *args], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    return done


def _lay_out(home: Path, tool: str) -> dict[str, bytes | None]:
    for name, text in FILES[tool]:
        if text is not None:
            (home / name).parent.mkdir(parents=True, exist_ok=True)
            (home / name).write_bytes(text.encode())
    return _read(home, tool)


def _read(home: Path, tool: str) -> dict[str, bytes | None]:
    return {name: (home / name).read_bytes() if (home / name).exists() else None for name, _ in FILES[tool]}


@pytest.mark.parametrize("tool", sorted(FILES))
def test_disconnect_gives_back_the_original_bytes(tmp_path: Path, tool: str) -> None:
    before = _lay_out(tmp_path, tool)
    _cli(tmp_path, "connect", tool)
    assert _read(tmp_path, tool) != before  # connect did write
    _cli(tmp_path, "disconnect", tool)
    assert _read(tmp_path, tool) == before
    assert not list((tmp_path / "loreline").rglob("originals/*"))  # the kept copies went with the record


@pytest.mark.parametrize("tool", sorted(FILES))
def test_a_change_made_in_between_stays_and_only_loreline_s_entries_go(tmp_path: Path, tool: str) -> None:
    before = _lay_out(tmp_path, tool)
    _cli(tmp_path, "connect", tool)
    for name, old, new in EDITS[tool]:
        text = (tmp_path / name).read_bytes()
        assert old.encode() in text
        (tmp_path / name).write_bytes(text.replace(old.encode(), new.encode()))
    _cli(tmp_path, "disconnect", tool)
    expected = dict(before)
    for name, old, new in EDITS[tool]:
        original = before[name]
        assert original is not None
        expected[name] = original.replace(old.encode(), new.encode())
    assert _read(tmp_path, tool) == expected


def test_gemini_keeps_no_empty_mcp_servers_and_a_server_of_the_person_s_own(tmp_path: Path) -> None:
    settings = tmp_path / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"theme": "Dracula"}\n')
    _cli(tmp_path, "connect", "gemini")
    _cli(tmp_path, "disconnect", "gemini")
    assert settings.read_text() == '{"theme": "Dracula"}\n'
    _cli(tmp_path, "connect", "gemini")
    data = json.loads(settings.read_text())
    data["mcpServers"]["docs"] = {"command": "docs-mcp"}  # the person adds a server of their own
    settings.write_text(json.dumps(data, indent=2) + "\n")
    _cli(tmp_path, "disconnect", "gemini")
    assert json.loads(settings.read_text()) == {"theme": "Dracula", "mcpServers": {"docs": {"command": "docs-mcp"}}}


def test_a_settings_file_connect_created_is_gone_after_disconnect(tmp_path: Path) -> None:
    _cli(tmp_path, "connect", "gemini")
    assert (tmp_path / ".gemini" / "settings.json").is_file()
    _cli(tmp_path, "disconnect", "gemini")
    assert not (tmp_path / ".gemini").exists()
