"""Peak memory of a whole-tree import, measured from outside the importing process.

The import runs in a child process (`python -m benchlib.rss`): discovery over the tree with
no window or cap, then `pipeline.import_sessions` with the offline rules distiller into a
fresh LORELINE_HOME (API keys are removed from the child's environment). A baseline child
that only imports the same modules shows what the interpreter alone costs.

The peak is the child's own high-water mark, `VmHWM` in `/proc/self/status`, read as it
exits. `ru_maxrss` from `os.wait4` or `RUSAGE_CHILDREN` is not used on Linux: exec carries
the parent's high-water mark into the child's, so a big parent inflates every child's
figure. Where `/proc` is missing (macOS), the parent falls back to `os.wait4`'s `ru_maxrss`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from .registry import Context, Row, median

BUDGET_MB = 200.0
SCRIPTS = Path(__file__).resolve().parent.parent


def peak_rss(ctx: Context) -> list[Row]:
    size = ctx.rss_size_mb if ctx.rss_size_mb is not None else ctx.size_mb
    tree = ctx.main_tree() if size == ctx.size_mb else ctx.tree("rss", size)
    baseline = run_child(["--baseline"], ctx.work / "rss-baseline")
    results = []
    for run in range(ctx.heavy_runs):
        with ctx.step(f"importing {size:g} MB in a child process (run {run + 1}/{ctx.heavy_runs})"):
            results.append(run_child([str(tree.root)], ctx.work / f"rss-home-{run}"))
    peak = median([r["peak_mb"] for r in results])
    wall = median([r["wall_s"] for r in results])
    report = results[-1]["report"]
    return [Row(
        f"peak RSS importing a {size:g} MB tree", f"{peak:.0f} MB (interpreter + modules alone: "
        f"{baseline['peak_mb']:.0f} MB; {wall:.1f} s wall)", peak, "MB", f"≤ {BUDGET_MB:g} MB RSS",
        peak <= BUDGET_MB, ctx.heavy_runs,
        {"peak_mb_runs": [r["peak_mb"] for r in results], "baseline_mb": baseline["peak_mb"], "wall_s": wall,
         "report": report},
        f"{report.get('imported', 0)} sessions imported, {report.get('added', 0)} memories added; "
        "one run: heavy" if ctx.heavy_runs == 1 else f"{ctx.heavy_runs} runs",
    )]


def run_child(args: list[str], home: Path) -> dict[str, Any]:
    """Run this module as a child; returns its JSON output plus its peak RSS and wall time."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    env["LORELINE_HOME"] = str(home)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SCRIPTS), env.get("PYTHONPATH", "")]))
    started = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen([sys.executable, "-m", "benchlib.rss", *args], stdout=subprocess.PIPE,
                                stderr=errors, env=env)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            errors.seek(0)
            tail = errors.read().decode("utf-8", "replace").strip().splitlines()[-1:]
            raise RuntimeError(f"the import child failed ({proc.returncode}): {' '.join(tail)}")
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB elsewhere
    report = orjson.loads(out) if out.strip() else {}
    hwm_kb = report.pop("vm_hwm_kb", None)
    peak = hwm_kb * 1024 if hwm_kb else usage.ru_maxrss * scale
    return {"peak_mb": peak / (1024 * 1024), "wall_s": time.perf_counter() - started, "report": report}


def high_water_kb() -> int | None:
    """This process's peak resident set in KiB (Linux), or None."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def child(argv: list[str]) -> int:
    """The child's side: import everything under the tree (or, with --baseline, nothing)."""
    from loreline import pipeline
    from loreline.distill.rules import RulesDistiller
    from loreline.store import Store
    from loreline.assistants import registry

    if argv == ["--baseline"]:
        sys.stdout.write(orjson.dumps({"vm_hwm_kb": high_water_kb()}).decode())
        return 0
    found = registry.discover_claude(Path(argv[0]), days=100_000, max_sessions=10**9, settle_seconds=0)
    with Store() as store:
        report = pipeline.import_sessions(store, found.in_import_order(), pipeline.Options(distiller=RulesDistiller()))
    sys.stdout.write(orjson.dumps({
        "imported": report.imported, "failed": len(report.failed), "left_out": len(found.left_out),
        "turns": report.turns, "chunks": report.chunks, "added": report.added, "merged": report.merged,
        "vm_hwm_kb": high_water_kb(),
    }).decode())
    return 0


if __name__ == "__main__":
    sys.exit(child(sys.argv[1:]))
