"""Pack cleaned turns into chunks a distiller reads in one call.

A chunk is at most `budget` characters of rendered text. Every turn is rendered with the
transcript lines it came from (`L12 [USER] …`, `L14-17 [ASSISTANT] …`) so evidence can cite
lines. Turns are never split unless one alone is over the budget; its pieces keep its label.
"""

from __future__ import annotations

from collections.abc import Sequence

from .models import Chunk, Turn

BUDGET = 24_000


def label(turn: Turn) -> str:
    lines = f"L{turn.line_start}" if turn.line_start == turn.line_end else f"L{turn.line_start}-{turn.line_end}"
    return f"{lines} [{turn.speaker.upper()}]"


def render(turn: Turn) -> str:
    return f"{label(turn)} {turn.text}"


def chunk(
    turns: Sequence[Turn],
    *,
    session_id: str,
    path: str,
    budget: int = BUDGET,
    context_until: int = 0,
) -> list[Chunk]:
    """Split `turns` into chunks; chunks made only of context turns are dropped."""
    chunks: list[Chunk] = []
    current: list[Turn] = []
    size = 0
    for turn in _fit(turns, budget):
        cost = len(render(turn)) + 2
        if current and size + cost > budget:
            chunks.append(_make(current, session_id, path, len(chunks), context_until))
            current, size = [], 0
        current.append(turn)
        size += cost
    if current:
        chunks.append(_make(current, session_id, path, len(chunks), context_until))
    return [c for c in chunks if c.line_end > context_until]


def _make(turns: list[Turn], session_id: str, path: str, index: int, context_until: int) -> Chunk:
    text = "\n\n".join(render(t) for t in turns)
    return Chunk(session_id, path, index, tuple(turns), text, context_until)


def _fit(turns: Sequence[Turn], budget: int) -> list[Turn]:
    """Turns, with any turn longer than the budget cut into budget-sized pieces."""
    out: list[Turn] = []
    room = max(budget - 64, 256)
    for turn in turns:
        if len(render(turn)) <= budget:
            out.append(turn)
            continue
        for piece in _pieces(turn.text, room):
            out.append(Turn(turn.speaker, piece, turn.line_start, turn.line_end, turn.timestamp, turn.files,
                            turn.origin))
    return out


def _pieces(text: str, room: int) -> list[str]:
    pieces: list[str] = []
    while len(text) > room:
        cut = text.rfind("\n", 0, room)
        if cut < room // 2:
            cut = text.rfind(" ", 0, room)
        if cut < room // 2:
            cut = room
        pieces.append(text[:cut].strip())
        text = text[cut:].strip()
    if text:
        pieces.append(text)
    return pieces
