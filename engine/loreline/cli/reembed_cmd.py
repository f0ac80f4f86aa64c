"""`loreline reembed`: rebuild every memory's vector with the current embedder; `--cues` first has
a model write the retrieval cues of memories no model wrote cues for."""

from __future__ import annotations

import argparse
import sys

from .common import backend_choice, open_api


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("reembed", help="rebuild every memory's vector with the current embedder")
    p.add_argument("--cues", action="store_true",
                   help="first have a model write retrieval cues (questions a memory answers, topic words) for the "
                        "memories no model wrote cues for: those of the offline rules, of a person, of imports "
                        "(one short call each)")
    p.add_argument("--backend", type=backend_choice, metavar="BACKEND",
                   help="with --cues: the model backend (default: config distill.backend)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    def progress(done: int) -> None:
        print(f"  {done:,} memories re-embedded …", file=sys.stderr, flush=True)

    with open_api() as lore:
        if args.cues:
            written, refused = lore.write_cues(args.backend, lambda n: print(f"  {n:,} cues written …",
                                                                             file=sys.stderr, flush=True))
            print(f"Wrote cues for {written} memories" + (f"; {refused} answers were unusable." if refused else "."))
            return 0
        count, fingerprint, before = lore.reembed(progress)
    print(f"Re-embedded {count} memories with {fingerprint}" + (f" (was {before})." if before else "."))
    return 0
