"""`loreline demo`: import the bundled sample sessions into a throwaway home and show
the memories, a recall and one memory's provenance. Touches nothing of the user's."""

from __future__ import annotations

import argparse

TYPE_CHECKING = False  # typing and pathlib are left to the commands that run: `--help` imports neither
if TYPE_CHECKING:
    from pathlib import Path


QUERY = "can I run npm install here?"


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("demo", help="import bundled sample sessions into a temporary home and show the results")
    p.add_argument("--keep", action="store_true", help="keep the temporary home and print its path")
    p.add_argument("--view", action="store_true", help="then open the demo's store in the local viewer (Ctrl-C ends it)")
    p.add_argument("--no-browser", action="store_true", help="with --view: only print the viewer's address")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import shutil
    import tempfile

    root = Path(tempfile.mkdtemp(prefix="loreline-demo-"))
    try:
        _demo(root)
        if args.view:
            _section("7. The local viewer on the demo's store")
            _view(root / "home" / "loreline.db", args.no_browser)
    finally:
        if args.keep:
            print(f"\nDemo files kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def _plant(claude: Path) -> list[Path]:
    """Lay the samples out as Claude Code does, aged past the 5-minute settling window."""
    import json
    import os
    import time

    from ..api.samples import project_slug, sample_files, write_private

    planted = []
    for age, sample in enumerate(sample_files(), start=1):
        first = json.loads(sample.read_text(encoding="utf-8").splitlines()[1])
        target = claude / "projects" / project_slug(first["cwd"]) / sample.name
        write_private(target, sample.read_bytes())
        stamp = time.time() - age * 3600
        os.utime(target, (stamp, stamp))
        planted.append(target)
    return planted


def _demo(root: Path) -> None:
    from ..api import imports
    from ..api.results import ImportRequest
    from ..api.session import Loreline
    from . import render

    claude = root / "claude"
    _plant(claude)
    db = root / "home" / "loreline.db"
    plan = imports.plan(ImportRequest(homes={"claude-code": str(claude)}, backend="rules"))
    with Loreline(db) as lore:
        _section("1. Import the sample Claude Code sessions (offline rules distiller, no API key)")
        print(render.import_report(imports.run(plan, store_path=db).report))

        _section("2. Suggestions, per project: the offline rules assert nothing on their own")
        for project in lore.projects():
            said_again = lore.memories(project, limit=1000)
            if said_again.total:
                print(f"{project}: active, because it was said again in a later session:")
                print("\n".join(f"  ✓ {m.text}" for m in said_again.items))
            held = lore.held(project)
            if held.total:
                print(f"{project}: {held.total} suggested by the offline rules, waiting in `loreline review`:")
                print("\n".join(f"  ? {m.text}" for m in held.items) + "\n")
                for m in held.items:  # what `loreline review` → approve does, for each of them
                    lore.approve(m.id)

        _section("3. Memories, per project, once approved as `loreline review` would")
        for project in lore.projects():
            page = lore.memories(project, limit=1000)
            print(render.memory_list(list(page.items), page.total, project) + "\n")

        _section(f"4. Recall in /home/dev/acme-shop: {QUERY!r}")
        hits = lore.recall("/home/dev/acme-shop", QUERY, limit=3)
        print(render.recall_hits(QUERY, hits))

        if hits:
            _section(f"5. Provenance of memory #{hits[0].memory.id}")
            print(render.memory_detail(lore.memory(hits[0].memory.id)))

        _section("6. Import again: the ledger skips unchanged sessions")
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
