"""Stale memories in the editor, through standard LSP features: one diagnostic at the top of
a file that stale memories rest on, and its code actions (confirm, forget, show provenance)
as `workspace/executeCommand` commands any client can run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lsprotocol import types

from loreline.models import Memory

SOURCE = "loreline"
CODE = "loreline.stale"
CONFIRM = "loreline.stale.confirm"
FORGET = "loreline.stale.forget"
SHOW_PROVENANCE = "loreline.stale.provenance"
COMMANDS = (CONFIRM, FORGET, SHOW_PROVENANCE)
MAX_LISTED = 3
TOP = types.Range(types.Position(0, 0), types.Position(0, 0))


def diagnostics(memories: list[Memory]) -> list[types.Diagnostic]:
    """The file's one diagnostic (Information), or none when no memory about it is stale."""
    if not memories:
        return []
    count = len(memories)
    noun = "memory" if count == 1 else "memories"
    listed = "; ".join(f"#{m.id} {_short(m.text)} ({m.stale})" for m in memories[:MAX_LISTED])
    more = f"; and {count - MAX_LISTED} more" if count > MAX_LISTED else ""
    message = f"{count} {noun} about this file may be stale since it changed: {listed}{more}"
    return [types.Diagnostic(range=TOP, message=message, severity=types.DiagnosticSeverity.Information,
                             source=SOURCE, code=CODE, data={"ids": [m.id for m in memories]})]


def _short(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def code_actions(diagnostics_given: Sequence[types.Diagnostic]) -> list[types.CodeAction]:
    """Confirm, Forget and Show provenance for each memory of Loreline's diagnostics."""
    actions: list[types.CodeAction] = []
    for diag in diagnostics_given:
        if diag.code != CODE:
            continue
        ids = ids_of(diag.data)
        diag = types.Diagnostic(range=diag.range, message=diag.message, source=SOURCE, code=CODE, data={"ids": ids},
                                severity=types.DiagnosticSeverity.Information)
        for memory_id in ids:
            actions += [_action(f"Loreline: confirm #{memory_id} still holds", CONFIRM, memory_id, diag, True),
                        _action(f"Loreline: forget #{memory_id}", FORGET, memory_id, diag, False),
                        _action(f"Loreline: show provenance of #{memory_id}", SHOW_PROVENANCE, memory_id, diag,
                                False)]
    return actions


def ids_of(data: Any) -> list[int]:
    """The memory ids a diagnostic carries (a client sends `data` back as it got it)."""
    ids = data.get("ids") if isinstance(data, dict) else None
    return [i for i in ids if type(i) is int][:50] if isinstance(ids, list) else []


def _action(title: str, command: str, memory_id: int, diag: types.Diagnostic, preferred: bool) -> types.CodeAction:
    return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                            is_preferred=preferred or None,
                            command=types.Command(title=title, command=command, arguments=[memory_id]))


def memory_id_arg(args: tuple[Any, ...], command: str) -> int:
    """The one integer argument of a command, or a one-line error."""
    if len(args) == 1 and isinstance(args[0], list) and len(args[0]) == 1:
        args = tuple(args[0])
    if len(args) != 1 or type(args[0]) is not int:
        raise ValueError(f"{command}: expects one memory id")
    return int(args[0])
