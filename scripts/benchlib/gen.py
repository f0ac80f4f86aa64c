"""A seeded generator of realistic `~/.claude/projects` trees for the benchmarks.

The tree has Claude Code's layout and line shapes (written with `loreline.samples.builder`):
`<root>/projects/<slug>/<session-uuid>.jsonl` main sessions and
`<root>/projects/<slug>/<session-uuid>/subagents/agent-<id>.jsonl` sidecars (+ `.meta.json`).
Sessions mix what real ones hold: prompts and prose, thinking blocks, tool calls whose
results are multi-KB file reads and logs (about 1 in 100 over 100 KB), base64 images now and
then, progress / attachment / system / file-history-snapshot lines, interrupts, slash
commands, compaction, fake secrets in prompts and tool output, and durable statements the
rules distiller picks up in about one prompt in ten.

Same seed and sizes → byte-identical files. File mtimes are set between one hour and twelve
days ago, so discovery's five-minute settling window never leaves a session out.
"""

from __future__ import annotations

import math
import os
import random
import string
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from loreline.samples.builder import ClaudeSession, ToolResult, project_slug

from . import texts

PROJECT_NAMES = ("acme-shop", "acme-billing", "infra", "mobile-app", "data-pipeline", "docs-site",
                 "auth-service", "ml-experiments", "cli-tools", "design-system")
LINE_OVERHEAD = 420  # envelope bytes a builder line adds besides its content
MIN_SESSION_KB = 8.0
MAX_SESSION_KB = 24_000.0


@dataclass(slots=True)
class Counts:
    durable: int = 0
    secrets: int = 0
    images: int = 0
    big_outputs: int = 0


@dataclass(frozen=True, slots=True)
class Tree:
    root: Path  # the Claude config dir: holds `projects/`
    sessions: tuple[Path, ...]
    subagents: tuple[Path, ...]
    main_bytes: int
    total_bytes: int
    counts: Counts = field(default_factory=Counts)

    def session_list(self) -> list[tuple[Path, str | None]]:
        return [(p, "claude-code") for p in self.sessions]


def generate(root: Path, size_mb: float, *, seed: int = 1, projects: int = 6, session_kb: float = 600.0,
             fixed_kb: float | None = None, count: int | None = None, now: float | None = None) -> Tree:
    """Write sessions under `root/projects` until they add up to `size_mb` megabytes (or,
    with `count`, until there are that many sessions).

    Session sizes are log-normal around `session_kb` (or about `fixed_kb` each)."""
    rng = random.Random(seed)
    writer = _Writer(rng, texts.Pools(rng))
    cwds = [f"/home/dev/{name}" for name in PROJECT_NAMES[: max(1, min(projects, len(PROJECT_NAMES)))]]
    weights = [1.0 / (i + 1) for i in range(len(cwds))]
    target = int(size_mb * 1024 * 1024)
    clock = time.time() if now is None else now
    sessions: list[Path] = []
    subagents: list[Path] = []
    main_bytes = total = 0
    while (len(sessions) < count) if count is not None else (main_bytes < target):
        kb = fixed_kb if fixed_kb is not None else rng.lognormvariate(math.log(session_kb), 0.9)
        want = int(min(max(kb, MIN_SESSION_KB), MAX_SESSION_KB) * 1024)
        cwd = rng.choices(cwds, weights)[0]
        if count is None:
            want = min(want, target - main_bytes + 4096)
        path, size, sides = writer.write_session(root / "projects" / project_slug(cwd), cwd, want)
        age = rng.uniform(3600, 12 * 86_400)
        for written in (path, *sides):
            os.utime(written, (clock - age, clock - age))
        sessions.append(path)
        subagents.extend(sides)
        main_bytes += size
        total += size + sum(p.stat().st_size for p in sides)
    return Tree(root, tuple(sessions), tuple(subagents), main_bytes, total, writer.counts)


def write_records(path: Path, records: list[dict[str, Any]]) -> int:
    """Write one JSON object per line, compact as Claude Code writes them; returns the bytes."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = b"".join(orjson.dumps(r) + b"\n" for r in records)
    path.write_bytes(data)
    return len(data)


class _Writer:
    def __init__(self, rng: random.Random, pools: texts.Pools) -> None:
        self.rng = rng
        self.pools = pools
        self.counts = Counts()
        self.showcased = False

    def write_session(self, folder: Path, cwd: str, want: int) -> tuple[Path, int, list[Path]]:
        rng = self.rng
        session_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        start = datetime(2026, 10, 1, tzinfo=UTC) + timedelta(minutes=rng.randint(0, 60 * 24 * 40))
        s = ClaudeSession(cwd, session_id, start, branch=rng.choice(("main", "main", "feat/pagination", "fix/ci")))
        sides: list[ClaudeSession] = []
        self._opening(s)
        budget = _Budget(want)
        if not self.showcased:
            self._showcase(s, budget, sides)
        while not budget.full(s):
            self._exchange(s, budget, sides)
        path = folder / f"{session_id}.jsonl"
        size = write_records(path, s.records)
        side_paths = [self._write_side(folder, session_id, side) for side in sides]
        return path, size, side_paths

    def _write_side(self, folder: Path, session_id: str, side: ClaudeSession) -> Path:
        path = folder / session_id / "subagents" / f"agent-{side.agent_id}.jsonl"
        write_records(path, side.records)
        meta = {"agentType": "general-purpose", "description": "Investigate the failing job"}
        path.with_suffix(".meta.json").write_bytes(orjson.dumps(meta))
        return path

    def _opening(self, s: ClaudeSession) -> None:
        rng = self.rng
        if rng.random() < 0.3:
            leaf = str(uuid.UUID(int=rng.getrandbits(128)))
            s.raw({"type": "summary", "summary": texts.sentence(rng), "leafUuid": leaf})
        s.raw({"type": "permission-mode", "permissionMode": "default", "sessionId": s.session_id})
        s.line("progress", data={"type": "hook_progress", "hookEvent": "SessionStart",
                                 "hookName": "SessionStart:startup", "command": "loreline-hook SessionStart"},
               toolUseID="SessionStart", parentToolUseID="SessionStart")
        s.hook_context("SessionStart hook additional context: " + texts.sentence(rng))
        s.snapshot()

    def _showcase(self, s: ClaudeSession, budget: _Budget, sides: list[ClaudeSession]) -> None:
        """Once per tree, every rare shape together, so even a tiny tree has each of them."""
        rng = self.rng
        self.showcased = True
        durable = texts.fill(rng, texts.DURABLE[0])
        s.user(f"{durable} The staging key is {texts.secret(rng)}, please don't print it.")
        self.counts.durable += 1
        self.counts.secrets += 1
        image = texts.image_b64(rng, 4000)
        self.counts.images += 1
        password = "".join(rng.choices(string.ascii_letters + string.digits, k=14))
        output = f"DATABASE_URL=postgres://app:{password}@db.internal.example:5432/app"
        self.counts.secrets += 1
        s.assistant("Looking into it.", thinking=texts.prose(rng, 300), tools=[
            self._agent(s, sides),
            ("Bash", {"command": "env"}, output),
            ("Read", {"file_path": f"{s.cwd}/docs/screenshot.png"},
             [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": image}}])])
        budget.add(len(image) * 2 + len(output) * 2 + 2000)

    # -- one user prompt and the assistant's work on it ----------------------------

    def _exchange(self, s: ClaudeSession, budget: _Budget, sides: list[ClaudeSession]) -> None:
        rng = self.rng
        self._prompt(s, budget)
        if rng.random() < 0.15:
            s.line("attachment", attachment={"type": "task_reminder", "content": [
                {"id": "1", "subject": texts.words(rng, 5), "status": "in_progress"}], "itemCount": 1})
        for _ in range(rng.randint(1, 4)):
            if budget.full(s):
                break
            self._step(s, budget, sides)
        if rng.random() < 0.03:
            s.interrupt()
            return
        final = texts.prose(rng, rng.randint(200, 2500))
        budget.add(len(final))
        s.assistant(final)
        self._tail(s)

    def _prompt(self, s: ClaudeSession, budget: _Budget) -> None:
        rng = self.rng
        parts = [texts.fill(rng, rng.choice(texts.TASKS))]
        if rng.random() < 0.10:
            parts.append(texts.fill(rng, rng.choice(texts.DURABLE)))
            self.counts.durable += 1
        if rng.random() < 0.03:
            parts.append(f"Use this for the staging check: {texts.secret(rng)}")
            self.counts.secrets += 1
        if rng.random() < 0.05:
            parts.append("Here is the traceback:\n" + self.pools.log_block(rng, rng.randint(300, 3000)))
        text = " ".join(parts)
        budget.add(len(text))
        if rng.random() < 0.02:
            data = texts.image_b64(rng, rng.randint(20_000, 250_000))
            self.counts.images += 1
            budget.add(len(data))
            s.user_blocks([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
                           {"type": "text", "text": text}])
        elif rng.random() < 0.02:
            s.slash(rng.choice(("cost", "model", "context")), texts.sentence(rng))
            s.user(text)
        else:
            s.user(text)

    def _step(self, s: ClaudeSession, budget: _Budget, sides: list[ClaudeSession]) -> None:
        rng = self.rng
        thinking = texts.prose(rng, rng.randint(150, 3000)) if rng.random() < 0.6 else None
        said = texts.prose(rng, rng.randint(60, 500))
        tools = [self._tool(s, sides) for _ in range(rng.choice((0, 1, 1, 1, 2, 2, 3)))]
        budget.add(len(said) + len(thinking or "") + sum(_result_size(t[2]) * 2 for t in tools))
        s.assistant(said, thinking=thinking, tools=tools)
        for _ in range(rng.randint(0, 3)):
            if rng.random() < 0.5:
                s.progress(f"{rng.choice(texts.TOOLS)} --fix")
            else:
                s.line("progress", data={"type": "bash_progress", "output": "", "fullOutput": "",
                                         "elapsedTimeSeconds": rng.randint(1, 30), "totalLines": 0,
                                         "timeoutMs": 120000},
                       toolUseID="bash-progress-0", parentToolUseID="toolu_x")

    def _tool(self, s: ClaudeSession, sides: list[ClaudeSession]) -> tuple[str, dict[str, Any], ToolResult]:
        rng = self.rng
        roll = rng.random()
        path = f"{s.cwd}/{texts.file_name(rng)}"
        if roll < 0.03:
            return self._agent(s, sides)
        if roll < 0.045:
            self.counts.images += 1
            data = texts.image_b64(rng, rng.randint(30_000, 300_000))
            return "Read", {"file_path": path.rsplit(".", 1)[0] + ".png"}, [
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}]
        if roll < 0.45:
            return "Read", {"file_path": path}, self.pools.code_block(rng, self._output_size())
        if roll < 0.75:
            out = self.pools.log_block(rng, self._output_size())
            if rng.random() < 0.04:
                out += f"\nDATABASE_URL={texts.secret(rng)}\nexport GITHUB_TOKEN={texts.secret(rng)}"
                self.counts.secrets += 2
            return "Bash", {"command": f"{rng.choice(texts.PACKAGES)} test", "description": "Run the tests"}, out
        if roll < 0.85:
            hits = "\n".join(f"{texts.file_name(rng)}:{rng.randint(1, 900)}:{rng.choice(self.pools.code)}"
                             for _ in range(rng.randint(3, 60)))
            return "Grep", {"pattern": rng.choice(texts.WORDS), "path": s.cwd}, hits
        return "Edit", {"file_path": path, "old_string": rng.choice(self.pools.code),
                        "new_string": rng.choice(self.pools.code)}, f"The file {path} has been updated."

    def _output_size(self) -> int:
        roll = self.rng.random()
        if roll < 0.01:
            self.counts.big_outputs += 1
            return self.rng.randint(100_000, 300_000)
        if roll < 0.06:
            return self.rng.randint(20_000, 60_000)
        return self.rng.randint(500, 8_000)

    def _agent(self, s: ClaudeSession, sides: list[ClaudeSession]) -> tuple[str, dict[str, Any], ToolResult]:
        rng = self.rng
        agent_id = f"a{rng.getrandbits(64):016x}"
        prompt = "Investigate why the nightly job fails and report the cause. " + texts.sentence(rng)
        side = ClaudeSession(s.cwd, s.session_id, s.start, sidechain=True, agent_id=agent_id)
        side.user(prompt)
        for _ in range(rng.randint(1, 4)):
            content = self.pools.code_block(rng, rng.randint(500, 6000))
            side.assistant(texts.prose(rng, rng.randint(100, 600)), tools=[
                ("Read", {"file_path": f"{s.cwd}/{texts.file_name(rng)}"}, content)])
        report = "We decided to retry the job with backoff because the queue drops messages. " + texts.prose(rng, 400)
        side.assistant(report)
        sides.append(side)
        return "Agent", {"description": "Investigate the failing job", "subagent_type": "general-purpose",
                         "prompt": prompt}, [{"type": "text", "text": report},
                                             {"type": "text", "text": f"agentId: {agent_id}"}]

    def _tail(self, s: ClaudeSession) -> None:
        rng = self.rng
        if rng.random() < 0.5:
            s.line("system", subtype="turn_duration", durationMs=rng.randint(2000, 400_000),
                   messageCount=rng.randint(2, 120), isMeta=False)
        if rng.random() < 0.2:
            s.line("system", subtype="stop_hook_summary", hookCount=1, hookInfos=[
                {"command": "loreline-hook Stop", "durationMs": rng.randint(20, 90)}], hookErrors=[],
                preventedContinuation=False, stopReason="", hasOutput=False, level="suggestion")
        if rng.random() < 0.3:
            s.snapshot()
        if rng.random() < 0.01:
            s.compaction("Summary of the earlier work: " + texts.prose(rng, 1500))


class _Budget:
    """A cheap running estimate of a session's size in bytes (serialising to measure is slow)."""

    def __init__(self, want: int) -> None:
        self.want = want
        self.content = 0

    def add(self, chars: int) -> None:
        self.content += chars

    def full(self, s: ClaudeSession) -> bool:
        return self.content + LINE_OVERHEAD * len(s.records) >= self.want


def _result_size(result: ToolResult) -> int:
    if isinstance(result, str):
        return len(result)
    return sum(len(str(block.get("source", {}).get("data", block.get("text", "")))) for block in result)
