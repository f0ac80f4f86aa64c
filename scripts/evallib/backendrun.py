"""`scripts/eval backend --backend NAME --set real`: one distiller backend over a labelled set.

The backend is built by `loreline.backends.choose`, exactly as an import builds it (so a
logged-in Claude Code or Codex, or an API key, is what runs). Every session of the chosen
half is parsed, cleaned and chunked as an import does; each chunk goes to the distiller and
its candidates through evidence validation. Reported: precision and recall against the
labels (as `realset` scores them; for the rules, also what they store active on its own),
and for a model backend what can be checked without knowing the truth: how many calls were
made, how many answers broke the contract, how many cited claims the evidence check
refused, the tokens spent, and whether the calls stayed within `--max-calls`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from loreline.assistants import registry
from loreline import evidence, transcripts
from loreline.beliefs.suggestions import ACTIVE_CONFIDENCE
from loreline.chunk import chunk
from loreline.distill import Metered
from loreline.errors import CapReachedError, ModelOutputError, RateLimitedError
from loreline.models import Limit, Usage
from loreline.pipeline import clean_turns
from loreline.privacy.redact import contains_secret

from . import realset


class CountingMeter:
    """Counts every call and its tokens; refuses calls beyond `limit` (the cost cap)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = Usage()

    def before_call(self, estimated_input_tokens: int = 0) -> None:
        if self.total.calls >= self.limit:
            raise CapReachedError(f"the eval's cap of {self.limit} model calls is reached")

    def record(self, usage: Usage) -> None:
        self.total = self.total + usage

    def limited(self, limit: Limit) -> None:
        """A login's or API's limit ends the eval's run the same way (the call already raised)."""


@dataclass(slots=True)
class BackendScore:
    backend: str
    score: realset.HalfScore
    active: realset.HalfScore
    chunks: int = 0
    malformed: int = 0
    deferred: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    capped: bool = False


def run(backend: str, half: str, max_calls: int) -> BackendScore:
    from loreline import backends

    choice = backends.choose(backend)
    distiller = choice.distiller
    meter = CountingMeter(max_calls)
    if isinstance(distiller, Metered):
        distiller.attach(meter)
    sessions = realset.load_split()[half]
    labels, forbidden = realset.load_labels()
    mine = [lab for lab in labels if lab.session in set(sessions)]
    result = BackendScore(distiller.name, realset.HalfScore(half, len(sessions), len(mine)),
                          realset.HalfScore(half, len(sessions), len(mine)))
    for session in sessions:
        t = registry.parse(realset.session_file(session)).transcript
        for piece in chunk(clean_turns(t.turns), session_id=t.session_id, path=t.path):
            result.chunks += 1
            try:
                candidates = distiller.distill(piece)
            except ModelOutputError:
                result.malformed += 1
                continue
            except CapReachedError:
                result.capped = True
                break
            except RateLimitedError:
                result.deferred += 1
                continue
            accepted, reasons = evidence.validate(candidates, piece, has_secret=contains_secret)
            result.rejected.update(reasons)
            for c in accepted:
                memory = realset.Memory(session, c.evidence[0].line, c.kind, c.text)
                realset.judge(result.score, memory, mine, forbidden, t)
                if c.confidence >= ACTIVE_CONFIDENCE:
                    realset.judge(result.active, memory, mine, forbidden, t)
        if result.capped:
            break
    result.usage = meter.total
    return result


def rate(score: realset.HalfScore) -> str:
    """Precision as a figure, or a dash when nothing was stored (a rate of nothing is not 1.00)."""
    return f"{score.precision:.2f}" if score.memories else "—"


def render(r: BackendScore) -> str:
    s, a = r.score, r.active
    lines = [f"backend {r.backend} on the real set's {s.half} half: {s.sessions} sessions, {s.labels} labels, "
             f"{r.chunks} chunks",
             f"  stored (active + suggested): {s.memories} memories, precision {rate(s)}, recall {s.recall:.2f}, "
             f"forbidden {len(s.forbidden)}",
             f"  active only: {a.memories} memories, precision {rate(a)}, recall {a.recall:.2f}"]
    if r.usage.calls:
        per = r.usage.calls / max(1, s.sessions)
        lines.append(f"  calls {r.usage.calls} ({per:.1f} per session), input tokens {r.usage.input_tokens}, "
                     f"cache reads {r.usage.cache_read_tokens}, output tokens {r.usage.output_tokens}")
    lines.append(f"  answers outside the contract {r.malformed}, deferred chunks {r.deferred}, "
                 f"evidence refused {sum(r.rejected.values())} {dict(r.rejected) or ''}".rstrip())
    if r.capped:
        lines.append("  STOPPED at the --max-calls cap: the figures above cover part of the half")
    return "\n".join(lines)
