"""`scripts/eval call-cost`: model calls and input tokens per session for the model backends.

Each session (the bundled samples, the real set's tuning half) is parsed, cleaned and chunked
as an import does; a model backend makes one distill call per chunk (the belief judge adds a
call only when a new memory lands near an existing one, not counted here). A call's input is
the distill prompt, the `record_memories` schema and the chunk (`ToolDistiller.estimate`:
characters / 4), plus what the assistant CLI adds around it, measured from the requests the
pinned CLIs sent to the loopback model server (`CLI_OVERHEAD_CHARS`).

What the account of actions costs (`actions_sets`): on the say-once sessions (both halves) and
the real set's tuning half, the characters of distill input per session as read (prose and the
account of actions, `chunk.account`) and with the action turns taken out (the prose alone, as
before action lines were read), and the input tokens of the calls each makes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from loreline.assistants import registry
from loreline.chunk import chunk
from loreline.distill.anthropic import AnthropicDistiller, ModelClient, Settings
from loreline.pipeline import clean_turns

from . import realset, sayonce

SAMPLES = realset.ROOT / "engine" / "loreline" / "samples"
#: characters each CLI adds to one request beyond Loreline's prompt, schema and chunk (Claude Code
#: 2.1.332: its system preamble and reminders; Codex 0.171.0: its tool list, skills and agent
#: instructions, which `codex exec` sends even with the tools it can switch off switched off; Gemini CLI
#: 0.61.0: its session context, ~640 characters, less the schema it gets compact in the instructions;
#: an OpenAI-compatible server is sent the prompt, schema and chunk as they are)
CLI_OVERHEAD_CHARS = {"anthropic": 0, "openai-compatible": 0, "claude-code": 2_200, "codex": 31_000, "gemini": 550}


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
            lines.append(f"  {backend:<17} {calls:.2f} calls and ~{tokens:,.0f} input tokens per session")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class ActionCost:
    """One set's distill input per session, with and without its account of actions."""

    name: str
    sessions: int
    prose_chars: int
    chars: int
    prose_tokens: int
    tokens: int

    @property
    def growth(self) -> float:
        return self.tokens / self.prose_tokens - 1 if self.prose_tokens else 0.0


def measure_actions(name: str, paths: list[Path]) -> list[ActionCost]:
    """The set's cost, then the same for its sessions that did something (many exports the sets
    were built from kept the prose only)."""
    distiller = AnthropicDistiller(ModelClient(Settings(), "unused", "nowhere"))  # never called: estimate only
    every, acting = [0, 0, 0, 0], [0, 0, 0, 0]
    doing = 0
    for path in paths:
        t = registry.parse(path).transcript
        turns = clean_turns(t.turns)
        prose = [turn for turn in turns if turn.speaker != "action"]
        sums = [0, 0, 0, 0]
        for at, chosen in enumerate((turns, prose)):
            for piece in chunk(chosen, session_id=t.session_id, path=t.path):
                sums[1 - at] += len(piece.text)
                sums[3 - at] += distiller.estimate(piece)
        every = [a + b for a, b in zip(every, sums)]
        if len(prose) < len(turns):
            doing += 1
            acting = [a + b for a, b in zip(acting, sums)]
    return [ActionCost(name, len(paths), *every), ActionCost(f"{name}: its sessions with actions", doing, *acting)]


def say_once_halves() -> dict[str, list[Path]]:
    data = sayonce.load()
    root = realset.ROOT / str(data["root"])
    out: dict[str, list[Path]] = {}
    for half, names in data["split"].items():
        out[half] = []
        for name in names:
            project = data["projects"][name]
            base = realset.ROOT / project["root"] if "root" in project else root
            out[half].extend(base / s for s in project["sessions"])
    return out


def actions_sets() -> list[ActionCost]:
    halves = say_once_halves()
    tune = [realset.session_file(s) for s in realset.load_split()["tune"]]
    return [*measure_actions("say-once sessions, tuning half", halves["tune"]),
            *measure_actions("say-once sessions, test half", halves["test"]),
            *measure_actions("real set, tuning half", tune)]


def render_actions(costs: list[ActionCost]) -> str:
    lines = ["distill input per session: prose alone → prose and the account of actions"]
    for c in costs:
        if not c.sessions:
            continue
        n = c.sessions
        lines.append(f"  {c.name} ({c.sessions}): {c.prose_chars / n:,.0f} → {c.chars / n:,.0f} characters of "
                     f"excerpt; ~{c.prose_tokens / n:,.0f} → ~{c.tokens / n:,.0f} input tokens ({c.growth:+.1%})")
    return "\n".join(lines)
