"""Action lines end to end, on a real-shaped Claude Code session: what a model backend is sent (the
real Anthropic client against a local fake Messages API), what the store keeps, and how each
surface shows an action line (`loreline transcript`, `loreline show`, the viewer, the language
server's hover). Command-line secrets planted in the session reach none of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from loreline import pipeline
from loreline.api import Loreline
from loreline.cli.main import main
from loreline.distill.anthropic import AnthropicDistiller
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline_lsp import hover
from loreline_view import pages
from tests.fake_anthropic import FakeAnthropic, fake_anthropic, model_client  # noqa: F401  (fixture)

PENDING = ("command-line redaction lands with privacy.redact_command; it keeps `user:pass` as a placeholder "
           "a document writes, not a secret")
#: (command line with a secret in it, the secret)
PLANTED = {
    "PGPASSWORD": ("PGPASSWORD=Vq7rT2mXw9Lp psql -h db.internal -U app -c 'select count(*) from orders'",
                   "Vq7rT2mXw9Lp"),
    "bearer-header": ('curl -s -H "Authorization: Bearer 9f8e7d6c5b4a39281716a5b4c3d2e1f0" '
                      "https://api.example.com/v1/orders", "9f8e7d6c5b4a39281716a5b4c3d2e1f0"),
    "curl-u": ("curl -u deploy:Qm8vR2pLxT https://ci.example.com/job/shop/build", "Qm8vR2pLxT"),
    "curl-u-user-pass": ("curl -u user:pass https://ci.example.com/job/shop/build", "user:pass"),
}
#: in the first error line of a failed command, the one line of output a distiller reads
ERROR_SECRET = "Zt5yQ8wPn3"


def tool_call(s: ClaudeSession, command: str, result: str, *, error: bool = False, text: str | None = None) -> int:
    msg, tool_id = f"msg_{s.next_line}", f"toolu_{s.next_line:04d}"
    if text:
        s.raw(s._envelope("assistant", message={"id": msg, "role": "assistant", "type": "message",
                                                "content": [{"type": "text", "text": text}]}))
    line = s.raw(s._envelope("assistant", message={"id": msg, "role": "assistant", "type": "message", "content": [
        {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": command, "description": "run"}}]}))
    s.raw(s._envelope("user", message={"role": "user", "content": [
        {"tool_use_id": tool_id, "type": "tool_result", "content": result, "is_error": error}]},
        toolUseResult=f"Error: {result}" if error else {"stdout": result, "stderr": "", "interrupted": False}))
    return line


def session(tmp_path: Path, planted: str) -> tuple[Path, dict[str, int]]:
    s = ClaudeSession(str(tmp_path / "shop"))
    at = {"ask": s.user("the orders count looks off, check the db and the api")}
    at["up"] = tool_call(s, "docker compose up -d db", "Container shop-db-1  Started", text="Starting the db first.")
    at["planted"] = tool_call(s, planted, " count \n-------\n   42\n(1 row)\n")
    at["failed"] = tool_call(s, "uv run python scripts/check_orders.py", "Exit code 1\nTraceback (most recent call "
                             "last):\n  File \"scripts/check_orders.py\", line 3\nConnectionError: could not reach "
                             f"postgres://app:{ERROR_SECRET}@db.internal:5432/shop", error=True)
    at["said"] = s.assistant("The db has 42 orders; the check script cannot reach it.")[0]
    return s.write(tmp_path / "shop.jsonl"), at


def imported(tmp_path: Path, fake: FakeAnthropic, planted: str) -> tuple[Path, dict[str, int], int]:
    path, at = session(tmp_path, planted)
    fake.enqueue(FakeAnthropic.tool("record_memories", {"memories": [{
        "kind": "procedure", "text": "Start the shop database with `docker compose up -d db` before querying it.",
        "evidence": [{"line": at["up"], "quote": "docker compose up -d db → ok"}]}]}))
    with Store() as store:
        options = pipeline.Options(distiller=AnthropicDistiller(model_client(fake)))
        report = pipeline.import_sessions(store, [(path, "claude-code")], options)
        assert report.added == 1, report
        memory_id = int(store.scalar("SELECT id FROM memories"))
    return path, at, memory_id


def stored_bytes(home: Path) -> bytes:
    return b"".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


@pytest.mark.parametrize("form", [
    pytest.param(form, marks=pytest.mark.xfail(reason=PENDING, strict=True)) if form == "curl-u-user-pass" else form
    for form in PLANTED])
def test_a_planted_command_secret_reaches_no_request_no_store_and_no_output(
        form: str, tmp_path: Path, loreline_home: Path, fake_anthropic: FakeAnthropic,
        capsys: pytest.CaptureFixture[str]) -> None:
    command, secret = PLANTED[form]
    path, at, _ = imported(tmp_path, fake_anthropic, command)
    sent = "\n".join(r.user_text for r in fake_anthropic.requests)
    assert f"L{at['planted']} [RAN] " in sent  # the command is in the excerpt, its secret is not
    assert main(["transcript", str(path)]) == 0 and main(["transcript", str(path), "--json"]) == 0
    shown = capsys.readouterr().out
    for where, text in (("model request", sent), ("transcript output", shown),
                        ("store", stored_bytes(loreline_home).decode("utf-8", "replace"))):
        assert secret not in text, where
        assert ERROR_SECRET not in text, where


def test_a_model_reads_action_lines_and_every_surface_shows_them_as_actions(
        tmp_path: Path, loreline_home: Path, fake_anthropic: FakeAnthropic, capsys: pytest.CaptureFixture[str]) -> None:
    path, at, memory_id = imported(tmp_path, fake_anthropic, PLANTED["PGPASSWORD"][0])
    sent = fake_anthropic.requests[0].user_text
    assert f"L{at['up'] - 1} [ASSISTANT] Starting the db first." in sent
    assert f"L{at['up']} [RAN] docker compose up -d db → ok" in sent
    assert f"L{at['failed']} [RAN] uv run python scripts/check_orders.py → exit 1: ConnectionError: could not reach " \
           "postgres://app:" in sent
    assert "(1 row)" not in sent and "Traceback" not in sent  # tool output stays out beyond one line

    assert main(["show", str(memory_id)]) == 0
    assert "> [RAN] docker compose up -d db → ok" in capsys.readouterr().out

    assert main(["transcript", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"L{at['up']} [RAN] docker compose up -d db → ok" in text
    assert "kept 6 turns (1 user, 2 assistant, 3 actions)" in text
    assert main(["transcript", str(path), "--json"]) == 0
    turns = json.loads(capsys.readouterr().out)["turns"]
    assert {"speaker": "action", "origin": "ran", "line_start": at["up"],
            "text": "docker compose up -d db → ok"}.items() <= next(t for t in turns if t["line_start"] == at["up"]
                                                                  and t["speaker"] == "action").items()

    with Loreline() as lore:
        memory = lore.memory(memory_id)
    assert memory.provenance[0].excerpt == "[RAN] docker compose up -d db → ok"
    page = pages.transcript(memory, 0)
    assert '<div class="turn action ran cited"><span class="who">RAN · ' in page
    assert '<div class="turn assistant"><span class="who">assistant · ' in page
    assert "> [RAN] docker compose up -d db → ok" in hover.markdown([memory])


def test_the_viewer_shows_a_refused_call_apart(tmp_path: Path, loreline_home: Path, fake_anthropic: FakeAnthropic) -> None:
    s = ClaudeSession(str(tmp_path / "shop"))
    s.user("tidy the repo")
    msg = "msg_x"
    line = s.raw(s._envelope("assistant", message={"id": msg, "role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_x", "name": "Bash", "input": {"command": "git push --force"}}]}))
    s.raw(s._envelope("user", message={"role": "user", "content": [{
        "tool_use_id": "toolu_x", "type": "tool_result", "is_error": True,
        "content": "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a "
                   "file edit, the new_string was NOT written to the file). To tell you how to proceed, the user "
                   "said:\nnever force-push, open a PR"}]}))
    path = s.write(tmp_path / "tidy.jsonl")
    fake_anthropic.enqueue(FakeAnthropic.tool("record_memories", {"memories": [{
        "kind": "preference", "text": "Never force-push; open a PR instead.",
        "evidence": [{"line": line, "quote": "git push --force"}, {"line": line + 1, "quote": "never force-push"}]}]}))
    with Store() as store:
        options = pipeline.Options(distiller=AnthropicDistiller(model_client(fake_anthropic)))
        assert pipeline.import_sessions(store, [(path, "claude-code")], options).added == 1
        memory_id = int(store.scalar("SELECT id FROM memories"))
    with Loreline() as lore:
        memory = lore.memory(memory_id)
    assert memory.provenance[0].excerpt == "[DENIED] Bash: git push --force"
    page = pages.transcript(memory, 0)
    assert '<div class="turn action denied cited"><span class="who">DENIED · ' in page
    assert '<div class="turn user cited"><span class="who">user · ' in page

