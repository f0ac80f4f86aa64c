"""Start-up of the everyday commands next to `python -c pass`, all in one run.

Each round starts every command once, in turn, so whatever else the machine does falls on all
of them alike; the figure of a command is the median over the rounds of its wall time and of
its CPU time (user + system of the child, from `RUSAGE_CHILDREN`), each divided by the floor's
median from the same rounds. The budgets (`docs/benchmarks.md#budgets`) are on the CPU ratio:
on a shared machine, waiting for a core inflates wall time and not CPU time; the wall ratio is
shown beside it.

The store is the bundled sample sessions imported with the offline rules distiller into a
throwaway home (a throwaway HOME too: no settings of the person running it are read).
`recall` is timed twice: answered by the warm recall process (started and waited for first)
and in-process with none running. `import sessions --dry-run` on one small session shows the
import's fixed start cost.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from .registry import Context, Row, median

HELP_BUDGET = 4.0  #: `--help`, `memories`, `show`, `config`: at most this many times `python -c pass`
STATUS_BUDGET = 10.0
QUERY = "can I run npm install here?"


def loreline_command() -> list[str]:
    script = Path(sys.executable).parent / "loreline"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "loreline.cli.main"]


def startup(ctx: Context) -> list[Row]:
    home = ctx.work / "startup"
    env = _env(home)
    with ctx.step("importing the sample sessions"):
        project, first_id, sample = _fill(env)
    cli = loreline_command()
    commands: dict[str, tuple[list[str], float | None]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], None),
        "loreline --help": ([*cli, "--help"], HELP_BUDGET),
        "loreline memories": ([*cli, "memories", "--project", project], HELP_BUDGET),
        "loreline show": ([*cli, "show", str(first_id)], HELP_BUDGET),
        "loreline config list": ([*cli, "config", "list"], HELP_BUDGET),
        "loreline status": ([*cli, "status"], STATUS_BUDGET),
        "loreline import sessions --dry-run (one small session)":
            ([*cli, "import", "sessions", "--dry-run", "--backend", "rules", "--path", str(sample)], None),
        "loreline recall (in-process)": ([*cli, "recall", QUERY, "--project", project], None),
    }
    subprocess.run([*cli, "status"], env=env, cwd=home, capture_output=True, check=False)  # keep its answers
    rounds = max(5, 5 * ctx.runs)
    with ctx.step(f"timing {len(commands)} commands, {rounds} rounds"):
        samples = _rounds(commands, env, home, rounds)
        warm = _warm_recall(cli, env, home, project, rounds)
    if warm:
        commands["loreline recall (warm process)"] = ([*cli, "recall", QUERY, "--project", project], None)
        samples["loreline recall (warm process)"] = warm
    floor_wall = median([w for w, _ in samples["python -c pass"]])
    floor_cpu = median([c for _, c in samples["python -c pass"]])
    rows = []
    for name, (_, budget) in commands.items():
        if name == "python -c pass":
            continue
        wall, cpu = median([w for w, _ in samples[name]]), median([c for _, c in samples[name]])
        ratio, cpu_ratio = wall / floor_wall, cpu / floor_cpu
        rows.append(Row(
            f"start-up: {name}",
            f"CPU {cpu:.0f} ms = {cpu_ratio:.1f}× the floor; {wall:.0f} ms wall = {ratio:.1f}× "
            f"(floor `python -c pass` {floor_cpu:.1f} ms CPU, {floor_wall:.1f} ms wall)",
            cpu_ratio, "× python -c pass (CPU)", f"≤ {budget:g}× `python -c pass`, CPU" if budget else "—",
            None if budget is None else cpu_ratio <= budget, rounds,
            {"wall_ms": wall, "cpu_ms": cpu, "floor_wall_ms": floor_wall, "floor_cpu_ms": floor_cpu,
             "wall_ratio": ratio, "cpu_ratio": cpu_ratio},
            "median of the rounds; every command once per round, in turn"))
    return rows


def _rounds(commands: dict[str, tuple[list[str], float | None]], env: dict[str, str], cwd: Path,
            rounds: int) -> dict[str, list[tuple[float, float]]]:
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, (argv, _) in commands.items():
            samples[name].append(_once(argv, env, cwd))
    return samples


def _once(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of one run of `argv`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(argv, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    wall = (time.perf_counter() - started) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def _warm_recall(cli: list[str], env: dict[str, str], home: Path, project: str,
                 rounds: int) -> list[tuple[float, float]]:
    """`recall` answered by the warm recall process, next to nothing else (the floor rounds are
    above); empty when the process could not be started."""
    from loreline_hooks.bench import warm_up

    if not warm_up(env):
        return []
    try:
        return [_once([*cli, "recall", QUERY, "--project", project], env, home) for _ in range(rounds)]
    finally:
        _stop_warm(env)


def _stop_warm(env: dict[str, str]) -> None:
    """Remove the warm process's socket: it leaves within a second when its socket is gone."""
    code = "import os\nfrom loreline.capture import warmsocket\nos.unlink(warmsocket.socket_path())\n"
    subprocess.run([sys.executable, "-c", code], env=env, check=False, capture_output=True)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()  # bytecode as a pip install leaves it (compiled once)
           if not k.startswith(("LORELINE_", "XDG_", "CLAUDE_", "ANTHROPIC_")) and k != "PYTHONDONTWRITEBYTECODE"}
    (home / "user").mkdir(parents=True, exist_ok=True)
    env["HOME"] = str(home / "user")
    env["LORELINE_HOME"] = str(home / "loreline")
    env["LORELINE_PROMPT_RECALL"] = "meaning"
    return env


def _fill(env: dict[str, str]) -> tuple[str, int, Path]:
    """Import the bundled samples; (a project with memories, one memory's id, the smallest sample)."""
    from loreline.samples import sample_files

    samples = sorted(sample_files(), key=lambda p: p.stat().st_size)
    subprocess.run([*loreline_command(), "import", "sessions", "--backend", "rules", "--path", *map(str, samples)],
                   env=env, check=True, capture_output=True)
    listed = subprocess.run([*loreline_command(), "memories", "--all", "--json"], env=env, check=True,
                            capture_output=True)
    memories = json.loads(listed.stdout)
    if not memories:
        raise RuntimeError("the sample import left no memories to time `show` and `recall` on")
    return str(memories[0]["project"]), int(memories[0]["id"]), samples[0]


def markdown(rows: list[Row], machine: str) -> str:
    from .docs import markdown_table

    table = [[r.name.removeprefix("start-up: "), r.figure, r.budget, r.verdict()] for r in rows]
    return "\n".join([
        "## Start-up of the everyday commands (`scripts/bench --only startup`)", "",
        f"Measured {machine}.", "",
        markdown_table(["command", "figure", "budget", "result"], table), "",
        (__doc__ or "").split("\n\n", 1)[1].strip().replace("(`docs/benchmarks.md#budgets`)", "([Budgets](#budgets))"),
    ])
