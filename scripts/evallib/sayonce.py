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

A labelled repeat (`tests/eval/sayonce/labels.json`) is **saved** when a memory shown before the
person said it again (in that session's SessionStart block, or for one of that session's prompts
before the labelled line) carries it: the memory's text holds every phrase of one of the label's
`key` alternatives, case-insensitive. Every other memory shown is **noise** (it matches no label
of the project); noise is counted per session start and per prompt.

`--history DIR` replays a person's own folder of sessions of one project (ordered by their first
timestamp); with `--labels FILE` in the same format it also scores them, without it it reports
what would have been shown and where.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchlib import docs

LABELS = docs.ROOT / "tests" / "eval" / "sayonce" / "labels.json"
HOOK_CODE = "import sys\nfrom loreline_hooks.entry import main\nsys.exit(main(sys.argv[1:]))"
_MEMORY_LINE = re.compile(r"^- (?:#\d+ )?(?:\w[\w ]*: )?(.*?)(?: \(#\d+(?:, #\d+)*\))?$")


@dataclass
class Shown:
    """What the hooks showed in one session: the SessionStart lines and, per prompt line, the
    prompt's memory lines."""

    start: list[str] = field(default_factory=list)
    prompts: list[tuple[int, list[str]]] = field(default_factory=list)
    #: characters of context the hooks added: the SessionStart block, and every prompt's blocks
    start_chars: int = 0
    prompt_chars: int = 0

    def before(self, line: int) -> list[str]:
        return self.start + [m for at, memories in self.prompts if at < line for m in memories]


@dataclass
class ProjectResult:
    name: str
    sessions: int
    repeats: list[dict[str, Any]]
    saved: list[bool]
    starts: int = 0
    start_noise: int = 0
    start_shown: int = 0
    prompts: int = 0
    prompt_noise: int = 0
    prompt_shown: int = 0
    start_chars: int = 0
    prompt_chars: int = 0
    shown: dict[str, Shown] = field(default_factory=dict)


def carries(memory: str, key: list[list[str]]) -> bool:
    text = memory.lower()
    return any(all(phrase.lower() in text for phrase in alternative) for alternative in key)


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
    from loreline import transcripts

    parsed = transcripts.parse(path).transcript
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
        seen.start_chars = len(block or "")
        for line, text in typed:
            answer = self.hook("UserPromptSubmit", {**base, "hook_event_name": "UserPromptSubmit", "prompt": text})
            seen.prompts.append((line, memory_lines(answer) if answer else []))
            seen.prompt_chars += len(answer or "")
        return seen

    def imported(self, path: Path) -> None:
        old = os.environ.get("LORELINE_HOME")
        os.environ["LORELINE_HOME"] = str(self.home)
        try:
            from loreline.api import imports
            from loreline.api.results import ImportRequest

            imports.run(imports.plan(ImportRequest(paths=(str(path),), backend=self.backend)))
        finally:
            if old is None:
                os.environ.pop("LORELINE_HOME", None)
            else:
                os.environ["LORELINE_HOME"] = old


def replay_project(name: str, sessions: list[Path], repeats: list[dict[str, Any]], backend: str,
                   recall_mode: str = "words", root: Path | None = None) -> ProjectResult:
    run = Replay(backend, recall_mode)
    result = ProjectResult(name, len(sessions), repeats, [])
    keys = [r["key"] for r in repeats]
    for index, path in enumerate(sessions):
        rel = str(path.relative_to(root)) if root else path.name
        if index:
            seen = run.shown(path)
            result.shown[rel] = seen
            result.starts += 1
            result.start_shown += len(seen.start)
            result.start_chars += seen.start_chars
            result.prompt_chars += seen.prompt_chars
            result.start_noise += sum(1 for m in seen.start if not any(carries(m, k) for k in keys))
            for _, memories in seen.prompts:
                result.prompts += 1
                result.prompt_shown += len(memories)
                result.prompt_noise += sum(1 for m in memories if not any(carries(m, k) for k in keys))
        run.imported(path)
    for repeat in repeats:
        later_file, later_line = str(repeat["later"]).rsplit(":", 1)
        before = result.shown.get(later_file)
        memories = before.before(int(later_line)) if before else []
        result.saved.append(any(carries(m, repeat["key"]) for m in memories))
    return result


def load(path: Path = LABELS) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def run_labelled(backend: str, halves: tuple[str, ...] = ("tune", "test"), labels: Path = LABELS,
                 recall_mode: str = "words") -> dict[str, list[ProjectResult]]:
    data = load(labels)
    root = docs.ROOT / str(data["root"])
    split: dict[str, list[str]] = data["split"]
    projects: dict[str, dict[str, Any]] = data["projects"]
    out: dict[str, list[ProjectResult]] = {}
    for half in halves:
        out[half] = []
        for name in split[half]:
            project = projects[name]
            base = docs.ROOT / project["root"] if "root" in project else root
            out[half].append(replay_project(name, [base / s for s in project["sessions"]], list(project["repeats"]),
                                            backend, recall_mode, base))
    return out


def history_sessions(folder: Path) -> list[Path]:
    """A person's folder of sessions, oldest first (first timestamp, then name)."""
    from loreline import transcripts

    found = []
    for path in sorted(folder.rglob("*.jsonl")):
        try:
            started = transcripts.parse(path).transcript.started_at or ""
        except Exception as err:  # one unreadable file is skipped, with its reason
            print(f"say-once: skipped {path}: {err}", file=sys.stderr)
            continue
        found.append((started, str(path), path))
    return [p for _, _, p in sorted(found)]


def totals(results: list[ProjectResult]) -> dict[str, float]:
    repeats = [r for p in results for r in p.repeats]
    saved = [s for p in results for s in p.saved]
    corrections = [s for p in results for r, s in zip(p.repeats, p.saved) if r["correction"]]
    starts = sum(p.starts for p in results)
    prompts_ = sum(p.prompts for p in results)
    return {
        "projects": len(results), "sessions": sum(p.sessions for p in results),
        "repeats": len(repeats), "saved": sum(saved),
        "corrections": len(corrections), "saved_corrections": sum(corrections),
        "starts": starts, "start_shown": sum(p.start_shown for p in results),
        "start_noise": sum(p.start_noise for p in results),
        "prompts": prompts_, "prompt_shown": sum(p.prompt_shown for p in results),
        "prompt_noise": sum(p.prompt_noise for p in results),
        "start_chars": sum(p.start_chars for p in results),
        "prompt_chars": sum(p.prompt_chars for p in results),
    }


def line(half: str, t: dict[str, float]) -> str:
    per_start = t["start_noise"] / t["starts"] if t["starts"] else 0.0
    per_prompt = t["prompt_noise"] / t["prompts"] if t["prompts"] else 0.0
    return (f"{half}: saved {t['saved']:.0f}/{t['repeats']:.0f} repeats, {t['saved_corrections']:.0f}/"
            f"{t['corrections']:.0f} corrections ({t['projects']:.0f} projects, {t['sessions']:.0f} sessions); "
            f"noise {per_start:.1f} per session start ({t['start_shown']:.0f} shown), "
            f"{per_prompt:.2f} per prompt ({t['prompt_shown']:.0f} shown over {t['prompts']:.0f} prompts); "
            f"{shown_line(t)}")


def per(t: dict[str, float], what: str, over: str) -> float:
    return t[what] / t[over] if t[over] else 0.0


def shown_line(t: dict[str, float]) -> str:
    """Memory lines and tokens (characters / 4) the hooks added, per session start and per prompt."""
    return (f"shown per session start {per(t, 'start_shown', 'starts'):.1f} lines, "
            f"{per(t, 'start_chars', 'starts') / 4:.0f} tokens; per prompt {per(t, 'prompt_shown', 'prompts'):.2f} "
            f"lines, {per(t, 'prompt_chars', 'prompts') / 4:.0f} tokens")


def details(results: list[ProjectResult]) -> list[str]:
    rows = []
    for p in results:
        for repeat, saved in zip(p.repeats, p.saved):
            mark = "saved" if saved else "MISSED"
            rows.append(f"  {mark:6} {p.name}: {repeat['later']} ({repeat.get('note', '')})")
    return rows


def history_report(results: ProjectResult, verbose: bool = True) -> list[str]:
    out = []
    for rel, seen in results.shown.items():
        out.append(f"{rel}: {len(seen.start)} at session start, "
                   f"{sum(len(m) for _, m in seen.prompts)} for {len(seen.prompts)} prompts")
        if verbose:
            out += [f"    start: {m[:160]}" for m in seen.start]
            out += [f"    line {at}: {m[:160]}" for at, ms in seen.prompts for m in ms]
    return out


def markdown(rows: list[tuple[str, str, dict[str, float]]]) -> str:
    head = ("Say it once: on real multi-session histories (`tests/eval/sayonce/`), how many of the times a "
            "person repeated something an earlier session had settled would Loreline have spared them? A "
            "repeat is saved when the real hooks showed a memory carrying it (its text holds the label's key "
            "phrases) before the person said it again: in that session's SessionStart block or for an earlier "
            "prompt of the session (words recall). Sessions are imported one by one through the api as they "
            "end. Noise: memories shown that match no label. Computed by `scripts/eval say-once`; for your own "
            "history: `scripts/eval say-once --history DIR [--labels FILE]`.\n\n"
            "| backend | half | repeats saved | corrections saved | noise per session start | noise per prompt |\n"
            "| --- | --- | --- | --- | --- | --- |\n")
    body = ""
    for backend, half, t in rows:
        per_start = t["start_noise"] / t["starts"] if t["starts"] else 0.0
        per_prompt = t["prompt_noise"] / t["prompts"] if t["prompts"] else 0.0
        body += (f"| {backend} | {half} ({t['projects']:.0f} projects, {t['sessions']:.0f} sessions) | "
                 f"{t['saved']:.0f} / {t['repeats']:.0f} | {t['saved_corrections']:.0f} / {t['corrections']:.0f} | "
                 f"{per_start:.1f} | {per_prompt:.2f} |\n")
    return head + body
