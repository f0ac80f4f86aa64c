"""`loreline demo`: import the bundled sample sessions into a throwaway home and show
the memories, a recall and one memory's provenance. Touches nothing of the user's."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from .. import home
from ..api import ImportRequest, Loreline, imports
from ..api.samples import project_slug, sample_files
from . import render

QUERY = "can I run npm install here?"


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("demo", help="import bundled sample sessions into a temporary home and show the results")
    p.add_argument("--keep", action="store_true", help="keep the temporary home and print its path")
    p.add_argument("--view", action="store_true", help="then open the demo's store in the local viewer (Ctrl-C ends it)")
    p.add_argument("--no-browser", action="store_true", help="with --view: only print the viewer's address")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    root = Path(tempfile.mkdtemp(prefix="loreline-demo-"))
    try:
        _demo(root)
        if args.view:
            _section("6. The local viewer on the demo's store")
            _view(root / "home" / "loreline.db", args.no_browser)
    finally:
        if args.keep:
            print(f"\nDemo files kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def _plant(claude: Path) -> list[Path]:
    """Lay the samples out as Claude Code does, aged past the 5-minute settling window."""
    planted = []
    for age, sample in enumerate(sample_files(), start=1):
        first = json.loads(sample.read_text(encoding="utf-8").splitlines()[1])
        target = claude / "projects" / project_slug(first["cwd"]) / sample.name
        home.write_private(target, sample.read_bytes())
        stamp = time.time() - age * 3600
        os.utime(target, (stamp, stamp))
        planted.append(target)
    return planted


def _demo(root: Path) -> None:
    claude = root / "claude"
    _plant(claude)
    db = root / "home" / "loreline.db"
    plan = imports.plan(ImportRequest(homes={"claude-code": str(claude)}, backend="rules"))
    with Loreline(db) as lore:
        _section("1. Import the sample Claude Code sessions (offline rules distiller, no API key)")
        print(render.import_report(imports.run(plan, store_path=db).report))

        _section("2. Memories, per project")
        for project in lore.projects():
            page = lore.memories(project, limit=1000)
            print(render.memory_list(list(page.items), page.total, project) + "\n")
            held = lore.held(project)
            if held.total:
                print(f"{held.total} more the offline rules only suggest wait in `loreline review`:")
                print("\n".join(f"  ? {m.text}" for m in held.items) + "\n")

        _section(f"3. Recall in /home/dev/acme-shop: {QUERY!r}")
        hits = lore.recall("/home/dev/acme-shop", QUERY, limit=3)
        print(render.recall_hits(QUERY, hits))

        if hits:
            _section(f"4. Provenance of memory #{hits[0].memory.id}")
            print(render.memory_detail(lore.memory(hits[0].memory.id)))

        _section("5. Import again: the ledger skips unchanged sessions")
        print(render.import_report(imports.run(plan, store_path=db).report))


def _view(db: Path, no_browser: bool) -> None:
    """Serve the demo's store in the viewer until Ctrl-C (or SIGTERM), which ends the viewer too,
    so the throwaway home can be removed."""
    import signal
    import subprocess
    import sys

    from .view_cmd import viewer_argv

    sys.stdout.flush()
    viewer = subprocess.Popen([sys.executable, *viewer_argv(no_browser=no_browser, store=str(db))])
    before = signal.signal(signal.SIGTERM, lambda *_: viewer.terminate())
    try:
        viewer.wait()
    except KeyboardInterrupt:
        viewer.terminate()
        viewer.wait()
    finally:
        signal.signal(signal.SIGTERM, before)


def _section(title: str) -> None:
    print(f"\n== {title}")
