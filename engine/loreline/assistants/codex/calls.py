"""What a Codex tool call did, for the reader's action turns (`transcripts.actions`).

A call (`function_call`, `custom_tool_call`, `local_shell_call`) is an action when it runs a
shell command (`shell`, `shell_command`, `exec_command`, `local_shell_call`: the command line,
a list joined, `bash -lc` unwrapped) or applies a patch (`apply_patch`, also when sent through a
shell call: the files its `*** Add/Update/Delete File:` and `*** Move to:` headers name). Its
outcome is read from its output (`function_call_output` / `custom_tool_call_output`: the JSON
`{"output": …, "metadata": {"exit_code": N}}` of 0.3x–0.4x, or text framed with `Exit code: N` or
`Process exited with code N`) or from the `exec_command_end` / `patch_apply_end` event.
`exec command rejected by user` and `patch rejected by user` are the person's refusals.
"""

from __future__ import annotations

from typing import Any

import orjson

from ...transcripts import actions, outcomes
from ...transcripts.paths import is_path

PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
#: what Codex writes as the output of a call the person refused at its approval prompt
REFUSALS = ("exec command rejected by user", "patch rejected by user")


def call_action(item: dict[str, Any]) -> actions.Call | None:
    """The action a Codex tool call is: a patch's files edited, a shell command ran, or a call
    shown only if refused."""
    name = item.get("name")
    name = name if isinstance(name, str) else ""
    if item.get("type") == "custom_tool_call":
        patch = item.get("input")
        return actions.edit_call("apply_patch", patch_paths(patch)) if isinstance(patch, str) else None
    if item.get("type") == "local_shell_call":
        action = item.get("action")
        args: Any = action if isinstance(action, dict) else {}
        name, workdir = "local_shell_call", args.get("working_directory")
    else:
        args = arguments(item.get("arguments"))
        args = args if isinstance(args, dict) else {}
        workdir = args.get("workdir")
    if name == "apply_patch" and isinstance(args.get("input"), str):
        return actions.edit_call("apply_patch", patch_paths(args["input"]))
    command = args.get("command", args.get("cmd"))
    if name in actions.SHELL_TOOLS or name == "local_shell_call":
        line = actions.command_line(command)
        if "*** Begin Patch" in line:
            return actions.edit_call("apply_patch", patch_paths(line))
        return actions.shell_call(name, command, workdir if isinstance(workdir, str) else None)
    return actions.call(name, args)


def output_result(raw: Any) -> actions.Result:
    """What a `function_call_output` / `custom_tool_call_output` says of its call."""
    text, code = output_text(raw)
    if text.strip() in REFUSALS:
        return actions.Result(denied=True)
    code = code if code is not None else outcomes.exit_code_in(text)
    failed = code not in (None, 0) or text.startswith(("apply_patch verification failed", "patch rejected"))
    return actions.Result(text, failed=failed, exit_code=code)


def output_text(raw: object) -> tuple[str, int | None]:
    """A Codex tool output's text and exit code: the JSON-in-a-string of 0.3x–0.4x
    (`{"output": …, "metadata": {"exit_code": N}}`), a list of text items, or plain text."""
    if isinstance(raw, list):
        raw = "\n".join(str(item.get("text", "")) for item in raw if isinstance(item, dict))
    if not isinstance(raw, str):
        return "", None
    if raw.startswith("{") and '"metadata"' in raw[-400:]:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return raw, None
        if isinstance(value, dict):
            meta = value.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            text = value.get("output")
            return (text if isinstance(text, str) else ""), (code if isinstance(code, int) else None)
    return raw, None


def event_result(payload: dict[str, Any]) -> actions.Result:
    """What an `exec_command_end` / `patch_apply_end` event says of its call."""
    output = next((payload[k] for k in ("aggregated_output", "formatted_output", "stderr", "stdout")
                   if isinstance(payload.get(k), str) and payload[k]), "")
    if output.strip() in REFUSALS:
        return actions.Result(denied=True)
    if payload.get("type") == "patch_apply_end":
        return actions.Result(output, failed=payload.get("success") is False)
    code = payload.get("exit_code")
    code = code if isinstance(code, int) else None
    return actions.Result(output, failed=code not in (None, 0), exit_code=code)


def arguments(raw: Any) -> Any:
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str) or len(raw) > 1_000_000:
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def patch_paths(patch: str) -> list[str]:
    """Paths named by `*** Add/Update/Delete File:` and `*** Move to:` headers of a patch."""
    found: list[str] = []
    for line in patch.splitlines():
        if line.startswith("*** ") and line.startswith(PATCH_HEADERS):
            path = line.split(": ", 1)[1].strip()
            if is_path(path):
                found.append(path)
    return found
