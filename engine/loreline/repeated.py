"""Said again: a statement a person repeats from an earlier session of the same project is kept.

A person who tells their assistant the same thing in two sessions has shown that it holds
beyond the task at hand, whatever its wording: that is the evidence the distiller looks for in
one sentence and often cannot find ("Use the --no-verify flag.", "Begin by creating a worktree
with the create_worktree.py CLI"). So when a session is imported, each of its typed sentences is
compared with the typed sentences of the project's earlier sessions (the ledger's most recent
`MAX_SESSIONS`, newest first, at most `MAX_BYTES` of them, read again from their files; a file
that is gone is skipped), and a sentence that says again what one of them said becomes a
candidate, quoted in the person's own words, unless the distiller already proposed it.

A sentence the distiller only suggested (`beliefs.suggestions`) that says again what an earlier
session said is promoted: said in two sessions it is a standing rule whoever the author is, so it
is stored active (`promote`); the same words held from the earlier session are confirmed when it
merges into them (`beliefs`).

"Says again" is judged on content words (lowercased, stop words, one-letter words and file
mentions such as `@Context.md` out; an identifier such as `--no-verify` or `create_worktree.py` is
one word and counts twice): the two sentences share at least `MIN_SHARED` of them and at least
`SIMILARITY` of their union (Jaccard).

What is never kept, said twice or not:
- a question, a hedge, a one-off object ("for now", "this file", "… it.") or narration (the
  distiller's own guards, `rules_patterns`);
- what the person is about to do ("I am going to start a new thread");
- a request for work: an action on the thing at hand ("commit and push it to main") or a sentence
  that opens with a task verb ("take a look at …", "please read …", "fix …", "launch …");
- a sentence in which the person does not speak (no "I", "we", "you", "please", "always",
  "never" …, and no opening instruction verb such as "run", "use", "keep"): pasted error pages and
  logs;
- anything the person did not type (injected bodies, pasted documents: `rules.own_words`,
  `rules_text.statements`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from . import records
from .distill import rules
from .distill import rules_patterns as pat
from .distill.rules_text import statements
from .models import Candidate, Chunk, Evidence, Turn
from .store import Store, ledger

MAX_SESSIONS = 30
#: bytes of earlier session files read again per import, newest first (a long session file can be
#: tens of megabytes; the worker imports in the background, but not without bound)
MAX_BYTES = 32 << 20
MIN_SHARED = 3
SIMILARITY = 0.5
MIN_LEN = 12
MAX_LEN = 400
#: an earlier session sharing at least this share of the shorter one's turns of the person's, word
#: for word (and at least `COPY_MIN` of them), is a copy of this one (forked, continued into a new
#: file, saved twice)
COPY_SHARE = 0.5
COPY_MIN = 3
COPY_MIN_CHARS = 40
POLICY = "said-again@1"
#: said in two sessions: stored active, whatever the distiller's own confidence
CONFIDENCE = 0.9

_WORD = re.compile(r"[^\W_]+(?:[-_./][^\W_]+)*", re.UNICODE)
_STOP = frozenset("""
a about after all also am an and any are as at be been but by can could did do does for from get had has have
he her here him his how i if in into is it its just let lets me more my no not now of ok okay on or our out
please should so some than that the their them then there these they this those to too up us was we were what
when where which while who why will with would you your yes yeah sure thanks thank great good nice
""".split())

#: an action on the thing at hand ("commit and push it to main", "move them to docs/")
_AT_HAND = re.compile(r"\b(?:do|commit|push|merge|run|fix|test|add|move|put|make|create|update|delete|remove|open|"
                      r"close|stage|ship|send|check|review|revert|rename|copy) (?:it|this|that|them|these|those)\b", re.I)
#: a request for work now, not a statement of how things are done ("take a quick look at the layout
#: first", "please read task-02.md", "fix the failing migration")
_TASK = re.compile(r"^(?:(?:ok(?:ay)?|now|then|so|and|great|good|please|pls|let'?s)[,.!]?\s+)*(?:take a (?:\w+ )?look|"
                   r"look at|read|examine|review|investigate|find|show|explain|summari[sz]e|fix|implement|write|test|"
                   r"commit|push|continue|proceed|resume|pick up|try|help|tell|launch|relaunch|start|restart|stop)\b",
                   re.I)
#: the person saying what they are about to do ("I am going to start a new thread"), not how things are done
_INTENT = re.compile(r"^(?:(?:ok(?:ay)?|so|and|now|then)[,.!]?\s+)*(?:i|we)(?:'m| am|'re| are) (?:going to|about to|gonna) "
                     r"(?!(?:use|switch|stick|adopt|keep|standardi[sz]e|always|never)\b)", re.I)
#: a file or person mention (`@Context.md`): a list of them is what the message attached, not what it says
_MENTION = re.compile(r"(?<!\S)@\S+")
#: the person speaking to the assistant: pasted output (error pages, logs, stack frames) has none of these
_VOICE = frozenset("i i'm i'd i'll i've we we're we'll we've our ours us my me you you'll you're your please pls "
                   "use using always never don't dont should must need needs want prefer let's lets".split())
_VOICE_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
#: or an instruction: a sentence that opens with one of these verbs
_INSTRUCTION = re.compile(r"^(?:(?:ok(?:ay)?|now|then|so|and|also)[,.!]?\s+)*(?:run|use|put|keep|make|set|avoid|begin|"
                          r"install|follow|name|place|store|include|add|stick|switch|build|deploy)\b", re.I)
_IDENTIFIER = re.compile(r"\w[-_./]\w")

Signature = frozenset[str]


def signature(sentence: str) -> Signature:
    """The sentence's content words, mentions (`@file.md`) left out."""
    words = _WORD.findall(_MENTION.sub(" ", sentence).lower())
    return frozenset(w for w in words if len(w) > 1 and w not in _STOP)


def typed_sentences(turns: Iterable[Turn]) -> list[tuple[Turn, str]]:
    """The person's own typed sentences that could be a durable statement (`_eligible`)."""
    out: list[tuple[Turn, str]] = []
    for turn in turns:
        if turn.speaker != "user" or getattr(turn, "origin", "prompt") != "prompt" or not rules.own_words(turn.text):
            continue
        out.extend((turn, s) for s in statements(turn.text) if _eligible(s))
    return out


def _eligible(sentence: str) -> bool:
    if not (MIN_LEN <= len(sentence) <= MAX_LEN) or "[REDACTED" in sentence:
        return False
    text = _MENTION.sub(" ", sentence.replace("’", "'").replace("`", "")).strip()
    if not (_VOICE.intersection(_VOICE_WORD.findall(text.lower())) or _INSTRUCTION.match(text)):
        return False
    if text.rstrip().endswith("?") or pat.HEDGE.search(text) or pat.TRANSIENT.search(text):
        return False
    if pat.ONE_OFF.search(text) or pat.NARRATION.match(text) or _AT_HAND.search(text) or _TASK.match(text) \
            or _INTENT.match(text):
        return False
    words = signature(text)
    return len(words) + sum(1 for w in words if _IDENTIFIER.search(w)) >= MIN_SHARED


def earlier(store: Store, project: str, path: Path, turns: Iterable[Turn] = (),
            loose: list[Signature] | None = None) -> list[Signature]:
    """The eligible sentences of the project's earlier sessions, as signatures (`loose`, when
    given, also receives every typed sentence's, task-phrased wishes included). An earlier
    session that is a copy of this one (`turns`: most of the person's turns of the shorter of the
    two are in the other, word for word, as when a session was forked, continued into a new file
    or saved twice) is left out: its sentences were said once, not again."""
    from .assistants import registry

    mine = _prompts(turns)
    found: list[Signature] = []
    budget = MAX_BYTES
    for session_path, tool in ledger.project_sessions(store, project, str(path), MAX_SESSIONS):
        try:
            size = os.stat(session_path).st_size
        except OSError:  # gone since: nothing to compare with
            continue
        if size > budget:
            break
        budget -= size
        try:
            their_turns = registry.parse(Path(session_path), tool=tool).transcript.turns
        except Exception:  # an unreadable earlier session only means less to compare with
            continue
        if _copy(mine, _prompts(their_turns)):
            continue
        found.extend(signature(s) for _, s in typed_sentences(their_turns))
        if loose is not None:
            loose.extend(signature(s) for _, s in loose_sentences(their_turns))
    return found


def loose_sentences(turns: Iterable[Turn]) -> list[tuple[Turn, str]]:
    """The person's typed sentences that could state a wish, however phrased ("reduce the padding
    of the list", "only show these stages"): not questions, not too short or long, no secret."""
    out: list[tuple[Turn, str]] = []
    for turn in turns:
        if turn.speaker != "user" or getattr(turn, "origin", "prompt") != "prompt" or not rules.own_words(turn.text):
            continue
        for sentence in statements(turn.text):
            text = sentence.strip()
            if MIN_LEN <= len(text) <= MAX_LEN and "[REDACTED" not in text and not text.endswith("?") \
                    and len(signature(text)) >= MIN_SHARED:
                out.append((turn, text))
    return out


def said_again_lines(piece: Chunk, loose: Sequence[Signature]) -> tuple[int, ...]:
    """The chunk's lines (newer than its context) holding a sentence that says again, loosely,
    what an earlier session said: a model is told, and keeps it whatever its wording."""
    if not loose:
        return ()
    turns = [t for t in piece.turns if t.line_end > piece.context_until]
    return tuple(dict.fromkeys(turn.line_start for turn, sentence in loose_sentences(turns)
                               if says_again(signature(sentence), loose)))


def _prompts(turns: Iterable[Turn]) -> set[str]:
    """The person's turns long enough to tell two sessions apart ("yes", "continue" are not)."""
    return {text for turn in turns if turn.speaker == "user"
            and len(text := turn.text.strip().lower()) >= COPY_MIN_CHARS}


def _copy(mine: set[str], theirs: set[str]) -> bool:
    """Whether two sessions hold mostly the same turns of the person's, word for word."""
    shared = len(mine & theirs)
    return shared >= COPY_MIN and shared >= COPY_SHARE * min(len(mine), len(theirs))


def says_again(words: Signature, before: Sequence[Signature]) -> bool:
    for other in before:
        common = words & other
        # a shared identifier (`--no-verify`, `create_worktree.py`) is rare enough to count twice
        shared = len(common) + sum(1 for w in common if _IDENTIFIER.search(w))
        if shared >= MIN_SHARED and shared >= SIMILARITY * len(words | other):
            return True
    return False


def promote(piece: Chunk, before: Sequence[Signature], proposed: Sequence[Candidate]) -> list[Candidate]:
    """The distiller's candidates, each one below `CONFIDENCE` that quotes a typed sentence saying
    again what an earlier session said raised to it (a suggestion repeated becomes a standing rule)."""
    if not before:
        return list(proposed)
    typed = {sentence.strip().lower() for _, sentence in
             typed_sentences(t for t in piece.turns if t.line_end > piece.context_until)}
    out: list[Candidate] = []
    for c in proposed:
        quote = c.evidence[0].quote.strip().lower() if c.evidence else ""
        if c.confidence < CONFIDENCE and quote in typed and says_again(signature(quote), before):
            c = records.replace(c, confidence=CONFIDENCE)
        out.append(c)
    return out


def candidates(piece: Chunk, before: Sequence[Signature], proposed: Sequence[Candidate]) -> list[Candidate]:
    """The chunk's sentences that say again what an earlier session said, not already proposed."""
    if not before:
        return []
    taken = {c.text.strip().lower() for c in proposed}
    out: list[Candidate] = []
    turns = [t for t in piece.turns if t.line_end > piece.context_until]
    for turn, sentence in typed_sentences(turns):
        if sentence.strip().lower() in taken or not says_again(signature(sentence), before):
            continue
        found = rules.score(sentence)
        kind = found[0] if found is not None else "preference"
        out.append(Candidate(kind, sentence, (Evidence(turn.line_start, sentence),), POLICY, CONFIDENCE))
        taken.add(sentence.strip().lower())
    return out
