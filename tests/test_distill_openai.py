"""The openai-compatible backend: its real HTTP client against a loopback chat server that
holds requests to the protocol as Ollama, llama.cpp's server and vLLM do (`evallib.chat_server`).

Each test scripts the server, runs the real pipeline into a real SQLite store (or one call
of the client), and asserts the outcome: saved, asked again another way, refused with a
clear ModelOutputError, retried, deferred, cooled down, or stopped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from evallib.chat_server import Asked, ChatServer, Raw
from loreline import backends, config, pipeline
from loreline.capture import cooldown
from loreline.distill.anthropic import RECORD_MEMORIES, instructions
from loreline.distill.openai_compat import ChatClient, ChatDistiller, ChatSettings
from loreline.errors import AuthError, ConfigError, DistillError, ModelOutputError, RateLimitedError, UsageLimitError
from loreline.models import ImportReport
from loreline.samples.builder import ClaudeSession
from loreline.store import Store

MODEL = "qwen2.5:7b"
PNPM = "The shop repo installs packages with pnpm, never npm."


class Script:
    """Answers in order, then `default` (an empty record by default)."""

    def __init__(self, *answers: Any) -> None:
        self.answers = list(answers)
        self.default: Any = {"memories": []}

    def __call__(self, asked: Asked) -> Any:
        answer = self.answers.pop(0) if self.answers else self.default
        return answer(asked) if callable(answer) else answer


@pytest.fixture
def script() -> Script:
    return Script()


@pytest.fixture
def server(script: Script) -> Iterator[ChatServer]:
    with ChatServer(script) as running:
        yield running


def client(server: ChatServer, key: str | None = None, **bounds: Any) -> ChatClient:
    settings = ChatSettings(base_url=server.url, model=MODEL, **{"timeout_seconds": 5.0, "max_retries": 2,
                                                                 "retry_max_seconds": 5.0, **bounds})
    return ChatClient(settings, key, "LORELINE_OPENAI_API_KEY" if key else None)


@pytest.fixture
def shop(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    s = ClaudeSession(str(tmp_path / "shop"))
    lines = {"pnpm": s.user("In this repo we use pnpm, never npm, because the lockfile is pnpm-lock.yaml."),
             "ack": s.assistant("Understood: I will use pnpm for every install.")[0]}
    return s.write(tmp_path / "shop.jsonl"), lines


def pnpm(line: int) -> dict[str, Any]:
    return {"memories": [{"kind": "preference", "text": PNPM, "evidence": [{"line": line, "quote": "we use pnpm, never npm"}]}]}


def run(store: Store, chat: ChatClient, *paths: Path, attended: bool = True) -> ImportReport:
    options = pipeline.Options(distiller=ChatDistiller(chat), attended=attended)
    return pipeline.import_sessions(store, [(p, "claude-code") for p in paths], options)


def saved(store: Store) -> list[str]:
    return [str(t) for (t,) in store.rows("SELECT text FROM memories ORDER BY id")]


def bodies(server: ChatServer) -> list[dict[str, Any]]:
    return [r["body"] for r in server.requests]


# -- a good answer, and what was sent -------------------------------------------------------------


def test_an_answer_in_the_json_schema_is_saved_and_the_request_follows_the_protocol(
        server: ChatServer, script: Script, shop: tuple[Path, dict[str, int]]) -> None:
    path, at = shop
    script.answers.append(Raw(answer=pnpm(at["pnpm"]), usage={"prompt_tokens": 900, "completion_tokens": 60,
                                                             "prompt_tokens_details": {"cached_tokens": 300}}))
    with Store() as store:
        report = run(store, client(server), path)
        assert saved(store) == [PNPM]
        row = store.one("SELECT backend, model, calls, input_tokens, cache_read_tokens, output_tokens FROM usage")
    assert report.added == 1 and report.rejected == {} and report.failed == [] and report.deferred == []
    assert row == ("openai-compatible", MODEL, 1, 600, 300, 60)  # the response's own usage
    [request] = server.requests
    body = request["body"]
    assert body["model"] == MODEL and body["max_tokens"] == 4096 and body["stream"] is False
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert body["messages"][0]["content"] == instructions()
    assert f"L{at['pnpm']} [USER] In this repo we use pnpm" in body["messages"][1]["content"]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "record_memories", "description": RECORD_MEMORIES["description"],
        "schema": RECORD_MEMORIES["input_schema"], "strict": False}}
    assert "tools" not in body and "authorization" not in request["headers"]  # no key: none sent


def test_a_key_is_sent_as_a_bearer_token_and_never_shown(server: ChatServer, script: Script) -> None:
    key = "sk-local-test-0123456789abcdef"
    chat = client(server, key)
    chat.call_tool(RECORD_MEMORIES, "system", "user")
    assert server.requests[0]["headers"]["authorization"] == f"Bearer {key}"
    assert key not in repr(chat)
    script.answers.append(Raw(status=401, body={"error": {"message": "invalid api key"}}))
    with pytest.raises(AuthError) as refused:
        chat.call_tool(RECORD_MEMORIES, "system", "user")
    said = str(refused.value)
    assert key not in said and "LORELINE_OPENAI_API_KEY" in said and "loreline auth set --for openai-compatible" in said


def test_a_server_without_json_schema_is_asked_with_a_forced_tool_call_from_then_on(
        script: Script, shop: tuple[Path, dict[str, int]]) -> None:
    path, at = shop
    script.answers.append(pnpm(at["pnpm"]))
    with ChatServer(script, refuse_json_schema=True) as server, Store() as store:
        chat = client(server)
        report = run(store, chat, path)
        assert saved(store) == [PNPM] and report.added == 1
        chat.call_tool(RECORD_MEMORIES, "system", "user")  # the next call asks the tool way at once
    first, second, third = bodies(server)
    assert "response_format" in first and "tools" not in first
    assert "response_format" not in second and second["tool_choice"] == {"type": "function",
                                                                          "function": {"name": "record_memories"}}
    assert second["tools"][0]["function"]["parameters"] == RECORD_MEMORIES["input_schema"]
    assert "response_format" not in third and "tools" in third


# -- bad model output: a clear ModelOutputError, asked once more, counted ---------------------------


ECHO = json.dumps(RECORD_MEMORIES["input_schema"])


@pytest.mark.parametrize(("reply", "said"), [
    (Raw(content='Sure! Here are the memories: {"memories": []}'), "not one JSON object"),
    (Raw(content="{'memories': [],}"), "not one JSON object"),
    (Raw(content=ECHO), "echoed the record_memories schema back"),
    (Raw(content='{"memories": [{"kind": "preference", "text": "The shop', finish_reason="length"), "cut at the output limit"),
    (Raw(content='{"memories": [{"kind": "preference", "text": "pnpm"}]}'), "breaks its schema: answer.memories[0] lacks 'evidence'"),
    (Raw(content='["memories"]'), "not a JSON object"),
    (Raw(content=""), "holds no record_memories text"),
    (Raw(body={"object": "chat.completion", "choices": []}, status=200), "holds no record_memories text"),
])
def test_bad_model_output_is_a_clear_model_output_error(server: ChatServer, script: Script, reply: Raw,
                                                         said: str) -> None:
    script.answers.append(reply)
    with pytest.raises(ModelOutputError, match=said.replace("[", r"\[").replace("]", r"\]")):
        client(server).call_tool(RECORD_MEMORIES, "system", "user")


def test_a_bad_answer_is_asked_again_then_counted_not_a_crash(server: ChatServer, script: Script,
                                                              shop: tuple[Path, dict[str, int]]) -> None:
    path, _ = shop
    script.answers += [Raw(content=ECHO), Raw(content="I could not find any memories.")]
    with Store() as store:
        report = run(store, client(server), path)
        assert saved(store) == []
    assert len(server.requests) == 2
    assert report.rejected == {"malformed-output": 1} and report.failed == [] and report.imported == 1


def test_an_answer_without_usage_is_counted_by_its_characters(server: ChatServer, script: Script) -> None:
    script.answers.append(Raw(answer={"memories": []}, usage=None))
    _, spent = client(server).call_tool(RECORD_MEMORIES, "system", "u" * 4000)
    assert spent.calls == 1 and spent.input_tokens > 1000 and spent.output_tokens > 0


# -- outages and limits ----------------------------------------------------------------------------


def test_a_429_asking_a_long_wait_starts_the_backends_cooldown(server: ChatServer, script: Script,
                                                               shop: tuple[Path, dict[str, int]]) -> None:
    path, _ = shop
    script.answers.append(Raw(status=429, body={"error": {"message": "too many requests"}},
                              headers={"retry-after": "600"}))
    before = time.time()
    with Store() as store:
        report = run(store, client(server), path, attended=False)
        assert report.imported == 0 and len(report.deferred) == 1
        assert "the OpenAI-compatible server reported its rate limit" in report.deferred[0][1]
        held = cooldown.of("openai-compatible")
        assert held is not None and held["kind"] == "rate limit" and before + 600 <= held["until"] <= time.time() + 661
        again = run(store, client(server), path, attended=False)  # a new run waits without a call
        assert again.imported == 0 and again.deferred[0][1].startswith("COOLDOWN: ")
    assert len(server.requests) == 1


def test_a_short_retry_after_and_a_5xx_are_waited_out_then_answered(server: ChatServer, script: Script) -> None:
    script.answers += [Raw(status=429, body={"error": "slow down"}, headers={"retry-after": "0"}),
                       Raw(status=503, body={"error": {"message": "loading model"}}, headers={"retry-after": "0"})]
    answer, _ = client(server).call_tool(RECORD_MEMORIES, "system", "user")
    assert answer == {"memories": []} and len(server.requests) == 3


def test_an_outage_defers_and_later_calls_fail_fast(server: ChatServer, script: Script) -> None:
    script.default = Raw(status=500, body={"error": {"message": "CUDA out of memory"}}, headers={"retry-after": "0"})
    chat = client(server, max_retries=1)
    with pytest.raises(RateLimitedError, match=r"HTTP 500 CUDA out of memory, 2 attempts"):
        chat.call_tool(RECORD_MEMORIES, "system", "user")
    with pytest.raises(RateLimitedError, match="not tried"):
        chat.call_tool(RECORD_MEMORIES, "system", "user")
    assert len(server.requests) == 2 and cooldown.of("openai-compatible") is None  # an outage is no limit


def test_a_server_that_hangs_is_cut_at_the_timeout(server: ChatServer, script: Script) -> None:
    script.answers.append(Raw(answer={"memories": []}, delay=2.0))
    started = time.monotonic()
    with pytest.raises(RateLimitedError, match=r"no answer within 0.3s"):
        client(server, timeout_seconds=0.3, max_retries=0).call_tool(RECORD_MEMORIES, "system", "user")
    assert time.monotonic() - started < 1.5


def test_nothing_listening_defers_with_the_address(tmp_path: Path) -> None:
    chat = ChatClient(ChatSettings(base_url="http://127.0.0.1:9/v1", model=MODEL, max_retries=0))
    with pytest.raises(RateLimitedError, match=r"cannot connect to http://127.0.0.1:9/v1"):
        chat.call_tool(RECORD_MEMORIES, "system", "user")


def test_a_wrong_model_or_path_is_one_line_naming_the_settings(server: ChatServer, script: Script) -> None:
    script.answers.append(Raw(status=404, body={"error": {"message": "model 'qwen9' not found"}}))
    with pytest.raises(DistillError, match=r"HTTP 404: model 'qwen9' not found\); check distill.openai_base_url"):
        client(server).call_tool(RECORD_MEMORIES, "system", "user")


# -- the loopback server holds requests to the protocol ---------------------------------------------


def post(server: ChatServer, body: Any) -> httpx.Response:
    return httpx.post(server.url + "/chat/completions", json=body, timeout=5)


@pytest.mark.parametrize(("change", "said"), [
    (lambda b: b.pop("messages"), "messages is required"),
    (lambda b: b.update(messages=[]), "messages is required"),
    (lambda b: b.update(messages=[{"content": "hi"}]), "each message needs a role"),
    (lambda b: b.pop("model"), "model is required"),
    (lambda b: b["response_format"]["json_schema"]["schema"].update(type="dict"), "is not a JSON type"),
    (lambda b: b["response_format"]["json_schema"]["schema"].update(required=["nothing"]), "required names"),
    (lambda b: b["response_format"]["json_schema"].update(name="record memories!"), "needs a name"),
    (lambda b: b.update(stream=True), "stream is not supported"),
])
def test_the_loopback_server_refuses_what_the_real_servers_refuse(server: ChatServer,
                                                                  change: Callable[[dict[str, Any]], Any],
                                                                  said: str) -> None:
    from loreline.distill.openai_compat import request

    body = json.loads(json.dumps(request(RECORD_MEMORIES, "system", "user", MODEL, 100)))
    change(body)
    answered = post(server, body)
    assert answered.status_code == 400 and said in answered.json()["error"]["message"]


def test_the_loopback_server_never_sends_an_answer_outside_the_schema(server: ChatServer, script: Script) -> None:
    from loreline.distill.openai_compat import request

    script.answers.append({"memories": "none"})
    answered = post(server, request(RECORD_MEMORIES, "system", "user", MODEL, 100))
    assert answered.status_code == 500 and "breaks the schema" in answered.json()["error"]["message"]


# -- choosing it ----------------------------------------------------------------------------------


def configure(url: str, model: str = MODEL) -> None:
    config.set_value("distill.openai_base_url", url)
    config.set_value("distill.openai_model", model)


def test_it_needs_a_server_and_a_model_and_says_which_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LORELINE_OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("LORELINE_OPENAI_MODEL", raising=False)
    with pytest.raises(ConfigError, match=r"needs a server URL .* and a model"):
        backends.plan("openai-compatible")
    config.set_value("distill.openai_base_url", "http://127.0.0.1:11434/v1")
    with pytest.raises(ConfigError, match=r"needs a model \(distill.openai_model"):
        backends.plan("openai-compatible")


def test_auto_never_picks_it_unless_it_is_configured(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    assert backends.plan().backend == "rules"
    configure("http://127.0.0.1:11434/v1")
    chosen = backends.plan()
    assert chosen.backend == "openai-compatible"
    assert chosen.reason == f"auto: an OpenAI-compatible server is configured ({MODEL} at http://127.0.0.1:11434/v1)"
    assert backends.describe().startswith(f"openai-compatible ({MODEL} at http://127.0.0.1:11434/v1) — auto: ")
    said = backends.consent()
    assert f"by {MODEL} through the OpenAI-compatible server http://127.0.0.1:11434/v1, on this machine" in said
    assert "never leave it" in said and "At most 100 model calls" in said
    configure("https://llm.example.com/v1")
    assert "at llm.example.com: the redacted excerpts are sent there" in backends.consent()


def test_the_environment_configures_it_when_the_config_does_not(monkeypatch: pytest.MonkeyPatch,
                                                               server: ChatServer, script: Script) -> None:
    monkeypatch.setenv("LORELINE_OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("LORELINE_OPENAI_MODEL", MODEL)
    monkeypatch.setenv("LORELINE_OPENAI_API_KEY", "sk-env-key-0123456789")
    choice = backends.choose("openai-compatible")
    assert choice.distiller.name == "openai-compatible" and choice.key_source == "LORELINE_OPENAI_API_KEY"
    assert choice.judge is not None
    assert choice.distiller.distill.__self__.client.call_tool(RECORD_MEMORIES, "s", "u")[0] == {"memories": []}  # type: ignore[attr-defined]
    assert server.requests[0]["headers"]["authorization"] == "Bearer sk-env-key-0123456789"
