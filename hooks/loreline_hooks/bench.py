"""Wall time of the hook entry, next to `python -c pass` on the same interpreter.

    python -m loreline_hooks.bench [--runs N] [--json]

Runs in a throwaway HOME with `LORELINE_HOME` unset, as a user's hook runs (the platform
dirs are resolved, the config is absent). Measured: `Stop` (one spool file), `SessionStart`
without a store, `SessionStart` injecting memories from a store filled by importing
Loreline's bundled sample sessions, and `UserPromptSubmit` on that store for a prompt one
memory answers (its lookup included) and for an unrelated prompt (nothing added), by words and
by meaning (the warm recall process answering; it is started and waited for first), and
`PreToolUse` for a command a memory is tied to, a file a memory rests on and an unrelated
command (each run a new session, so the memory is added every time). The store is filled by the `loreline` CLI in a
subprocess, so this module itself stays standard-library only. The budget is a median of
40 ms (docs/benchmarks.md#budgets); this reports, it does not judge.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUDGET_MS = 40.0
PROMPT_BUDGET_MS = 60.0
#: prompts for the sample store: one its release procedure answers, one nothing answers
RELEVANT_PROMPT = "How do I publish a release of the packages?"
UNRELATED_PROMPT = "What's the weather like in Paris this weekend?"
#: a prompt of several sentences: by meaning, the whole and each of its first parts are recalled
#: tool calls on the sample store: a command its release procedure is tied to, a file two memories
#: rest on, and a command nothing is tied to
TOOL_CALLS = (("command", {"tool_name": "Bash", "tool_input": {"command": "pnpm changeset version"}}),
              ("file", {"tool_name": "Edit", "tool_input": {"file_path": "src/pages/Cart.tsx"}}),
              ("unrelated", {"tool_name": "Bash", "tool_input": {"command": "ls -la"}}))
LONG_PROMPT = ("I reworked the parser yesterday and the tests pass locally. How do I publish a release of the "
               "packages? Also, should the changelog be updated first, and who reviews it? Then tell me what "
               "else usually breaks after a release.")


def hook_command() -> list[str]:
    script = Path(sys.executable).parent / "loreline-hook"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "loreline_hooks.entry"]


def time_runs(argv: list[str], stdin: bytes | list[bytes], env: dict[str, str], runs: int) -> dict[str, float]:
    """Wall time of `runs` starts, and the CPU time (user and system) of each started process
    (not of a warm process it asks); a list of inputs gives each run its own."""
    import resource

    samples, cpu = [], []
    for n in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, input=stdin[n % len(stdin)] if isinstance(stdin, list) else stdin,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        samples.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
    samples.sort()
    return {"median_ms": round(statistics.median(samples), 2), "p90_ms": round(samples[int(len(samples) * 0.9) - 1], 2),
            "min_ms": round(samples[0], 2), "cpu_median_ms": round(statistics.median(cpu), 2), "runs": runs}


def _env(root: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()  # bytecode as a pip install leaves it (compiled once)
           if not k.startswith(("LORELINE_", "XDG_", "CLAUDE_", "ANTHROPIC_")) and k != "PYTHONDONTWRITEBYTECODE"}
    env["HOME"] = str(root / "home")
    (root / "home").mkdir()
    return env


def _fill_store(env: dict[str, str], project: Path) -> str:
    """Import the bundled samples; returns the cwd of the session with memories."""
    from loreline.samples import sample_files

    samples = list(sample_files())
    # every statement the rules find is stored active: the prompts below are timed against them
    subprocess.run([sys.executable, "-P", "-m", "loreline.cli.main", "import", "sessions", "--path", *map(str, samples)],
                   env={**env, "LORELINE_RULES_SUGGEST": "0"}, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    first = json.loads(samples[0].read_text(encoding="utf-8").splitlines()[1])
    return str(first.get("cwd") or project)


def measure(runs: int = 40) -> dict[str, dict[str, float]]:
    root = Path(tempfile.mkdtemp(prefix="loreline-hook-bench-"))
    try:
        env = _env(root)
        project = root / "project"
        project.mkdir()
        hook = hook_command()
        stop = json.dumps({"session_id": "bench-session", "transcript_path": str(project / "s.jsonl"),
                           "cwd": str(project), "hook_event_name": "Stop", "last_assistant_message": "Done." * 40})
        env["LORELINE_PROMPT_RECALL"] = "words"  # no warm process until the prompts by meaning
        results = {"python -c pass": time_runs([sys.executable, "-c", "pass"], b"", env, runs),
                   "Stop": time_runs([*hook, "Stop"], stop.encode(), env, runs)}
        start = {"session_id": "bench-session", "cwd": str(project), "hook_event_name": "SessionStart"}
        results["SessionStart (no store)"] = time_runs([*hook, "SessionStart"], json.dumps(start).encode(), env, runs)
        start["cwd"] = _fill_store(env, project)
        stdin = json.dumps(start).encode()
        results["SessionStart (memories)"] = time_runs([*hook, "SessionStart"], stdin, env, runs)
        shown = subprocess.run([*hook, "SessionStart"], input=stdin, capture_output=True, env=env, check=False)
        results["SessionStart (memories)"]["output_chars"] = len(shown.stdout)
        results.update(_tools(hook, env, start["cwd"], runs))
        results.update(_prompts(hook, env, start["cwd"], runs))
        return results
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _prompts(hook: list[str], env: dict[str, str], cwd: str, runs: int) -> dict[str, dict[str, float]]:
    """UserPromptSubmit timings, by words and by meaning (the warm process answering; started
    and waited for first); each run is a new session, so the memory is added every time."""
    found: dict[str, dict[str, float]] = {}
    for how, suffix in (("words", ""), ("meaning", ", warm")):
        mode = {**env, "LORELINE_PROMPT_RECALL": how}
        if how == "meaning" and not warm_up(mode):
            continue
        for label, prompt in (("relevant", RELEVANT_PROMPT), ("unrelated", UNRELATED_PROMPT), ("long", LONG_PROMPT)):
            payload = {"cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": prompt}
            stdins = [json.dumps({**payload, "session_id": f"bench-{how}-{label}-{n}"}).encode()
                      for n in range(runs + 1)]
            name = f"UserPromptSubmit ({label}{suffix})"
            found[name] = time_runs([*hook, "UserPromptSubmit"], stdins[:-1], mode, runs)
            shown = subprocess.run([*hook, "UserPromptSubmit"], input=stdins[-1], capture_output=True, env=mode,
                                   check=False)
            found[name]["output_chars"] = len(shown.stdout)
    return found


def _tools(hook: list[str], env: dict[str, str], cwd: str, runs: int) -> dict[str, dict[str, float]]:
    """PreToolUse timings (`TOOL_CALLS`); each run is a new session."""
    found: dict[str, dict[str, float]] = {}
    for label, call in TOOL_CALLS:
        payload = {"cwd": cwd, "hook_event_name": "PreToolUse", **call}
        stdins = [json.dumps({**payload, "session_id": f"bench-tool-{label}-{n}"}).encode() for n in range(runs + 1)]
        name = f"PreToolUse ({label})"
        found[name] = time_runs([*hook, "PreToolUse"], stdins[:-1], env, runs)
        shown = subprocess.run([*hook, "PreToolUse"], input=stdins[-1], capture_output=True, env=env, check=False)
        found[name]["output_chars"] = len(shown.stdout)
    return found


def warm_up(env: dict[str, str], seconds: float = 120.0, *, start: bool = True) -> bool:
    """Whether the warm recall process of the home `env` names listens: started (unless `start`
    is False) and waited for up to `seconds`."""
    code = ("import sys, time\nfrom loreline_hooks import warm\n"
            + (f"warm.start()\nend = time.monotonic() + {seconds}\n"
               "while not warm.listening() and time.monotonic() < end:\n    time.sleep(0.05)\n" if start else "")
            + "sys.exit(0 if warm.listening() else 1)\n")
    return subprocess.run([sys.executable, "-c", code], env=env, check=False,
                          timeout=seconds + 60).returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loreline_hooks.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results = measure(max(3, args.runs))
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for name, numbers in results.items():
        print(f"{name:<34} median {numbers['median_ms']:7.2f} ms  p90 {numbers['p90_ms']:7.2f} ms"
              f"  min {numbers['min_ms']:7.2f} ms")
    print(f"budget: median <= {BUDGET_MS:.0f} ms for the hook entry, <= {PROMPT_BUDGET_MS:.0f} ms for UserPromptSubmit "
          "and PreToolUse")
    return 0


if __name__ == "__main__":
    sys.exit(main())
