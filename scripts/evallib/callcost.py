"""`scripts/eval call-cost`: model calls and input tokens per session for the model backends.

Each session (the bundled samples, the real set's tuning half) is parsed, cleaned and chunked
as an import does; a model backend makes one distill call per chunk (the belief judge adds a
call only when a new memory lands near an existing one, not counted here). A call's input is
the distill prompt, the `record_memories` schema and the chunk (`ToolDistiller.estimate`:
characters / 4), plus what the assistant CLI adds around it, measured from the requests the
pinned CLIs sent to the loopback model server (`CLI_OVERHEAD_CHARS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loreline.assistants import registry
from loreline.chunk import chunk
from loreline.distill.anthropic import AnthropicDistiller, ModelClient, Settings
from loreline.pipeline import clean_turns

from . import realset

SAMPLES = realset.ROOT / "engine" / "loreline" / "samples"
#: characters each CLI adds to one request beyond Loreline's prompt, schema and chunk (Claude Code
#: 2.1.332: its system preamble and reminders; Codex 0.171.0: its tool list, skills and agent
#: instructions, which `codex exec` sends even with the tools it can switch off switched off)
CLI_OVERHEAD_CHARS = {"anthropic": 0, "claude-code": 2_200, "codex": 31_000}


@dataclass(frozen=True, slots=True)
class Cost:
    name: str
    sessions: int
    calls: int
    tokens: int

    def per_session(self, backend: str) -> tuple[float, float]:
        extra = CLI_OVERHEAD_CHARS[backend] // 4 * self.calls
        return self.calls / max(1, self.sessions), (self.tokens + extra) / max(1, self.sessions)


def measure(name: str, paths: list[Path]) -> Cost:
    distiller = AnthropicDistiller(ModelClient(Settings(), "unused", "nowhere"))  # never called: estimate only
    calls = tokens = 0
    for path in paths:
        t = registry.parse(path).transcript
        for piece in chunk(clean_turns(t.turns), session_id=t.session_id, path=t.path):
            calls += 1
            tokens += distiller.estimate(piece)
    return Cost(name, len(paths), calls, tokens)


def sets() -> list[Cost]:
    samples = sorted(SAMPLES.glob("*.jsonl"))
    tune = [realset.session_file(s) for s in realset.load_split()["tune"]]
    return [measure("bundled samples", samples), measure("real set, tuning half", tune)]


def render(costs: list[Cost]) -> str:
    lines = []
    for cost in costs:
        lines.append(f"{cost.name}: {cost.sessions} sessions, {cost.calls} chunks")
        for backend in CLI_OVERHEAD_CHARS:
            calls, tokens = cost.per_session(backend)
            lines.append(f"  {backend:<12} {calls:.2f} calls and ~{tokens:,.0f} input tokens per session")
    return "\n".join(lines)
