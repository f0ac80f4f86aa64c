"""How `loreline status` shows capture: where hooks are installed, the spool and the queue
(the facts come from `loreline.status.capture_state`)."""

from __future__ import annotations

from ..api.assistants import ALL as ASSISTANTS

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Any


def lines(info: dict[str, Any]) -> list[str]:
    """What `loreline status` prints about capture; problems first, marked `!!`."""
    out = [f"!! {line}" for line in _problems(info)]
    out.append(f"Capture    {_where(info['hooks'])}")
    queue = info["queue"]
    deferred = f"{queue['deferred']} deferred"
    if queue["deferred"] and queue["deferred_reason"]:
        deferred += f" ({queue['deferred_reason']}; next try {queue['deferred_until']})"
    out.append(f"           last capture {info['last_capture'] or 'never'} · queue {queue['queued']} queued"
               f" · {deferred} · {queue['failed']} failed · spool {info['spool']['waiting']} waiting")
    if queue.get("short_skipped"):
        out.append(f"           {queue['short_skipped']} short sessions skipped (fewer prompts than "
                   "capture.min_prompts): `loreline import sessions` takes them")
    out.append(f"Prompts    {_prompts(info['prompt_recall'])}")
    return out


def _prompts(state: dict[str, Any]) -> str:
    """How the prompt hook picks memories (`capture.prompt_recall`)."""
    if state["mode"] == "off":
        return "no memories added to prompts (capture.prompt_recall = off)"
    if state["mode"] == "words":
        return "memories added by the prompt's words (capture.prompt_recall = words)"
    if state["warm"]:
        return "memories added by meaning; the warm recall process is running"
    return "memories added by meaning once the warm recall process runs (the next session starts it); by words until then"


def _where(hooks: dict[str, Any]) -> str:
    found = []
    for key, label in (("claude_code_user", "Claude Code user settings"),
                       ("claude_code_project", "Claude Code project settings")):
        if hooks[key]["events"]:
            found.append(f"{label} ({hooks[key]['path']})")
    for assistant in ASSISTANTS:
        state = hooks.get(assistant.name)
        if assistant.name != "claude-code" and state and state["installed"]:
            kind = "hooks" if state.get("events") else "notify"
            found.append(f"{assistant.label} {kind} ({state['path']})")
    if not found:
        return "hooks not installed: run `loreline connect claude-code` (or `loreline connect codex`)"
    return "hooks in " + "; ".join(found)


def _problems(info: dict[str, Any]) -> list[str]:
    problems = []
    if info["settings_error"]:
        problems.append(f"capture is off until the config is fixed: {info['settings_error']}")
    if info["paused_here"]:
        problems.append("LORELINE_OFF is set in this shell: sessions started from here are not captured")
    if info["spool"]["dropped"]:
        problems.append(f"{info['spool']['dropped']} hook events were dropped because the spool was full "
                        f"(capture.spool_max_mb), the last at {info['spool']['last_drop']}; "
                        "`loreline worker --drain` empties the spool")
    for job in info["queue"]["failed_jobs"]:
        problems.append(f"capture job {job['id']} failed ({job['session']}): {job['error']}")
    return problems
