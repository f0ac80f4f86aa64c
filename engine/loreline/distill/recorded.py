"""Recorded model answers: every model request written to a folder, and answered from it.

A request is what Loreline sends through a `ToolCaller`: a system prompt, a user message, a
tool (its name, description and input schema) and a model name. Its **key** is the SHA-256 of
those four, canonically serialised, so a changed prompt, schema or model is a new key and an
answer recorded for the old one is never used for it. A set is a plain folder a person can
read:

    DIR/set.json               what the answers stand for: {"model": …, "written_by": …, …}
    DIR/prompts/<sha>.md       each system prompt once (requests name it by its hash)
    DIR/requests/<key>.json    what was sent: tool, model, system prompt's hash, user message
    DIR/answers/<key>.json     what came back: {"answer": {…the tool's input…}, "by": …, "at": …}

Two callers satisfy `ToolCaller`:
- `RecordedCaller` answers from the folder. A request without an answer is written to
  `requests/` (so the set lists what it lacks), remembered in `missing`, and raises
  `MissingAnswerError`, a `ModelOutputError`: the caller treats it as no usable answer, and
  the report counts and names it; nothing is ever answered in its place.
- `RecordingCaller` wraps a real client: it writes each request before the call and the
  answer after it.

Tokens: a recorded answer reports what the call would have cost, estimated as characters / 4
of what was sent and of the answer (`Usage`), so per-session cost figures can be computed from a
recorded run. Writes are atomic (a temporary file renamed), so concurrent runs share a folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..errors import ConfigError, ModelOutputError
from ..models import Usage
from . import ToolCaller, UsageMeter
from .anthropic import ToolDistiller
from .caller import MeteredCaller

SET_FILE = "set.json"
#: every request this process found no answer for: (folder, key, tool name), for the reports
MISSING: list[tuple[str, str, str]] = []


class MissingAnswerError(ModelOutputError):
    """No answer is recorded for this request (it is listed in the set's requests/)."""


def request_key(tool: Mapping[str, Any], system: str, user: str, model: str) -> str:
    """The SHA-256 that names one request: system prompt, user message, tool and model."""
    body = json.dumps({"system": system, "user": user, "tool": tool, "model": model},
                      sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8", "surrogatepass")).hexdigest()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class AnswerSet:
    """One folder of recorded requests and answers."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def meta(self) -> dict[str, Any]:
        path = self.folder / SET_FILE
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as err:
            raise ConfigError(f"{path} is not a readable answer set description: {err}") from None
        return found if isinstance(found, dict) else {}

    def model(self) -> str:
        """The model the answers stand for (set.json's `model`)."""
        model = self.meta().get("model")
        if not isinstance(model, str) or not model.strip():
            raise ConfigError(f"{self.folder / SET_FILE} names no model: write "
                              '{"model": "<the model the answers stand for>"} there')
        return model.strip()

    def save_request(self, key: str, tool: Mapping[str, Any], system: str, user: str, model: str) -> None:
        path = self.folder / "requests" / f"{key}.json"
        if path.exists():
            return
        prompt = self.folder / "prompts" / f"{_sha(system)}.md"
        if not prompt.exists():
            _write(prompt, system)
        _write(path, json.dumps({"key": key, "model": model, "tool": tool, "system_sha256": _sha(system),
                                 "user": user, "first_sent": _now()}, ensure_ascii=False, indent=1) + "\n")

    def save_answer(self, key: str, answer: Mapping[str, Any], by: str) -> None:
        _write(self.folder / "answers" / f"{key}.json",
               json.dumps({"answer": answer, "by": by, "at": _now()}, ensure_ascii=False, indent=1) + "\n")

    def answer(self, key: str) -> dict[str, Any] | None:
        path = self.folder / "answers" / f"{key}.json"
        try:
            found = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as err:
            raise ModelOutputError(f"the recorded answer {path} is unreadable: {err}") from None
        answer = found.get("answer") if isinstance(found, dict) else None
        if not isinstance(answer, dict):
            raise ModelOutputError(f"the recorded answer {path} holds no answer object")
        return answer

    def request(self, key: str) -> dict[str, Any]:
        found: dict[str, Any] = json.loads((self.folder / "requests" / f"{key}.json").read_text(encoding="utf-8"))
        return found

    def system_prompt(self, sha: str) -> str:
        return (self.folder / "prompts" / f"{sha}.md").read_text(encoding="utf-8")

    def keys(self, what: str = "requests") -> Iterator[str]:
        folder = self.folder / what
        if folder.is_dir():
            yield from sorted(p.stem for p in folder.glob("*.json"))

    def pending(self) -> list[str]:
        """Requests written to the set that have no answer yet."""
        answered = set(self.keys("answers"))
        return [key for key in self.keys("requests") if key not in answered]


def _estimate(system: str, user: str, tool: Mapping[str, Any], answer: Mapping[str, Any]) -> Usage:
    sent = len(system) + len(user) + len(json.dumps(tool))
    return Usage(1, sent // 4, 0, 0, len(json.dumps(answer)) // 4)


class RecordedCaller(MeteredCaller):
    """Answers every call from an `AnswerSet`; satisfies `ToolCaller`. No model, no network."""

    SERVICE = "the recorded answers"

    def __init__(self, answers: AnswerSet, model: str | None = None, *, meter: UsageMeter | None = None) -> None:
        super().__init__(meter)
        self.answers = answers
        self.model = model or answers.model()
        #: keys of the requests this run asked for and found no answer to, in order
        self.missing: list[str] = []
        self.answered = 0

    def __repr__(self) -> str:
        return f"RecordedCaller({str(self.answers.folder)!r}, model={self.model!r})"

    def _answer(self, tool: Mapping[str, Any], system: str, user: str, max_tokens: int) -> tuple[Any, Usage]:
        key = request_key(tool, system, user, self.model)
        found = self.answers.answer(key)
        if found is None:
            self.answers.save_request(key, tool, system, user, self.model)
            if key not in self.missing:
                self.missing.append(key)
                if (str(self.answers.folder), key, str(tool.get("name"))) not in MISSING:
                    MISSING.append((str(self.answers.folder), key, str(tool.get("name"))))
            raise MissingAnswerError(f"no recorded answer for request {key[:12]} "
                                     f"({tool.get('name')}) in {self.answers.folder}")
        self.answered += 1
        return found, _estimate(system, user, tool, found)

    def _accept(self, answer: Any, tool: Mapping[str, Any]) -> dict[str, Any]:
        """A recorded answer is held to the tool's schema as a live answer is."""
        from .schema import problems

        found = problems(answer, tool.get("input_schema", {}))
        if found:
            raise ModelOutputError(f"the recorded {tool.get('name')} answer breaks its schema: {found[0]}")
        result: dict[str, Any] = answer
        return result

    def _max_output_tokens(self) -> int:
        return 4096


class RecordedDistiller(ToolDistiller):
    """The distill prompt and contract over a `RecordedCaller` (its policy names the model the
    answers stand for, so a store knows which memories came from recorded answers)."""

    name = "recorded"

    def __init__(self, client: RecordedCaller) -> None:
        super().__init__(client, client.model)


class RecordingCaller:
    """Writes every request (and, once it comes back, its answer) of a real client to a set."""

    def __init__(self, inner: ToolCaller, answers: AnswerSet, model: str, by: str) -> None:
        self.inner = inner
        self.answers = answers
        self.model = model
        self.by = by

    @property
    def meter(self) -> UsageMeter | None:
        return self.inner.meter

    @meter.setter
    def meter(self, value: UsageMeter | None) -> None:
        self.inner.meter = value

    def call_tool(self, tool: Mapping[str, Any], system: str, user: str, *,
                  max_tokens: int | None = None) -> tuple[dict[str, Any], Usage]:
        key = request_key(tool, system, user, self.model)
        self.answers.save_request(key, tool, system, user, self.model)
        answer, spent = self.inner.call_tool(tool, system, user, max_tokens=max_tokens)
        self.answers.save_answer(key, answer, self.by)
        return answer, spent


def render_request(answers: AnswerSet, key: str) -> str:
    """One request as the model would read it: instructions, the tool to call, the message."""
    req = answers.request(key)
    tool = req["tool"]
    return (f"# System prompt\n\n{answers.system_prompt(req['system_sha256'])}\n\n"
            f"# The tool you must call\n\nName: {tool.get('name')}\nDescription: {tool.get('description', '')}\n"
            f"Input schema:\n```json\n{json.dumps(tool.get('input_schema', {}), indent=1)}\n```\n\n"
            f"# User message\n\n{req['user']}\n")
