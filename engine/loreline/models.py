"""The nouns every stage passes along: frozen records (`loreline.records`), never dicts.

Transcript → Turn → Chunk → Candidate(Evidence) → Memory(Provenance) → RecallHit.
Counters that stages accumulate (ParseStats, ImportReport) are mutable records.
"""

from __future__ import annotations

from .names import KINDS, STATUSES
from .records import field, record

TYPE_CHECKING = False  # typing is left to the type checker: the everyday commands import none of it
if TYPE_CHECKING:
    from typing import Literal

    Speaker = Literal["user", "assistant", "action"]
    ToolName = Literal["claude-code", "codex", "cursor", "gemini", "generic"]
else:
    Speaker = ToolName = str  # annotations only, at run time

#: where a user turn's words came from: a typed prompt, the reason given when rejecting a tool
#: call, an answer to the assistant's questions (AskUserQuestion), or feedback on a rejected plan
ORIGINS: tuple[str, ...] = ("prompt", "rejection", "answer", "plan-feedback")
#: the speaker of a turn that records what the assistant did (`loreline.transcripts.actions`)
ACTION: Speaker = "action"
#: what an action turn records: a shell command ran, a file was written or edited, a tool call
#: the person refused; each is shown to a model, and on every surface, under its label
ACTION_LABELS: dict[str, str] = {"ran": "RAN", "edited": "EDITED", "denied": "DENIED"}
ACTION_ORIGINS: tuple[str, ...] = tuple(ACTION_LABELS)


@record
class Turn:
    """One kept message: a person's prompt, the assistant's prose, or one thing the assistant did.

    `line_start`/`line_end` are 1-based physical lines of the transcript file (an assistant
    message streamed over several lines spans them). `files` are paths that tool calls in or
    right after this turn read or edited: metadata for linking memories to files, never sent
    to a model. `origin` says where a user turn's words came from (one of `ORIGINS`): a
    typed prompt, or the user's own words that reached the transcript inside a tool result.
    An `action` turn (speaker `ACTION`) is one line of what the assistant did, on the line of
    its tool call; its `origin` is one of `ACTION_ORIGINS` and its `files` the paths it edited.
    Several turns can share a line (a message holding prose and a tool call).
    """

    speaker: Speaker
    text: str
    line_start: int
    line_end: int
    timestamp: str | None = None
    files: tuple[str, ...] = ()
    origin: str = "prompt"


@record(frozen=False)
class ParseStats:
    """What a parser read and what it left out, by reason."""

    lines: int = 0
    bad_lines: int = 0
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, reason: str, n: int = 1) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + n

    def merge(self, other: ParseStats) -> None:
        self.lines += other.lines
        self.bad_lines += other.bad_lines
        for reason, n in other.dropped.items():
            self.drop(reason, n)


@record
class Transcript:
    """A parsed session file: its identity and the turns worth reading."""

    path: str
    tool: ToolName
    session_id: str
    cwd: str | None
    turns: tuple[Turn, ...]
    stats: ParseStats
    lines_total: int = 0
    started_at: str | None = None


@record
class Chunk:
    """Turns packed for one distillation call, rendered with their line numbers.

    Turns whose lines are all `<= context_until` were already imported and are only there
    to give context; evidence must cite at least one newer line.
    """

    session_id: str
    path: str
    index: int
    turns: tuple[Turn, ...]
    text: str
    context_until: int = 0
    #: lines of the person's that say again what an earlier session of the project said (loosely:
    #: a wish phrased as a task counts); a model is told, so a thing said twice is kept by any backend
    said_again: tuple[int, ...] = ()

    @property
    def line_start(self) -> int:
        return self.turns[0].line_start

    @property
    def line_end(self) -> int:
        return self.turns[-1].line_end

    def turn_at(self, line: int) -> Turn | None:
        """The first turn on `line` (`turns_at` gives every one: prose and actions can share a line)."""
        for turn in self.turns:
            if turn.line_start <= line <= turn.line_end:
                return turn
        return None

    def turns_at(self, line: int) -> tuple[Turn, ...]:
        """Every turn on `line`, in transcript order."""
        return tuple(turn for turn in self.turns if turn.line_start <= line <= turn.line_end)


@record
class Evidence:
    line: int
    quote: str


@record
class Candidate:
    """A memory proposed by a distiller, not yet validated."""

    kind: str
    text: str
    evidence: tuple[Evidence, ...]
    extractor: str
    #: how sure the distiller is (the rules give less than 1 to what they only suggest;
    #: `beliefs.suggestions` holds those for review)
    confidence: float = 1.0
    #: retrieval cues: short questions the memory answers and its topic words, one a line
    cues: str = ""
    #: the person explicitly asked to keep it (`asked.find`; kept only when its evidence cites the request)
    asked: bool = False


@record
class Provenance:
    tool: str
    session_id: str
    session_path: str
    line_start: int
    line_end: int
    excerpt: str
    observed_at: str | None
    #: the shortest prefix of `session_id` no other session in the store shares (at least 8
    #: characters; `store.shortids`), set when the store loads a memory; empty on a new source
    session_short: str = field(default="", compare=False)

    @property
    def session_label(self) -> str:
        """The session id as every surface shows it: short when the store worked it out."""
        return self.session_short or self.session_id


@record
class Memory:
    id: int
    project: str
    scope: str
    kind: str
    text: str
    status: str
    version: int
    created_at: str
    observed_at: str | None
    valid_until: str | None
    pinned: bool
    extractor: str
    root_id: int | None = None
    replaces: int | None = None
    provenance: tuple[Provenance, ...] = ()
    files: tuple[str, ...] = ()
    #: why it may be stale (its files changed, were deleted or renamed since it was made)
    stale: str | None = None
    confirmed_at: str | None = None
    confirmed_by: str | None = None
    hold_reason: str | None = None  # why a `held` memory waits for a person's review
    #: retrieval cues (questions it answers, topic words), one a line; searched beside the text
    cues: str = ""
    #: the person explicitly asked to keep it ("remember this", "from now on …")
    asked: bool = False

    @property
    def last_seen(self) -> str:
        """When it was last said in a session or confirmed by a person (else made)."""
        said = [p.observed_at for p in self.provenance if p.observed_at]
        return max([*said, *(t for t in (self.observed_at, self.confirmed_at) if t)], default=self.created_at)


@record
class RecallHit:
    """A query's hit: the memory with its provenance, its fused score and its place in each
    ranking."""

    memory: Memory
    score: float
    fts_rank: int | None
    vec_rank: int | None

    @property
    def note(self) -> tuple[int, str, str]:
        """The hit as every recall's compact result, `(id, kind, text)` (`recall_rules`)."""
        return (self.memory.id, self.memory.kind, self.memory.text)


@record
class Limit:
    """What a login or API said when it refused a call for its usage limit or a rate limit."""

    #: "usage limit" (a plan's or account's allowance) or "rate limit" (too many requests now)
    kind: str
    #: its own words, one line
    said: str
    #: when it lifts, UTC epoch seconds; None when it did not say
    until: float | None = None
    #: who said it ("Claude Code", "Codex", "the Anthropic API"), filled in by the client
    by: str = ""


@record
class Usage:
    """Tokens a model backend spent; `input_tokens` excludes the cached parts."""

    calls: int = 0
    input_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.calls + other.calls,
            self.input_tokens + other.input_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_creation_tokens + other.cache_creation_tokens,
            self.output_tokens + other.output_tokens,
        )


@record(frozen=False)
class ImportReport:
    """The end-of-import summary: every session is accounted for."""

    imported: int = 0
    unchanged: int = 0
    left_out: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    #: sessions left for a later run (rate limited, daily cap): their ledger did not move
    deferred: list[tuple[str, str]] = field(default_factory=list)
    #: of those, the ones the daily cap or token budget stopped (they wait for the next day)
    until_tomorrow: list[str] = field(default_factory=list)
    turns: int = 0
    lines_skipped: int = 0
    chunks: int = 0
    chunks_replayed: int = 0
    candidates: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    added: int = 0
    merged: int = 0
    versioned: int = 0
    conflicts: int = 0
    forgotten_skipped: int = 0
    dry_run: bool = False
    cancelled: bool = False
    backend: str = "rules"
    #: why that backend ran (`backends.Choice.reason`), set by the front end that chose it
    backend_reason: str = ""
    #: the model a paying backend used, what it spent, and on dry runs what it would send
    model: str | None = None
    usage: Usage = field(default_factory=Usage)
    estimated_input_tokens: int = 0

    def reject(self, reason: str) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + 1
