"""Pack cleaned turns into chunks a distiller reads in one call.

A chunk is at most `budget` characters of rendered text. Every turn is rendered with the
transcript lines it came from (`L12 [USER] …`, `L14-17 [ASSISTANT] …`, `L347 [RAN] docker exec …
→ ok`, `L350 [EDITED] src/list.tsx`, `L352 [DENIED] Bash: rm -rf build`) so evidence can cite
lines. Turns are never split unless one alone is over the budget; its pieces keep its label.

The session's actions are an account, not a log (`account`): the same action (same text and
outcome) done again is one line with ` (×N)` at its first occurrence, and the account takes at
most `ACTION_SHARE` of the session's prose characters, or `ACTION_FLOOR` characters when that is
more (a short session still shows its commands). When over, the actions kept are chosen by
`actions.priority` (refused calls, failed commands, test runs, edits, then commands that went
well; earlier first) and `[N more actions left out]` is said once, where the first one was.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .models import ACTION, ACTION_LABELS, Chunk, Turn

BUDGET = 24_000
ACTION_SHARE = 0.20
ACTION_FLOOR = 1_500
LEFT_OUT = "[{n} more actions left out]"
#: a rendered entry: a turn and its text, or None and the note that actions were left out
Entry = tuple["Turn | None", str]


def label(turn: Turn) -> str:
    lines = f"L{turn.line_start}" if turn.line_start == turn.line_end else f"L{turn.line_start}-{turn.line_end}"
    if turn.speaker == ACTION:
        return f"{lines} [{ACTION_LABELS.get(turn.origin, turn.origin.upper())}]"
    return f"{lines} [{turn.speaker.upper()}]"


def render(turn: Turn) -> str:
    return f"{label(turn)} {turn.text}"


def account(turns: Sequence[Turn]) -> list[Entry]:
    """Each turn as a distiller reads it, rendered: repeated actions folded, the actions bounded."""
    folded = _folded(turns)
    kept = _kept(folded)
    entries: list[Entry] = []
    left_out = sum(1 for turn in folded if turn.speaker == ACTION) - len(kept)
    for index, turn in enumerate(folded):
        if turn.speaker != ACTION or index in kept:
            entries.append((turn, render(turn)))
        elif left_out:
            entries.append((None, LEFT_OUT.format(n=left_out)))
            left_out = 0
    return entries


def left_out(turns: Sequence[Turn]) -> int:
    """How many actions (after folding) the account leaves out to stay within its bound."""
    folded = _folded(turns)
    return sum(1 for turn in folded if turn.speaker == ACTION) - len(_kept(folded))


def _folded(turns: Sequence[Turn]) -> list[Turn]:
    """The turns with each repeated action counted at its first occurrence, `(×N)`."""
    counts: dict[str, int] = {}
    for turn in turns:
        if turn.speaker == ACTION:
            counts[turn.text] = counts.get(turn.text, 0) + 1
    if all(n == 1 for n in counts.values()):
        return list(turns)
    out: list[Turn] = []
    seen: set[str] = set()
    for turn in turns:
        if turn.speaker != ACTION:
            out.append(turn)
        elif turn.text not in seen:
            seen.add(turn.text)
            n = counts[turn.text]
            text = f"{turn.text} (×{n})" if n > 1 else turn.text
            out.append(Turn(turn.speaker, text, turn.line_start, turn.line_end, turn.timestamp, turn.files, turn.origin))
    return out


def _kept(turns: list[Turn]) -> set[int]:
    """The positions of the actions the account keeps within its bound."""
    from .transcripts.actions import priority

    prose = sum(len(turn.text) for turn in turns if turn.speaker != ACTION)
    room = max(ACTION_FLOOR, int(ACTION_SHARE * prose))
    costs = {i: len(render(turn)) + 2 for i, turn in enumerate(turns) if turn.speaker == ACTION}
    if sum(costs.values()) <= room:
        return set(costs)
    kept: set[int] = set()
    for index in sorted(costs, key=lambda i: (priority(turns[i]), i)):
        if costs[index] <= room:
            kept.add(index)
            room -= costs[index]
    return kept


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
    for turn, text in _fit(account(turns), budget):
        cost = len(text) + 2
        if current and turn is not None and size + cost > budget:
            chunks.append(_make(current, rendered, session_id, path, len(chunks), context_until))
            current, rendered, size = [], [], 0
        if turn is not None:
            current.append(turn)
        rendered.append(text)
        size += cost
    if current:
        chunks.append(_make(current, rendered, session_id, path, len(chunks), context_until))
    return [c for c in chunks if c.line_end > context_until]


def _make(turns: list[Turn], rendered: list[str], session_id: str, path: str, index: int,
          context_until: int) -> Chunk:
    return Chunk(session_id, path, index, tuple(turns), "\n\n".join(rendered), context_until)


def _fit(entries: Sequence[Entry], budget: int) -> Iterator[Entry]:
    """Each entry, any turn longer than the budget cut into budget-sized pieces."""
    room = max(budget - 64, 256)
    for turn, text in entries:
        if turn is None or len(text) <= budget:
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
