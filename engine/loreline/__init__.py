"""Loreline: durable, evidence-backed memories from AI coding-assistant sessions.

This package is the engine and the CLI. It must stay cheap to import: the hook entry
imports `loreline.home` on every assistant turn, so nothing heavy is imported here.
"""

import os as _os

__version__ = "0.1.0"

# One BLAS thread for the sentence embedder (`embed.minilm`): the matrices of one text are
# small, and worker threads that spin waiting for work double its time whenever the other
# core is busy (measured: 15 → 30 ms per memory under load). numpy reads these when it is
# first imported (sqlite-vec imports it), so they are set here, before anything else can.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_name, "1")
