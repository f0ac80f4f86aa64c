"""Writers of synthetic transcripts in the shapes documented in research/formats.md.

No real Cursor, pre-envelope Codex or TypeScript-CLI Codex file exists among the fixtures,
so tests write realistic ones here: each record follows the documented shape of its tool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from loreline.models import Turn

REAL_ROOT = Path(__file__).resolve().parent / "fixtures" / "real"


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def shape(turns: tuple[Turn, ...] | list[Turn]) -> list[tuple[str, int, int, str]]:
    """Turns as (speaker, first line, last line, first five words) for exact comparison."""
    return [(t.speaker, t.line_start, t.line_end, " ".join(t.text.split()[:5])) for t in turns]


# -- Codex ----------------------------------------------------------------------------

STAMP = "2025-10-02T10:00:00.000Z"


def envelope(kind: str, payload: dict[str, Any], stamp: str = STAMP) -> dict[str, Any]:
    return {"timestamp": stamp, "type": kind, "payload": payload}


def session_meta(session_id: str, cwd: str) -> dict[str, Any]:
    return envelope("session_meta", {"id": session_id, "timestamp": STAMP, "cwd": cwd, "originator": "codex_cli_rs",
                                     "cli_version": "0.46.0", "instructions": None, "source": "cli"})


def item_message(role: str, text: str) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def response(role: str, text: str) -> dict[str, Any]:
    return envelope("response_item", item_message(role, text))


def user_event(text: str) -> dict[str, Any]:
    return envelope("event_msg", {"type": "user_message", "message": text, "kind": "plain", "images": []})


def agent_event(text: str) -> dict[str, Any]:
    return envelope("event_msg", {"type": "agent_message", "message": text})


def function_call(name: str, arguments: dict[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return envelope("response_item", {"type": "function_call", "name": name, "arguments": json.dumps(arguments),
                                      "call_id": call_id})


def call_output(call_id: str = "call_1", output: str = "ok") -> dict[str, Any]:
    return envelope("response_item", {"type": "function_call_output", "call_id": call_id,
                                      "output": json.dumps({"output": output, "metadata": {"exit_code": 0}})})


def environment(cwd: str) -> dict[str, Any]:
    return response("user", f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>")


# -- Cursor ---------------------------------------------------------------------------


def cursor_user(text: str, *, wrap: bool = True) -> dict[str, Any]:
    body = f"<user_query>\n{text}\n</user_query>" if wrap else text
    return {"role": "user", "message": {"content": [{"type": "text", "text": body}]}}


def cursor_assistant(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "message": {"content": list(blocks)}}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(name: str, **tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "name": name, "input": tool_input}
