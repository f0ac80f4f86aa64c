"""Quoted and pasted material is data, not the speaker's statement.

`mark_quoted` (run by `sanitize`) wraps what a person quotes or pastes between `[quoted]` and
`[/quoted]`, so every backend reads it as material and evidence validation
(`loreline.evidence`) refuses a memory that only quoted text supports:

* markdown blockquotes: a run of lines starting with `>`;
* text introduced as someone else's: "the docs page says: ...", "According to the wiki: ...",
  "here is the page: ..." — to the end of the paragraph (the next one when the colon ends it),
  or to a line where the person speaks again ("In this repo we …", "Is that right?");
* a pasted email (two header lines such as `From:` / `Subject:`, or a forwarded-message line):
  to the end of the text;
* log lines: a run of lines that start with a timestamp or a `[INFO]`-style level;
* pasted text told by its shape, without any quote mark:
  - a lead-in naming where it comes from: "pasted from the ticket:", "notes from our wiki:",
    "copied from the Slack thread:", "this is from the GitHub issue:" (as above, to the end of
    the passage);
  - a markdown heading or a `#` comment line (a README, a wiki page, an issue, a script): from
    there to the end of the text, except a last paragraph in which the person speaks again
    ("Can you …", "Is that right?");
  - code comments: a run of `//` lines, a closed `/* … */` block;
  - a chat log: two or more lines that start with a speaker's name (`bob: …`,
    `[10:42] alice: …`, `<carol> …`), or one with a time stamp, from the first to the end of
    the last one's paragraph.

Idempotent: a region already inside markers is left alone. `unquoted` gives the text with the
quoted regions removed (what the speaker said themselves).
"""

from __future__ import annotations

import re

OPEN, CLOSE = "[quoted]", "[/quoted]"
_MARKED_RE = re.compile(re.escape(OPEN) + r".*?(?:" + re.escape(CLOSE) + r"|\Z)", re.DOTALL)
_BLOCKQUOTE_RE = re.compile(r"(?m)^[ \t]{0,3}>(?![>=]).*(?:\n[ \t]{0,3}>(?![>=]).*)*")
_LOG_GATE_RE = re.compile(rb"\[(?:info|warn|error|debug|trace|fatal)\]")


def _rev(words: str) -> str:
    return "|".join(word[::-1] for word in words.split())


# Read right to left from a colon: "<verb>:" and an email header line ("From:", "Subject:") that
# starts a line; each attempt at a colon fails within a few characters.
_REVERSED_RE = re.compile(
    rb":[ \t]{0,4}(?:(?:" + _rev("says said states stated reads wrote writes claims suggests recommends "
                                 "mentions").encode() + rb")(?![a-z])"
    rb"|(?P<header>(?:morf|tcejbus)(?=\n|\Z)))"
)
# ... and, only in text that has the words: "according to <...>:", "here is the <noun>:"
_REVERSED_PHRASE_RE = re.compile(
    rb":[ \t]{0,4}(?:[^\n:]{1,60}?[ \t]ot[ \t]{1,4}gnidrocca(?![a-z])"
    rb"|(?:" + _rev("page docs doc article email e-mail message log output post answer comment issue readme "
                    "text snippet").encode()
    + rb")[^\n:]{0,40}?(?:si[ \t]{1,4}ereh|s'ereh|si[ \t]{1,4}woleb|detsap|gnitsap)(?![a-z]))"
)
_PARAGRAPH_END_RE = re.compile(r"\n[ \t]*\n")
# a line in which the person speaks again after a pasted passage
_OWN_LINE_RE = re.compile(r"(?im)\n[ \t]*(?:in this (?:repo|project)|we|i|i'm|my|our|is (?:that|this|it)|should|"
                          r"can you|could you|please|so|does|do|what|why|how)\b")
_EMAIL_HEADER_RE = re.compile(r"(?im)^(?:from|to|cc|subject|date|sent|reply-to):[ \t]+\S.*\n(?:.*\n){0,3}?"
                              r"(?:from|to|cc|subject|date|sent|reply-to):[ \t]+\S"
                              r"|^-{2,}[ \t]*(?:original message|forwarded message)[ \t]*-{2,}"
                              r"|^begin forwarded message:")
_LOG_RE = re.compile(r"(?m)^(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL)\]).*"
                     r"(?:\n(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE|FATAL)\]).*)*")


# a lead-in that names where the text comes from: "<source word> … <place>:"
_PLACES = ("wiki|ticket|issue|readme|docs?|documentation|confluence|notion|jira|linear|slack|discord|teams|chat|"
           "thread|channel|e-?mail|pr|pull\\s+request|comment|changelog|runbook|handbook|playbook|guide|"
           "guidelines|spec|page|post|forum|stack\\s*overflow|blog|article|transcript|conversation|meeting|"
           "standup|repo(?:sitory)?|file|code|snippet|message|review")
_SOURCE_WORD_RE = re.compile(r"(?i)\b(?:pasted|copied|quot(?:ed|ing)|taken|excerpts?|notes?|text|content|section|"
                             r"snippet|from)\b")
_PLACE_RE = re.compile(r"(?i)\b(?:" + _PLACES + r")s?\b")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
_LEAD_IN_GATE = re.compile(rb"pasted|copied|quot|taken|excerpt|notes?\b|from\b")
# a markdown heading or a `#` comment line
_HEADING_RE = re.compile(r"(?m)^[ \t]{0,3}#{1,6}[ \t]+\S")
# code comments: a run of `//` lines; a `/* ... */` block
_SLASH_COMMENT_RE = re.compile(r"(?m)^[ \t]*//.*(?:\n[ \t]*//.*)*")
_BLOCK_COMMENT_RE = re.compile(r"(?<![^\s(])/\*.*?\*/", re.DOTALL)  # not a path glob (`dir/*.py`)
# a chat line: an optional time stamp, a speaker's name, a colon, then at least two words
_STAMP = r"\[?\d{1,2}:\d\d(?::\d\d)?(?:\s*[AaPp][Mm])?\]?"
_CHAT_RE = re.compile(r"(?m)^[ \t]*(?P<stamp>" + _STAMP + r"[ \t]+)?(?:@?(?P<name>[A-Za-z][\w.\-]{0,24}"
                      r"(?:[ \t][A-Z][\w.\-]{0,24})?)[ \t]*:|<(?P<nick>[\w.\-]{1,25})>)[ \t]+\S+[ \t]+\S.*")
# two lines that could start with a speaker (the first line, or any line after a newline)
_CHAT_GATE = re.compile(rb"\n[ \t]*[\[<@a-z0-9][^\n:>]{0,40}[:>][ \t]")
_CHAT_GATE_FIRST = re.compile(rb"[ \t]*[\[<@a-z0-9][^\n:>]{0,40}[:>][ \t]")
# labels that start a line of a person's own structured message, not a speaker
_NOT_SPEAKERS = frozenset("""note notes nb todo edit update ps fyi tldr tl;dr context question q a answer problem
issue issues goal goals rule rules error errors warning warnings step steps example examples e.g eg http https file
files path command commands output input result results expected actual reason why because also and but so then
first second third next finally important bug fix summary background plan task tasks requirement requirements
constraint constraints option options pros cons yes no ok status description title name version date time
priority re subject from to cc bcc sent reply-to use usage hint tip caveat scope solution approach idea ideas
update updates change changes current now before after old new pros cons docs see ref refs source sources
test tests case cases input output return returns args arguments params parameters type types default values
""".split())
# a last paragraph in which the person speaks again after a pasted page
_OWN_PARAGRAPH_RE = re.compile(r"(?i)^[ \t]*(?:in this (?:repo|project)|we|i|i'm|i've|my|our|is (?:that|this|it)|"
                               r"should|can you|could you|would you|please|so|does|do|what|why|how|thanks|"
                               r"any idea)\b|\?[ \t]*$")


def mark_quoted(text: str, low: bytes) -> str:
    """`text` with quoted and pasted regions between markers (`low`: its lower-cased ASCII bytes)."""
    regions = _regions(text, low)
    if not regions:
        return text
    done = [m.span() for m in _MARKED_RE.finditer(text)] if OPEN.encode() in low else []
    pieces, last = [], 0
    for start, end, inline in sorted(regions):
        if start < last or any(s <= start < e or s < end <= e for s, e in done):
            continue
        pieces += [text[last:start], OPEN, " " if inline else "\n", text[start:end],
                   " " if inline else "\n", CLOSE]
        last = end
    if last == 0:
        return text
    pieces.append(text[last:])
    return "".join(pieces)


def unquoted(text: str) -> str:
    """The text without its quoted regions."""
    return _MARKED_RE.sub(" ", text) if OPEN in text else text


def _regions(text: str, low: bytes) -> list[tuple[int, int, bool]]:
    regions: list[tuple[int, int, bool]] = []
    if low.startswith(b">") or b"\n>" in low:
        regions += [(m.start(), m.end(), False) for m in _BLOCKQUOTE_RE.finditer(text)]
    if b":" in low:
        regions += _after_colons(text, low)
    if low.startswith(b"20") or b"\n20" in low or _LOG_GATE_RE.search(low):
        regions += [(m.start(), m.end(), False) for m in _LOG_RE.finditer(text)]
    if b":" in low and _LEAD_IN_GATE.search(low):
        regions += _after_lead_ins(text)
    if b"#" in low:
        regions += _from_heading(text)
    if b"//" in low:
        regions += [(m.start(), m.end(), False) for m in _SLASH_COMMENT_RE.finditer(text)]
    if b"/*" in low:
        regions += [(m.start(), m.end(), False) for m in _BLOCK_COMMENT_RE.finditer(text)]
    if b"\n" in low.strip() and _CHAT_GATE.search(low) and (_CHAT_GATE_FIRST.match(low) or _CHAT_GATE.search(
            low, _CHAT_GATE.search(low).end())):  # type: ignore[union-attr]
        regions += _chat_log(text)
    return _outermost(regions) if regions else regions


def _passage(text: str, colon: int) -> tuple[int, int, bool] | None:
    """The passage a colon introduces: to the end of its paragraph (the next one when the colon
    ends the line), or to a line where the person speaks again."""
    begin = colon + 1
    while begin < len(text) and text[begin] in " \t\n":
        begin += 1
    end_match = _PARAGRAPH_END_RE.search(text, begin)
    end = end_match.start() if end_match else len(text.rstrip())
    own = _OWN_LINE_RE.search(text, begin, end)
    if own is not None:  # the person takes the word again: "In this repo we …", "Is that right?"
        end = own.start()
    return (begin, len(text[:end].rstrip()), True) if end > begin else None


def _after_lead_ins(text: str) -> list[tuple[int, int, bool]]:
    """Passages after a lead-in that names their source: "pasted from the ticket:". Found from
    each colon (rarer than words): within the 80 characters before it on its line, a source
    word then a place, with no sentence end between them and the colon, and the lead-in
    starting its line or sentence."""
    out = []
    colon = text.find(":")
    while colon != -1:
        if text[colon + 1:colon + 2] in (" ", "\t", "\n", "\r", ""):  # "a:b", "10:42", "https://" start nothing
            found = _lead_in_passage(text, colon)
            if found is not None:
                out.append(found)
                colon = text.find(":", found[1])
                continue
        colon = text.find(":", colon + 1)
    return out


def _lead_in_passage(text: str, colon: int) -> tuple[int, int, bool] | None:
    line_start = text.rfind("\n", 0, colon) + 1
    window = max(line_start, colon - 80)
    source = _SOURCE_WORD_RE.search(text, window, colon)
    if source is None or _SENTENCE_END.search(text, source.end(), colon):
        return None
    if not _PLACE_RE.search(text, source.start() if source.group().lower() == "notes" else source.end(), colon):
        return None
    if source.start() - line_start > 40 and not _SENTENCE_END.search(text, source.start() - 40, source.start()):
        return None
    return _passage(text, colon)


def _from_heading(text: str) -> list[tuple[int, int, bool]]:
    """A pasted page: from its first heading (or `#` comment line) to the end of the text, less
    a last paragraph in which the person speaks again."""
    heading = _HEADING_RE.search(text)
    if heading is None:
        return []
    start = heading.start()
    end = len(text.rstrip())
    paragraphs = list(_PARAGRAPH_END_RE.finditer(text, start))
    if paragraphs:
        last = text[paragraphs[-1].end():end]
        if _OWN_PARAGRAPH_RE.search(last.split("\n", 1)[0]) and not _HEADING_RE.search(last):
            end = len(text[:paragraphs[-1].start()].rstrip())
    return [(start, end, False)] if end > start else []


def _chat_log(text: str) -> list[tuple[int, int, bool]]:
    """A pasted chat: lines that start with a speaker's name (two or more, or one with a time)."""
    lines = [m for m in _CHAT_RE.finditer(text)
             if m.group("nick") or (m.group("name") or "").lower() not in _NOT_SPEAKERS]
    if not lines or (len(lines) < 2 and not lines[0].group("stamp")):
        return []
    end_match = _PARAGRAPH_END_RE.search(text, lines[-1].end())
    end = end_match.start() if end_match else len(text.rstrip())
    return [(lines[0].start(), len(text[:end].rstrip()), False)]


def _after_colons(text: str, low: bytes) -> list[tuple[int, int, bool]]:
    """Introduced passages and pasted emails, found from their colon in the reversed bytes: one
    scan that `re` runs fast because the reversed pattern starts with the literal `:`."""
    out: list[tuple[int, int, bool]] = []
    size = len(low)
    backwards = low[::-1]
    matches = list(_REVERSED_RE.finditer(backwards))
    if b"according" in low or b"here" in low or b"below" in low or b"past" in low:
        matches += _REVERSED_PHRASE_RE.finditer(backwards)
    for match in matches:
        colon = size - 1 - match.start()
        if match.re is _REVERSED_RE and match.group("header"):
            email = _EMAIL_HEADER_RE.search(text, max(0, colon - 600))
            if email:
                out.append((email.start(), len(text.rstrip()), False))
            break
        found = _passage(text, colon)
        if found is not None:
            out.append(found)
    return out


def _outermost(regions: list[tuple[int, int, bool]]) -> list[tuple[int, int, bool]]:
    """Overlapping regions merged into the earliest-starting, longest one."""
    out: list[tuple[int, int, bool]] = []
    for start, end, inline in sorted(regions, key=lambda r: (r[0], -r[1])):
        if out and start < out[-1][1]:
            o_start, o_end, o_inline = out[-1]
            out[-1] = (o_start, max(o_end, end), o_inline and inline)
        else:
            out.append((start, end, inline))
    return out
