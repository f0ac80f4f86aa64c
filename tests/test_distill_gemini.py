"""The gemini backend at the process boundary: a stand-in `gemini` prints what the real Gemini CLI
0.61.0 printed (tests/fixtures/limits: an answer, a quota error, a refused key) and reports what
it was given (its command line, stdin, environment and the sealed home it was pointed at). The
real CLI against a loopback Gemini API is tests/e2e_real/test_gemini_backend.py.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from loreline import backends, environment, pipeline
from loreline.assistants.gemini import login
from loreline.assistants.gemini.distill import GeminiClient, GeminiDistiller, GeminiSettings, limit_of
from loreline.capture import cooldown
from loreline.distill.anthropic import RECORD_MEMORIES
from loreline.errors import AuthError, ModelOutputError
from loreline.samples.builder import ClaudeSession
from loreline.store import Store

LIMITS = Path(__file__).parent / "fixtures" / "limits"
PNPM = "The shop repo installs packages with pnpm, never npm."

STAND_IN = '''#!{python}
import json, os, pathlib, sys
here = pathlib.Path(__file__).parent
home = pathlib.Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini"
seen = {{"argv": sys.argv[1:], "stdin": sys.stdin.read(),
        "env": {{k: os.environ.get(k) for k in ("LORELINE_OFF", "TMPDIR", "GEMINI_API_KEY", "GEMINI_CLI_HOME")}},
        "settings": json.loads((home / "settings.json").read_text()),
        "system": pathlib.Path(os.environ["GEMINI_SYSTEM_MD"]).read_text(),
        "links": {{p.name: os.readlink(p) for p in home.iterdir() if p.is_symlink()}},
        "cwd": os.getcwd(), "cwd_files": os.listdir(os.getcwd())}}
with (here / "seen.jsonl").open("a") as out:
    out.write(json.dumps(seen) + "\\n")
sys.stdout.write((here / "stdout").read_text())
sys.stderr.write((here / "stderr").read_text())
sys.exit(int((here / "code").read_text()))
'''


def stand_in(folder: Path, *, stdout: str = "", stderr: str = "", code: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (("stdout", stdout), ("stderr", stderr), ("code", str(code))):
        (folder / name).write_text(text, encoding="utf-8")
    cli = folder / "gemini"
    cli.write_text(STAND_IN.format(python=sys.executable), encoding="utf-8")
    cli.chmod(0o755)
    return cli


def answering(folder: Path, answer: str) -> Path:
    """The real CLI's result document with `answer` as the model's reply text."""
    result = json.loads((LIMITS / "gemini-answer.json").read_text(encoding="utf-8"))
    result["response"] = answer
    return stand_in(folder, stdout=json.dumps(result, indent=2))


def seen(cli: Path) -> list[dict[str, Any]]:
    path = cli.with_name("seen.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def client(cli: Path, tmp_path: Path, auth: str = "gemini-api-key") -> GeminiClient:
    return GeminiClient(GeminiSettings(cli=cli, workdir=tmp_path / "work", auth=auth, timeout_seconds=10))


@pytest.fixture
def their_gemini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The person's Gemini CLI folder (`$GEMINI_CLI_HOME/.gemini`), with a hook and a GEMINI.md."""
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "person"))
    for name in ("GEMINI_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT"):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "person" / ".gemini"
    folder.mkdir(parents=True)
    (folder / "settings.json").write_text(json.dumps({"hooks": {"BeforeAgent": [{"hooks": [
        {"type": "command", "command": "touch /nowhere"}]}]}, "mcpServers": {"theirs": {"command": "x"}}}))
    (folder / "GEMINI.md").write_text("- their memory\n")
    return folder


def test_an_answer_is_saved_and_the_run_is_sealed_from_the_persons_gemini(
        tmp_path: Path, their_gemini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = ClaudeSession(str(tmp_path / "shop"))
    line = s.user("In this repo we use pnpm, never npm.")
    s.assistant("Noted.")
    path = s.write(tmp_path / "shop.jsonl")
    record = {"memories": [{"kind": "preference", "text": PNPM, "evidence": [{"line": line, "quote": "we use pnpm"}]}]}
    cli = answering(tmp_path / "bin", "```json\n" + json.dumps(record) + "\n```")
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-test-key-0123456789")
    with Store() as store:
        report = pipeline.import_sessions(store, [(path, "claude-code")],
                                          pipeline.Options(distiller=GeminiDistiller(client(cli, tmp_path))))
        assert [t for (t,) in store.rows("SELECT text FROM memories")] == [PNPM]
        assert store.one("SELECT backend, model, calls, input_tokens, output_tokens FROM usage") == (
            "gemini", "gemini-2.5-flash", 1, 40, 10)  # the result's stats
    assert report.added == 1
    [run] = seen(cli)
    assert run["argv"] == ["-p", "Reply now with that one JSON object.", "--output-format", "json", "--model",
                           "gemini-2.5-flash", "--extensions", "none", "--skip-trust"]
    assert f"L{line} [USER] In this repo we use pnpm" in run["stdin"] and "Call record_memories" in run["stdin"]
    assert "record_memories" in run["system"] and '"evidence"' in run["system"]
    assert run["settings"]["tools"] == {"core": []} and run["settings"]["hooksConfig"] == {"enabled": False}
    assert run["settings"]["mcpServers"] == {} and run["settings"]["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert run["env"]["LORELINE_OFF"] == "1" and run["env"]["GEMINI_API_KEY"] == "AIza-test-key-0123456789"
    assert run["env"]["GEMINI_CLI_HOME"] != str(their_gemini.parent) and run["env"]["TMPDIR"].startswith(
        run["env"]["GEMINI_CLI_HOME"])
    assert run["cwd_files"] == [] and run["links"] == {}
    assert not list((tmp_path / "work" / "gemini-runs").iterdir())  # the run's home is gone
    assert sorted(p.name for p in their_gemini.iterdir()) == ["GEMINI.md", "settings.json"]


def test_a_google_login_is_linked_into_the_run_never_copied(tmp_path: Path, their_gemini: Path) -> None:
    (their_gemini / "oauth_creds.json").write_text('{"refresh_token": "1//secret"}')
    assert login.login() == "oauth-personal"
    cli = answering(tmp_path / "bin", '{"memories": []}')
    client(cli, tmp_path, auth="oauth-personal").call_tool(RECORD_MEMORIES, "system", "user")
    [run] = seen(cli)
    assert run["links"] == {"oauth_creds.json": str(their_gemini / "oauth_creds.json")}
    assert run["settings"]["security"]["auth"]["selectedType"] == "oauth-personal"
    assert "1//secret" not in json.dumps(run)


def test_how_gemini_is_logged_in_is_read_offline(their_gemini: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert login.login() is None
    monkeypatch.setenv("GEMINI_API_KEY", "AIza-test-key-0123456789")
    assert login.login() == "gemini-api-key"
    with environment.background():  # background work never uses the assistant's key from the environment
        assert login.login() is None
    (their_gemini / "settings.json").write_text(json.dumps({"security": {"auth": {"selectedType": "oauth-personal"}}}))
    assert login.login() is None  # the chosen Google login has no credentials here
    (their_gemini / "oauth_creds.json").write_text("{}")
    with environment.background():
        assert login.login() == "oauth-personal"


def test_a_quota_error_starts_the_backends_cooldown_until_the_time_it_names(tmp_path: Path, their_gemini: Path) -> None:
    cli = stand_in(tmp_path / "bin", stderr=(LIMITS / "gemini-quota.stderr").read_text(), code=173)
    s = ClaudeSession(str(tmp_path / "shop"))
    s.user("In this repo we always run the linter before committing.")
    s.assistant("Noted.")
    before = time.time()
    with Store() as store:
        report = pipeline.import_sessions(store, [(s.write(tmp_path / "s.jsonl"), "claude-code")], pipeline.Options(
            distiller=GeminiDistiller(client(cli, tmp_path)), attended=False))
    assert report.imported == 0 and "Gemini CLI reported its usage limit" in report.deferred[0][1]
    held = cooldown.of("gemini")
    assert held is not None and held["kind"] == "usage limit" and held["by"] == "Gemini CLI"
    assert held["said"].startswith("Quota exceeded for quota metric") and held["said"].endswith("retry in 2h3m4s.")
    assert before + 7384 + 60 <= held["until"] <= time.time() + 7384 + 61
    assert len(seen(cli)) == 1


def test_a_refused_key_is_one_line(tmp_path: Path, their_gemini: Path) -> None:
    cli = stand_in(tmp_path / "bin", stderr=(LIMITS / "gemini-refused.stderr").read_text(), code=145)
    with pytest.raises(AuthError, match=r"^Gemini CLI's login was refused or has expired: run `gemini`"):
        client(cli, tmp_path).call_tool(RECORD_MEMORIES, "system", "user")


@pytest.mark.parametrize("reply", ["Sure! Here are the memories.", '{"memories": "none"}', "[]",
                                   '```json\n{"memories": []}'])
def test_an_answer_outside_the_schema_is_a_model_output_error(tmp_path: Path, their_gemini: Path, reply: str) -> None:
    with pytest.raises(ModelOutputError):
        client(answering(tmp_path / "bin", reply), tmp_path).call_tool(RECORD_MEMORIES, "system", "user")


def test_two_unusable_answers_defer_the_session(tmp_path: Path, their_gemini: Path) -> None:
    cli = answering(tmp_path / "bin", "I found nothing.")
    s = ClaudeSession(str(tmp_path / "shop"))
    s.user("In this repo we always run the linter before committing.")
    s.assistant("Noted.")
    with Store() as store:
        report = pipeline.import_sessions(store, [(s.write(tmp_path / "s.jsonl"), "claude-code")],
                                          pipeline.Options(distiller=GeminiDistiller(client(cli, tmp_path))))
    assert report.imported == 0 and "gave no usable answer twice" in report.deferred[0][1]
    assert len(seen(cli)) == 2 and cooldown.of("gemini") is None


def test_an_unreadable_failure_is_an_outage_not_a_limit() -> None:
    assert limit_of("Error: connect ECONNREFUSED 127.0.0.1:443") is None
    assert limit_of("Resource has been exhausted (e.g. check quota).", 429) is not None


def test_auto_takes_gemini_after_claude_code_and_codex_and_names_the_plan(tmp_path: Path, their_gemini: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    cli = answering(tmp_path / "bin", '{"memories": []}')
    monkeypatch.setenv("PATH", str(cli.parent))
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    assert backends.plan().backend == "rules"
    (their_gemini / "oauth_creds.json").write_text("{}")
    chosen = backends.plan()
    assert chosen.backend == "gemini" and chosen.reason == (
        f"auto: no API key and no `claude` on PATH; Gemini CLI is logged in (oauth-personal) at {cli}")
    said = backends.consent()
    assert "by gemini-2.5-flash through Gemini CLI under your Gemini CLI login (oauth-personal)" in said
    assert "that is your Google account's Gemini plan, so these runs count against its usage limits" in said
