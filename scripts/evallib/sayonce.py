"""`scripts/eval say-once`: how often would a person still have to repeat themselves?

Replays each project's sessions in order through the real pipeline, the way a person's machine
would have seen them:

- before each session after the first, the real hook (`loreline-hook SessionStart`, run as its
  own process with the session's `cwd`) gives the SessionStart block, and the real
  `loreline-hook UserPromptSubmit` gives the memories for each of the session's typed prompts
  (`capture.prompt_recall`: words by default here, as the hook falls back to when the warm
  recall process is not running);
- after each session ends, it is imported with the chosen backend through the api
  (`loreline.api.imports`, the session's path), as the capture worker imports it.

A labelled repeat (`tests/eval/sayonce/labels.json`) is **saved** when one memory shown before the
person said it again (in that session's SessionStart block, or for one of that session's prompts
before the labelled line) carries it, and **carried** when one memory active in the store when the
session began carries it (it was learned, shown or not). Who decides "carries" (`sayonce_judge`):
the label's key words (loose, for comparison), its claim's facts (every fact in one memory), and
optionally a model judge. Every memory shown that carries no label of the project by key words
is **noise**; lines shown, their tokens (characters / 4) and the model's tokens per session are
counted.

`--history DIR` replays a person's own folder of sessions of one project (ordered by their first
timestamp); with `--labels FILE` in the same format it also scores them, without it it reports
what would have been shown and where.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchlib import docs

from .sayonce_judge import ClaimJudge, carries, carries_claim

LABELS = docs.ROOT / "tests" / "eval" / "sayonce" / "labels.json"
HOOK_CODE = "import sys\nfrom loreline_hooks.entry import main\nsys.exit(main(sys.argv[1:]))"
_MEMORY_LINE = re.compile(r"^- (?:#\d+ )?(?:\w[\w ]*: )?(.*?)(?: \(#\d+(?:, #\d+)*\))?$")


@dataclass
class Shown:
    """What the hooks showed in one session: the SessionStart lines and, per prompt line, the
    prompt's memory lines."""

    start: list[str] = field(default_factory=list)
    prompts: list[tuple[int, list[str]]] = field(default_factory=list)

    def before(self, line: int) -> list[str]:
        return self.start + [m for at, memories in self.prompts if at < line for m in memories]


#: the judges of "this memory carries that repeat", in report order
JUDGES = ("keyword", "claim", "model")


@dataclass
class ProjectResult:
    name: str
    sessions: int
    repeats: list[dict[str, Any]]
    #: per judge, per repeat: a memory shown before the repeat carried it
    saved: dict[str, list[bool]] = field(default_factory=dict)
    #: per judge, per repeat: a memory active in the store when the session began carried it
    carried: dict[str, list[bool]] = field(default_factory=dict)
    starts: int = 0
    start_noise: int = 0
    start_shown: int = 0
    start_chars: int = 0
    prompts: int = 0
    prompt_noise: int = 0
    prompt_shown: int = 0
    prompt_chars: int = 0
    #: model input and output tokens the imports spent (estimated for recorded answers)
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    shown: dict[str, Shown] = field(default_factory=dict)
    #: the project's active memories when each later session began
    store: dict[str, list[str]] = field(default_factory=dict)


def memory_lines(block: str) -> list[str]:
    """The memories in a hook's `<loreline-memories>` block, one per `- ` line: a memory line
    (`- #12 kind: text`, `- kind: text`) or a brief line (`- text (#12, #40)`), its text alone."""
    found = []
    for line in block.splitlines():
        match = _MEMORY_LINE.match(line)
        if match:
            found.append(match.group(1))
    return found


def prompts(path: Path) -> tuple[str | None, str, list[tuple[int, str]]]:
    """The session's cwd, id and typed prompts (physical line, text), as Loreline reads them."""
    from loreline.assistants import registry

    parsed = registry.parse(path).transcript
    typed = [(t.line_start, t.text) for t in parsed.turns if t.speaker == "user" and t.origin == "prompt"]
    return parsed.cwd, parsed.session_id, typed


class Replay:
    """One project's replay in a private Loreline home."""

    def __init__(self, backend: str, recall_mode: str = "words") -> None:
        self.backend = backend
        self.home = Path(tempfile.mkdtemp(prefix="loreline-sayonce-"))
        self.env = dict(os.environ, LORELINE_HOME=str(self.home), LORELINE_PROMPT_RECALL=recall_mode)
        self.env.pop("LORELINE_OFF", None)
        roots = [str(docs.ROOT / part) for part in ("engine", "hooks", "scripts")]
        self.env["PYTHONPATH"] = os.pathsep.join(roots + [p for p in [os.environ.get("PYTHONPATH")] if p])

    def hook(self, event: str, payload: dict[str, Any]) -> str | None:
        done = subprocess.run([sys.executable, "-c", HOOK_CODE, event], input=json.dumps(payload).encode(),
                              env=self.env, capture_output=True, timeout=120, check=False)
        out = done.stdout.decode("utf-8", "replace").strip()
        if not out:
            return None
        try:
            value = json.loads(out)
        except ValueError:
            return out
        spec = value.get("hookSpecificOutput", {}) if isinstance(value, dict) else {}
        context = spec.get("additionalContext")
        return context if isinstance(context, str) else None

    def shown(self, path: Path) -> Shown:
        cwd, session_id, typed = prompts(path)
        seen = Shown()
        base = {"session_id": f"sayonce-{session_id}", "cwd": cwd or str(path.parent)}
        block = self.hook("SessionStart", {**base, "hook_event_name": "SessionStart", "source": "startup"})
        seen.start = memory_lines(block) if block else []
        for line, text in typed:
            answer = self.hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit", "prompt": text})
            seen.prompts.append((line, memory_lines(answer) if answer else []))
        return seen

    def imported(self, path: Path) -> Any:
        """Import one session as the capture worker would; the import's report."""
        with self._home():
            from loreline.api import imports
            from loreline.api.results import ImportRequest

            return imports.run(imports.plan(ImportRequest(paths=(str(path),), backend=self.backend))).report

    def active(self, path: Path) -> list[str]:
        """The texts of the memories active in the session's project right now."""
        cwd, _, _ = prompts(path)
        with self._home():
            from loreline import home
            from loreline.api.session import Loreline
            from loreline.project import project_key

            if not home.db_path().exists():
                return []
            with Loreline() as api:
                return [m.text for m in api.memories(project_key(cwd or str(path.parent)), limit=5000).items]

    @contextlib.contextmanager
    def _home(self) -> Iterator[None]:
        old = os.environ.get("LORELINE_HOME")
        os.environ["LORELINE_HOME"] = str(self.home)
        try:
            yield
        finally:
            if old is None:
                os.environ.pop("LORELINE_HOME", None)
            else:
                os.environ["LORELINE_HOME"] = old


def replay_project(name: str, sessions: list[Path], repeats: list[dict[str, Any]], backend: str,
                   recall_mode: str = "words", root: Path | None = None, judge: ClaimJudge | None = None) -> ProjectResult:
    run = Replay(backend, recall_mode)
    result = ProjectResult(name, len(sessions), repeats)
    keys = [r["key"] for r in repeats]
    for index, path in enumerate(sessions):
        rel = str(path.relative_to(root)) if root else path.name
        if index:
            result.store[rel] = run.active(path)
            seen = run.shown(path)
            result.shown[rel] = seen
            _count_shown(result, seen, keys)
        report = run.imported(path)
        result.model_calls += report.usage.calls
        result.input_tokens += report.usage.input_tokens + report.usage.cache_read_tokens + report.usage.cache_creation_tokens
        result.output_tokens += report.usage.output_tokens
    score(result, judge)
    return result


def _count_shown(result: ProjectResult, seen: Shown, keys: list[Any]) -> None:
    result.starts += 1
    result.start_shown += len(seen.start)
    result.start_chars += sum(len(m) for m in seen.start)
    result.start_noise += sum(1 for m in seen.start if not any(carries(m, k) for k in keys))
    for _, memories in seen.prompts:
        result.prompts += 1
        result.prompt_shown += len(memories)
        result.prompt_chars += sum(len(m) for m in memories)
        result.prompt_noise += sum(1 for m in memories if not any(carries(m, k) for k in keys))


def score(result: ProjectResult, judge: ClaimJudge | None = None) -> None:
    """Judge every repeat against what was shown before it and what the store held."""
    judges = ["keyword", "claim"] + (["model"] if judge is not None else [])
    result.saved = {j: [] for j in judges}
    result.carried = {j: [] for j in judges}
    for repeat in result.repeats:
        later_file, later_line = str(repeat["later"]).rsplit(":", 1)
        before = result.shown.get(later_file)
        shown = list(dict.fromkeys(before.before(int(later_line)))) if before else []
        held = result.store.get(later_file, [])
        for name in judges:
            result.saved[name].append(_carried(name, repeat, shown, judge))
            result.carried[name].append(_carried(name, repeat, held, judge))


def _carried(name: str, repeat: dict[str, Any], memories: list[str], judge: ClaimJudge | None) -> bool:
    if name == "keyword":
        return any(carries(m, repeat["key"]) for m in memories)
    if name == "claim":
        return any(carries_claim(m, repeat.get("facts", [])) for m in memories)
    assert judge is not None
    picked = judge.carried_by(str(repeat.get("claim", "")), memories) if repeat.get("claim") else []
    return bool(picked)


def load(path: Path = LABELS) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def run_labelled(backend: str, halves: tuple[str, ...] = ("tune", "test"), labels: Path = LABELS,
                 recall_mode: str = "words", judge: ClaimJudge | None = None) -> dict[str, list[ProjectResult]]:
    data = load(labels)
    root = docs.ROOT / str(data["root"])
    split: dict[str, list[str]] = data["split"]
    projects: dict[str, dict[str, Any]] = data["projects"]
    out: dict[str, list[ProjectResult]] = {}
    for half in halves:
        out[half] = []
        for name in (split[half] if half in split else data["model_subset"]["test"]):
            project = projects[name]
            base = docs.ROOT / project["root"] if "root" in project else root
            out[half].append(replay_project(name, [base / s for s in project["sessions"]], list(project["repeats"]),
                                            backend, recall_mode, base, judge))
    return out


def history_sessions(folder: Path) -> list[Path]:
    """A person's folder of sessions, oldest first (first timestamp, then name)."""
    from loreline.assistants import registry

    found = []
    for path in sorted(folder.rglob("*.jsonl")):
        try:
            started = registry.parse(path).transcript.started_at or ""
        except Exception as err:  # one unreadable file is skipped, with its reason
            print(f"say-once: skipped {path}: {err}", file=sys.stderr)
            continue
        found.append((started, str(path), path))
    return [p for _, _, p in sorted(found)]


