"""`loreline reembed`: rebuild every memory's vector with the current embedder."""

from __future__ import annotations

import argparse

from .. import vectors
from ..embed import default_embedder
from ..vectors import EMBEDDER_KEY
from .common import open_store


def register(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    p = sub.add_parser("reembed", help="rebuild every memory's vector with the current embedder")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    embedder = default_embedder()
    with open_store() as store:
        before = store.meta(EMBEDDER_KEY)
        count = vectors.reembed(store, embedder)
    print(f"Re-embedded {count} memories with {embedder.fingerprint}" + (f" (was {before})." if before else "."))
    return 0
