"""`loreline reembed`: rebuild every memory's vector with the current embedder."""

from __future__ import annotations

import argparse
import sys

from .common import open_api


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("reembed", help="rebuild every memory's vector with the current embedder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    def progress(done: int) -> None:
        print(f"  {done:,} memories re-embedded …", file=sys.stderr, flush=True)

    with open_api() as lore:
        count, fingerprint, before = lore.reembed(progress)
    print(f"Re-embedded {count} memories with {fingerprint}" + (f" (was {before})." if before else "."))
    return 0
