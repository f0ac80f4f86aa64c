"""The import pipeline: the only module that knows the order of the stages.

    ledger check → parse → sanitize + redact → chunk → distill → validate evidence
      → embed + belief pipeline → one transaction per chunk (memories, provenance,
        audit, replay key; the last chunk also carries the ledger watermark)

A replay key (session, line range, policy) is recorded with each chunk's commit: a chunk
already committed is skipped before any model call, so a re-run after a crash, or two
importers racing on one session, never stores anything twice.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from . import usage, vectors
from .capture import paused
from .capture.paused import Paused
from .chunk import chunk as make_chunks
from .distill import Distiller, Metered
from .embed import Embedder, default_embedder
from .errors import AuthError, CapReachedError, LorelineError, ModelOutputError, RateLimitedError, StoreBusyError
from .models import ACTION, ACTION_LABELS, Candidate, Chunk, ImportReport, Provenance, Transcript, Turn
from .privacy.identifiers import stored
from .project import project_key
from .records import field, record
from .store import Store, ledger, replays
from .transcripts import files

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import beliefs, repeated

# The stages that read a session (the transcript readers, sanitizing and redaction, the rules'
# patterns, evidence checks, the belief layer) are imported where a session is read: an import
# whose sessions are all unchanged, the usual rerun, loads none of them.

EXCERPT_CHARS = 480
Progress = Callable[[int, int, str], None]


@record(frozen=False)
class Options:
    distiller: Distiller
    dry_run: bool = False
    actor: str = "import"
    #: None: the store's own embedder (`embed.default_embedder(store)`), chosen on import
    embedder: Embedder | None = None
    progress: Progress | None = None
    #: compares near duplicates and judges contradictions; None = no model (exact merges and
    #: near-identical versioning only)
    judge: beliefs.Judge | None = None
    #: a person is waiting (CLI, editor command); False for background capture, whose
    #: model calls count against the daily cap (limits.daily_unattended_calls)
    attended: bool = True
    #: checked between sessions; True stops the import cleanly (the report says so)
    should_stop: Callable[[], bool] | None = None
    #: dry runs collect what would be distilled here
    preview: list[tuple[Chunk, list[Candidate]]] = field(default_factory=list)
    #: set: new memories wait in the review inbox with this reason (`capture.review = "ask"`)
    hold: str | None = None
    #: the projects whose sessions were read: their memories' files are checked afterwards
    projects: set[str] = field(default_factory=set)
    #: import sessions recorded as paused (`LORELINE_OFF=1`) too: only for files a person names
    include_paused: bool = False
    #: the paused sessions, read once per `import_sessions` (None: include them)
    paused: Paused | None = None
    #: what a distiller is unsure of waits in the review inbox (`beliefs.suggestions`); None:
    #: $LORELINE_RULES_SUGGEST, else config distill.rules_suggest, read when the first memory is planned
    suggest: bool | None = None
    #: also keep what a person says again from an earlier session of the project (`repeated`)
    said_again: bool = True
    #: a session not imported before with fewer prompts is left out (`capture.min_prompts`,
    #: for background capture; 0 for imports a person runs)
    min_prompts: int = 0


def clean_turns(turns: Sequence[Turn]) -> list[Turn]:
    """Sanitize then redact every turn's text (a command's or a refused call's with
    `actions.redact_command`, the one place command lines are redacted); turns left empty are
    dropped."""
    from .privacy.redact import redact
    from .privacy.sanitize import sanitize
    from .transcripts.actions import redact_command

    out: list[Turn] = []
    for turn in turns:
        # an edit's text is paths, each already kept only when it holds no secret (`is_path`)
        hide = redact_command if turn.speaker == ACTION and turn.origin != "edited" else redact
        text = hide(sanitize(turn.text, user_turn=turn.speaker == "user")).strip()
        if text:
            files = tuple(stored(path) for path in turn.files) if turn.files else ()
            # built field by field: `dataclasses.replace` costs a tenth of this loop (benchmarked)
            out.append(Turn(turn.speaker, text, turn.line_start, turn.line_end, turn.timestamp, files, turn.origin))
    return out


def import_sessions(store: Store, sessions: Sequence[tuple[Path, str | None]], options: Options) -> ImportReport:
    """Import each `(path, tool)`; a failing session is reported and the rest go on."""
    report = ImportReport(dry_run=options.dry_run, backend=options.distiller.name)
    if not options.dry_run:
        vectors.ensure(store, _embedder(store, options))
    meter = _meter(store, options, report)
    options.paused = None if options.include_paused else paused.load()
    for index, (given, tool) in enumerate(sessions, start=1):
        if _stopping(options, report):
            break
        if options.progress:
            options.progress(index, len(sessions), str(given))
        problem = files.unreadable(Path(given))  # a dangling link, a loop, a pipe, a directory…
        if problem is not None:
            report.failed.append((str(given), problem))
            continue
        path = Path(given).resolve()  # one file, one ledger row, however it was named (links too)
        if options.paused is not None and options.paused.holds(path):
            report.left_out.append((str(path), paused.REASON))
            continue
        try:
            import_one(store, path, tool, options, report)
        except (RateLimitedError, CapReachedError) as err:
            report.deferred.append((str(path), str(err)))  # ledger not advanced: the next run resumes
            if isinstance(err, CapReachedError):
                report.until_tomorrow.append(str(path))
        except AuthError:
            raise  # every session would fail the same way: stop with one clear line
        except LorelineError as err:
            report.failed.append((str(path), str(err)))
        except OSError as err:
            report.failed.append((str(path), f"cannot read: {err.strerror or err}"))
    if meter is not None:
        report.usage = meter.total
    if not options.dry_run:
        _check_files(store, options.projects)
    return report


def _check_files(store: Store, projects: set[str]) -> None:
    """After an import, the files the projects' memories rest on are compared with their
    anchors (`staleness`); a store another writer holds is left for the next check."""
    if not projects:
        return
    from . import staleness

    for project in sorted(projects):
        try:
            staleness.check(store, project)
        except StoreBusyError:
            return


def _meter(store: Store, options: Options, report: ImportReport) -> usage.Meter | None:
    """Give a paying distiller its usage meter (token counts, the unattended daily cap)."""
    distiller = options.distiller
    if not isinstance(distiller, Metered):
        return None
    report.model = distiller.model
    meter = usage.Meter(store, backend=options.distiller.name, model=distiller.model, attended=options.attended)
    distiller.attach(meter)
    return meter


def import_one(store: Store, path: Path, tool: str | None, options: Options, report: ImportReport) -> None:
    policy = options.distiller.policy
    check = ledger.check(store, path, policy)
    if check.state is ledger.State.UNCHANGED:
        if check.entry is not None and check.entry.mtime_ns != check.mtime_ns and not options.dry_run:
            with store.write():
                ledger.touch(store, str(path), check.size, check.mtime_ns)
        report.unchanged += 1
        return
    from . import repeated
    from .assistants import registry

    grown = check.state is ledger.State.GROWN and check.entry is not None
    start = check.entry.context if grown and check.entry else None
    context_until = check.entry.end.line if grown and check.entry else 0
    parsed = registry.parse(path, tool=tool or (check.entry.tool if check.entry else None), start=start)
    t = parsed.transcript
    if options.paused is not None and options.paused.holds(path, t.session_id):
        report.left_out.append((str(path), paused.REASON))  # named apart from its id: known once read
        return
    if check.entry is None and options.min_prompts:
        prompts = sum(1 for turn in t.turns if turn.speaker == "user" and turn.origin == "prompt")
        if prompts < options.min_prompts:
            report.left_out.append((str(path), short_reason(prompts, options.min_prompts)))
            return
    project = _project(t, check.entry)
    options.projects.add(project)
    turns = clean_turns(t.turns)
    chunks = make_chunks(turns, session_id=t.session_id, path=str(path), context_until=context_until)
    report.turns += sum(1 for turn in turns if turn.line_end > context_until)
    report.lines_skipped += t.stats.bad_lines
    report.chunks += len(chunks)
    # a dry run records nothing, so it does not hash the file for the ledger either
    digest = "" if options.dry_run else ledger.prefix_hash(path, parsed.end.offset, check.verified)
    entry = ledger.Entry(
        str(path), t.session_id, t.tool, project, parsed.end, parsed.context_start,
        digest, check.size, check.mtime_ns, policy,
    )
    loose: list[repeated.Signature] = []
    before = repeated.earlier(store, project, path, t.turns, loose) if options.said_again and chunks else []
    for position, piece in enumerate(chunks):
        if _stopping(options, report):
            return  # committed chunks stay; the ledger is not advanced, so the next run resumes
        _import_chunk(store, t, piece, project, options, report, entry if position == len(chunks) - 1 else None,
                      before, loose)
    if not chunks and not options.dry_run:
        with store.write():
            ledger.record(store, entry)
    report.imported += 1


def short_reason(prompts: int, least: int) -> str:
    """Why background capture left a short session out; starts with `capture.SHORT_SESSION`
    (`loreline status` counts them)."""
    from .capture import SHORT_SESSION

    return (f"{SHORT_SESSION}: {prompts} prompt{'' if prompts == 1 else 's'}, fewer than capture.min_prompts = {least}; "
            "background capture skips it (`loreline import sessions --path FILE` imports it)")


def _project(t: Transcript, entry: ledger.Entry | None) -> str:
    """The session's project: its cwd; else what the ledger knew; else what the assistant can
    tell from where the file lives (its format's `project_guess`: Cursor's slug); else unknown."""
    if t.cwd:
        return project_key(t.cwd)
    if entry is not None:
        return entry.project
    from .assistants import registry

    form = registry.formats().get(t.tool)
    if form is not None and form.project_guess is not None:
        return project_key(form.project_guess(Path(t.path)))
    return project_key(None)


def _stopping(options: Options, report: ImportReport) -> bool:
    if options.should_stop is not None and options.should_stop():
        report.cancelled = True
        return True
    return False


def replay_key(path: str, line_start: int, line_end: int, policy: str, text: str) -> str:
    """What makes a chunk's commit unique: the session, its line range, the policy and the
    exact text distilled (the pieces of one oversized turn share a line range; a rewritten
    file can reuse line numbers for other words)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    raw = f"{path}\0{line_start}\0{line_end}\0{policy}\0{digest}".encode()
    return hashlib.sha256(raw).hexdigest()[:32]


def _import_chunk(
    store: Store, t: Transcript, piece: Chunk, project: str, options: Options,
    report: ImportReport, entry: ledger.Entry | None, said_before: Sequence[repeated.Signature] = (),
    loose_before: Sequence[repeated.Signature] = (),
) -> None:
    key = replay_key(piece.path, piece.line_start, piece.line_end, options.distiller.policy, piece.text)
    if replays.seen(store, key):
        report.chunks_replayed += 1
        if entry is not None and not options.dry_run:
            with store.write():
                ledger.record(store, entry)
        return
    if options.dry_run and isinstance(options.distiller, Metered):
        report.estimated_input_tokens += options.distiller.estimate(piece)  # no call on a dry run
        options.preview.append((piece, []))
        return
    from . import asked, evidence, records, repeated
    from .privacy.redact import contains_secret

    if loose_before and isinstance(options.distiller, Metered):
        piece = records.replace(piece, said_again=repeated.said_again_lines(piece, loose_before))
    try:
        candidates = options.distiller.distill(piece)
    except ModelOutputError:
        report.reject("malformed-output")  # counted; the chunk is done with nothing from it
        candidates = []
    candidates = repeated.promote(piece, said_before, candidates)  # a suggestion said again is a standing rule
    candidates = [*candidates, *repeated.candidates(piece, said_before, candidates)]
    report.candidates += len(candidates)
    accepted, reasons = evidence.validate(candidates, piece, has_secret=contains_secret)
    accepted = asked.settle(accepted, piece)
    for reason in reasons:
        report.reject(reason)
    if options.dry_run:
        options.preview.append((piece, accepted))
        return
    from . import beliefs  # a dry run changes no belief
    from .beliefs import suggestions

    plans = _plans(store, t, piece, project, accepted, key, options)
    with store.write():
        if replays.seen(store, key):
            report.chunks_replayed += 1
        else:
            merged_into: set[int] = set()
            waiting: list[tuple[int, str]] | None = None  # the project's suggestions, read once per chunk
            for plan in plans:
                outcome, memory_id = beliefs.apply(store, plan, _embedder(store, options))
                _count(report, outcome)
                if (memory_id is not None and options.suggest and plan.ctx.hold is None
                        and outcome is not beliefs.Outcome.CONFLICTED
                        and plan.candidate.confidence >= suggestions.ACTIVE_CONFIDENCE):
                    if waiting is None:
                        waiting = suggestions.waiting(store, project)
                    said = repeated.signature(plan.candidate.evidence[0].quote if plan.candidate.evidence
                                              else plan.candidate.text)
                    suggestions.fold(store, project, memory_id,
                                     lambda text: repeated.says_again(repeated.signature(text), [said]),
                                     waiting, options.actor)
                if outcome in (beliefs.Outcome.MERGED, beliefs.Outcome.KNOWN_SOURCE) and memory_id is not None:
                    merged_into.add(memory_id)
            if isinstance(options.distiller, Metered):  # a model read these lines: the rules' guesses give way
                suggestions.settle(store, stored(piece.path), piece.line_start, piece.line_end, merged_into,
                                   options.actor)
            replays.record(store, key, stored(piece.path), piece.line_start, piece.line_end, options.distiller.policy)
        if entry is not None:
            ledger.record(store, entry)


def _plans(
    store: Store, t: Transcript, piece: Chunk, project: str, accepted: list[Candidate], key: str, options: Options,
) -> list[beliefs.Plan]:
    """Decide the candidates' fates before the transaction (judge calls never hold the write
    lock); their near duplicates are judged together, in one model call where the judge can."""
    from . import beliefs
    from .beliefs import suggestions

    if options.suggest is None:
        options.suggest = suggestions.enabled()
    root = project if os.path.isabs(project) else t.cwd
    items: list[tuple[Candidate, beliefs.Context, bytes | None]] = []
    for candidate in accepted:
        # the turns' file paths were made safe to store when the turns were cleaned (`clean_turns`)
        hold = options.hold or (suggestions.hold_for(candidate) if options.suggest else None)
        ctx = beliefs.Context(project, provenance(t, piece, candidate), files_near(piece, candidate, root), key,
                              options.actor, hold)
        items.append((candidate, ctx, None))
    return beliefs.plan_all(store, items, _embedder(store, options), options.judge)


def _embedder(store: Store, options: Options) -> Embedder:
    """The import's embedder: the one given, else the store's own (chosen once, then kept)."""
    if options.embedder is None:
        options.embedder = default_embedder(store)
    return options.embedder


def _count(report: ImportReport, outcome: beliefs.Outcome) -> None:
    from . import beliefs

    if outcome in (beliefs.Outcome.ADDED, beliefs.Outcome.CONFLICTED):
        report.added += 1
    if outcome is beliefs.Outcome.CONFLICTED:
        report.conflicts += 1
    elif outcome is beliefs.Outcome.VERSIONED:
        report.versioned += 1
    elif outcome is beliefs.Outcome.MERGED:
        report.merged += 1
    elif outcome is beliefs.Outcome.FORGOTTEN:
        report.forgotten_skipped += 1


def provenance(t: Transcript, piece: Chunk, candidate: Candidate) -> Provenance:
    """Where a candidate came from: its cited turns' line span and a bounded excerpt (an action
    line's under its label, `[RAN] …`)."""
    from . import evidence

    cited = [turn for turn in (evidence.cited(piece, e) for e in candidate.evidence) if turn is not None]
    first = min(cited, key=lambda turn: turn.line_start)
    last = max(cited, key=lambda turn: turn.line_end)
    quoted = evidence.cited(piece, candidate.evidence[0]) or first
    excerpt = _excerpt(quoted.text, candidate.evidence[0].quote)
    if quoted.speaker == ACTION:
        excerpt = f"[{ACTION_LABELS.get(quoted.origin, quoted.origin.upper())}] {excerpt}"
    return Provenance(t.tool, stored(t.session_id), stored(t.path), first.line_start, last.line_end, excerpt,
                      first.timestamp)


def _excerpt(text: str, quote: str) -> str:
    """The quote with some surrounding text, bounded; already sanitized and redacted."""
    if len(text) <= EXCERPT_CHARS:
        return text
    from . import evidence

    at = evidence.normalise(text).find(evidence.normalise(quote)[:40])
    begin = max(0, min(at if at >= 0 else 0, len(text) - EXCERPT_CHARS) - 80)
    return ("…" if begin else "") + text[begin : begin + EXCERPT_CHARS].strip() + "…"


def files_near(piece: Chunk, candidate: Candidate, cwd: str | None) -> tuple[str, ...]:
    """Files tool calls touched around the evidence: the assistant turn before the cited line
    (with the actions between them: what the person was answering) through the assistant turns
    and actions that answer it (the files its edits touched)."""
    lines = [e.line for e in candidate.evidence]
    turns = piece.turns
    picked: list[str] = []
    for index, turn in enumerate(turns):
        if not (turn.line_start <= max(lines) and turn.line_end >= min(lines)):
            continue
        before = index - 1
        while before >= 0 and turns[before].speaker == ACTION:
            picked.extend(turns[before].files)
            before -= 1
        if before >= 0 and turns[before].speaker == "assistant":
            picked.extend(turns[before].files)
        for follower in turns[index:]:
            if follower is not turn and follower.speaker == "user":
                break
            picked.extend(follower.files)
    return tuple(dict.fromkeys(_relative(p, cwd) for p in picked))


def _relative(path: str, cwd: str | None) -> str:
    if cwd and os.path.isabs(path):
        try:
            rel = os.path.relpath(path, cwd)
        except ValueError:
            return path
        if not rel.startswith(".."):
            return rel
    return path
