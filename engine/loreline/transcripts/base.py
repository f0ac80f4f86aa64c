"""Shared pieces of the transcript parsers: building turns and reading a file.

`TurnBuilder` accumulates turns while records stream past. Assistant content that arrives
as several lines of one message is merged into one turn; tool-call file paths without any
prose are held until the next assistant turn (or attached to the previous one at the end),
so no touch is lost.
"""

from __future__ import annotations

from ..models import Speaker, Turn


class TurnBuilder:
    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self._open: Turn | None = None
        self._loose_files: list[str] = []

    def add(self, speaker: Speaker, text: str, lineno: int, stamp: str | None, files: tuple[str, ...] = ()) -> None:
        self._close()
        self.turns.append(Turn(speaker, text, lineno, lineno, stamp, files))

    def add_assistant(self, text: str, lineno: int, stamp: str | None, files: list[str], *, merge: bool) -> None:
        """Add one line of assistant output; `merge` continues the open message."""
        if merge and self._open is not None:
            joined = "\n\n".join(t for t in (self._open.text, text) if t)
            self._open = Turn(
                "assistant", joined, self._open.line_start, lineno, self._open.timestamp,
                _unique(self._open.files + tuple(files)),
            )
            return
        if merge and not text:
            self._loose_files.extend(files)
            return
        self._close()
        if text:
            self._open = Turn("assistant", text, lineno, lineno, stamp, _unique(tuple(self._loose_files + files)))
            self._loose_files = []
        else:
            self._loose_files.extend(files)

    def finish(self) -> list[Turn]:
        self._close()
        if self._loose_files:
            for index in range(len(self.turns) - 1, -1, -1):
                turn = self.turns[index]
                if turn.speaker == "assistant":
                    self.turns[index] = Turn(
                        turn.speaker, turn.text, turn.line_start, turn.line_end, turn.timestamp,
                        _unique(turn.files + tuple(self._loose_files)),
                    )
                    break
            self._loose_files = []
        return self.turns

    def _close(self) -> None:
        if self._open is not None:
            self.turns.append(self._open)
            self._open = None


def _unique(paths: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(paths))
