"""Pack cleaned turns into chunks a distiller reads in one call.

A chunk is at most `budget` characters of rendered text. Every turn is rendered with the
transcript lines it came from (`L12 [USER] …`, `L14-17 [ASSISTANT] …`) so evidence can cite
lines. Turns are never split unless one alone is over the budget; its pieces keep its label.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

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
    rendered: list[str] = []  # each turn is rendered once: its length decides, its text is joined
    size = 0
    for turn, text in _fit(turns, budget):
        cost = len(text) + 2
        if current and size + cost > budget:
            chunks.append(_make(current, rendered, session_id, path, len(chunks), context_until))
            current, rendered, size = [], [], 0
        current.append(turn)
        rendered.append(text)
        size += cost
    if current:
        chunks.append(_make(current, rendered, session_id, path, len(chunks), context_until))
    return [c for c in chunks if c.line_end > context_until]


def _make(turns: list[Turn], rendered: list[str], session_id: str, path: str, index: int,
          context_until: int) -> Chunk:
    return Chunk(session_id, path, index, tuple(turns), "\n\n".join(rendered), context_until)


def _fit(turns: Sequence[Turn], budget: int) -> Iterator[tuple[Turn, str]]:
    """Each turn with its rendering, any turn longer than the budget cut into budget-sized pieces."""
    room = max(budget - 64, 256)
    for turn in turns:
        text = render(turn)
        if len(text) <= budget:
            yield turn, text
            continue
        for piece in _pieces(turn.text, room):
            part = Turn(turn.speaker, piece, turn.line_start, turn.line_end, turn.timestamp, turn.files, turn.origin)
            yield part, render(part)


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
