"""One gate for every way a memory comes in.

A transcript import, `loreline import memories`, a teammate's memory arriving, a native
memory file, the MCP `remember` tool and a person's edit (the CLI's `edit`, `approve --text`,
the language server's edit) all store text through `admit`: the store's writers call it
(`store.memories.insert`, `reword`, `add_provenance`, `audit`), so no path can skip it,
whatever status its source claims.

`admit(text)` gives the text as it may be stored and why it must wait for a person's review:

* hidden content goes (control characters and the terminal sequences they start, invisible
  and bidi characters, hidden markup: `privacy.sanitize`);
* secrets become typed markers (`privacy.redact`);
* text that would steer the assistant somewhere dangerous is held (`privacy.steering`: remote
  code, a disabled safety check, data sent out, credentials, a weakened quality gate);
* text shaped like someone else's material (a chat log, a comment, a lead-in naming where it
  was pasted from: `privacy.quoted`) is held too: it is no one's own statement.

`clean(value)` does the first two for text shown beside a memory (an excerpt, a reason, an
audit row); `field(value)` for a name (a tool, a session id or path, an extractor). `mask_held(excerpt, held)` cuts from an excerpt each sentence that
would itself be held or that carries the text of a held memory: what a surface may show of a
sibling of a held memory (two memories taken from one message share its words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .. import records
from .quoted import CLOSE as QUOTED_CLOSE
from .quoted import OPEN as QUOTED_OPEN
from .quoted import mark_quoted
from .identifiers import stored
from .redact import redact
from .sanitize import sanitize
from .steering import hold_reason

#: what a surface shows in place of text held for review
WITHHELD = "[held for review]"
_SENTENCE_END_RE = re.compile(r"((?<=[.!?])\s+|\n)")
_WORD_RE = re.compile(r"\w{3,}")


@records.record
class Admitted:
    """A text as it may be stored, and why it waits for a person's review (None: it need not)."""

    text: str
    hold: str | None


def admit(text: str) -> Admitted:
    """The text cleaned and redacted, with the reason it is held, if any."""
    kept = clean(text).strip()
    return Admitted(kept, hold_reason(kept) or pasted_reason(kept))


def clean(value: str) -> str:
    """A stored field without hidden content or secrets."""
    return redact(sanitize(value)) if value else value


def field(value: str | None) -> str | None:
    """A name stored beside a memory (a tool, a session id or path, an extractor, who confirmed
    it): no hidden characters, no secret, as `privacy.identifiers.stored` writes them."""
    return stored(sanitize(value)) if value else value


def pasted_reason(text: str) -> str | None:
    """Why a memory's own text reads as someone else's material (a chat log, a code comment,
    a passage introduced as pasted); else None."""
    low = (text.encode("ascii") if text.isascii() else text.encode("ascii", "replace")).lower()
    marked = mark_quoted(text, low)
    if marked is text or QUOTED_OPEN not in marked:
        return None
    start = marked.index(QUOTED_OPEN) + len(QUOTED_OPEN)
    passage = " ".join(marked[start:].split(QUOTED_CLOSE, 1)[0].split())
    return f"reads as pasted material, not anyone's own statement: {passage[:60]}"


def mask_held(excerpt: str, held: Iterable[str] = ()) -> str:
    """The excerpt with each sentence that would be held, or that carries most of the words of
    a held memory's text, replaced by `WITHHELD`."""
    words = [set(_WORD_RE.findall(text.lower())) for text in held]
    words = [w for w in words if w]
    pieces = _SENTENCE_END_RE.split(excerpt)  # sentence, separator, sentence, …
    changed = False
    for index in range(0, len(pieces), 2):
        sentence = pieces[index]
        if sentence.strip() and (hold_reason(sentence) is not None or _carries(sentence, words)):
            pieces[index] = WITHHELD
            changed = True
    return "".join(pieces) if changed else excerpt


def _carries(sentence: str, held: list[set[str]]) -> bool:
    mine = set(_WORD_RE.findall(sentence.lower()))
    return any(len(mine & words) >= max(2, (2 * len(words) + 2) // 3) for words in held)
