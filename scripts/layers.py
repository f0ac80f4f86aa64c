"""Loreline's layers, from the code: `python scripts/layers.py diagram` prints the layer picture
(tests/layout_rules.py's `LAYERS` and the real import graph), `write` puts it into docs/layout.md,
`walk` follows an editor's import request through the code and counts where it goes.

The walk runs the language server's import (`loreline_lsp.service.run_import`, discovery of
Claude Code's sessions in a throwaway home holding the bundled sample sessions, the offline
rules distiller) under a profiler hook and records every call from one of Loreline's files into
another. A step is such a call between two files; a climb is a step into a layer above the
caller's, counted two ways: through an import (the caller's module imports the callee's: what
the layout test forbids) and through what the caller was handed (a function of a record given
to it, such as an assistant's session format or memory reader). `--root DIR` walks another
checkout (e.g. `main`) with the same layers, the registry being `loreline.assistants` where it
is still the package's own module.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
DOC = HERE / "docs" / "layout.md"
BEGIN, END = "<!-- layers:begin (scripts/layers.py write) -->", "<!-- layers:end -->"


def _rules():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(HERE))
    from tests import layout_rules

    return layout_rules


def diagram() -> str:
    rules = _rules()
    return rules.diagram(rules.import_graph())


def write(doc: Path = DOC) -> bool:
    """Replace the picture between the markers in `doc`; True when it changed."""
    text = doc.read_text(encoding="utf-8")
    block = f"{BEGIN}\n```text\n{diagram()}\n```\n{END}"
    new = re.sub(re.escape(BEGIN) + r".*?" + re.escape(END), lambda _: block, text, flags=re.S)
    if new != text:
        doc.write_text(new, encoding="utf-8")
    return new != text


def walk(root: Path) -> dict[str, object]:
    """Follow one editor import request through the code of the checkout at `root`."""
    folders = [root / "engine", root / "lsp", root / "hooks"]
    sys.path[:0] = [str(f) for f in folders]
    rules = _rules()
    layers = rules.LAYERS
    if not (root / "engine" / "loreline" / "assistants" / "registry.py").is_file():
        layers = tuple((title, tuple("loreline.assistants" if n == "loreline.assistants.registry" else
                                     "loreline.assistants.base" if n == "loreline.assistants" else n for n in names))
                       for title, names in layers)
    graph = rules.import_graph(tuple(folders))
    work = Path(tempfile.mkdtemp(prefix="loreline-walk-"))
    try:
        steps = _traced_import(work, folders)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _count(steps, graph, layers, rules.layer_of)


def _traced_import(work: Path, folders: list[Path]) -> list[tuple[str, str]]:
    claude = work / "claude"
    os.environ.update({"HOME": str(work), "LORELINE_HOME": str(work / "loreline"), "CLAUDE_CONFIG_DIR": str(claude)})
    (work / "loreline").mkdir()
    (work / "loreline" / "config.toml").write_text('[distill]\nbackend = "rules"\n', encoding="utf-8")
    from loreline.samples import sample_files

    old = time.time() - 3600
    for sample in sample_files():
        target = claude / "projects" / "-work-demo" / sample.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(sample, target)
        os.utime(target, (old, old))
    from loreline_lsp import service

    steps: list[tuple[str, str]] = []
    names = {str(f): f for f in folders}

    def module(filename: str) -> str | None:
        for text, folder in names.items():
            if filename.startswith(text + os.sep):
                parts = list(Path(filename).relative_to(folder).with_suffix("").parts)
                return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        return None

    def profile(frame, event, arg):  # type: ignore[no-untyped-def]
        if event != "call" or frame.f_code.co_name == "<module>" or frame.f_back is None:
            return
        callee, caller = module(frame.f_code.co_filename), module(frame.f_back.f_code.co_filename)
        if callee and caller and callee != caller:
            steps.append((caller, callee))

    sys.setprofile(profile)
    try:
        outcome = service.run_import(None, "claude-code", 14, 20, lambda *a: None, lambda: False)
    finally:
        sys.setprofile(None)
    assert outcome.report.imported == len(sample_files()), outcome
    return steps


def _count(steps, graph, layers, layer_of) -> dict[str, object]:  # type: ignore[no-untyped-def]
    distinct = Counter(steps)
    files = {m for step in distinct for m in step}
    climbs = {step: n for step, n in distinct.items()
              if (a := layer_of(step[0], layers)) is not None and (b := layer_of(step[1], layers)) is not None and b < a}
    imported = {step: n for step, n in climbs.items() if step[1] in graph.get(step[0], {})}
    handed = {step: n for step, n in climbs.items() if step not in imported}
    adapters = [title for title, _ in layers].index("adapters")
    into_adapter = {step: n for step, n in imported.items() if layer_of(step[1], layers) == adapters}
    return {"files": len(files), "steps": len(steps), "distinct steps": len(distinct),
            "climbs through an import": sorted(imported), "climbs through what was handed": sorted(handed),
            "climbs into an adapter through an import": sorted(into_adapter)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/layers.py", description=__doc__.split("\n\n")[0])
    p.add_argument("what", choices=("diagram", "write", "walk"))
    p.add_argument("--root", type=Path, default=HERE, help="the checkout to walk (default: this one)")
    args = p.parse_args(argv)
    if args.what == "diagram":
        print(diagram())
    elif args.what == "write":
        print("docs/layout.md " + ("updated" if write() else "already up to date"))
    else:
        for key, value in walk(args.root.resolve()).items():
            if isinstance(value, list):
                print(f"{key}: {len(value)}")
                for caller, callee in value:
                    print(f"    {caller} -> {callee}")
            else:
                print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
