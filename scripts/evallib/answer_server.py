"""`scripts/eval serve-answers DIR`: a set of recorded answers served as an OpenAI-compatible
chat server on loopback, so the recorded-answers evals run through the `openai-compatible`
backend's own client (HTTP, the answer format, its parsing and usage) and must give the
figures `--backend recorded:DIR` gives.

Each request is read back as the logical request it carries (`chat_server.Asked`: system
prompt, user message, tool, model) and keyed as `recorded.request_key` keys it, so the same
set serves both; the model the client asks for must be the set's (`set.json`'s `model`), as a
recorded run stands for that model. A request the set has no answer for is written to the
set's `requests/` and listed in `recorded.MISSING` (in this process) as `recorded:DIR` does,
and answered with an empty message: the client sees no usable answer, as it would from
`recorded:DIR`, but has made the call (it is counted, and the distiller asks once more), so
model calls and tokens match `recorded:DIR` only on a set that answers every request.

    scripts/eval serve-answers tests/eval/answers [--port 8765]
    LORELINE_OPENAI_BASE_URL=http://127.0.0.1:8765/v1 LORELINE_OPENAI_MODEL=claude-haiku-4-5 \\
        scripts/eval say-once --backend openai-compatible
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from loreline.distill import recorded
from loreline.distill.recorded import AnswerSet, request_key

from .chat_server import Answer, Asked, ChatServer, Raw


class Answers:
    """The callback that answers a `ChatServer` from one set."""

    def __init__(self, folder: Path) -> None:
        self.set = AnswerSet(folder)
        self.answered = 0

    def __call__(self, asked: Asked) -> Answer:
        key = request_key(asked.tool, asked.system, asked.user, asked.model)
        found = self.set.answer(key)
        if found is None:
            self.set.save_request(key, asked.tool, asked.system, asked.user, asked.model)
            entry = (str(self.set.folder), key, str(asked.tool.get("name")))
            if entry not in recorded.MISSING:
                recorded.MISSING.append(entry)
            return Raw(content="")
        self.answered += 1
        return found


def serve(folder: Path, port: int = 0) -> ChatServer:
    """The set's server, not yet started (use it in a `with` block)."""
    return ChatServer(Answers(folder), port=port)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="scripts/eval serve-answers",
                                description="Serve a set of recorded answers as an OpenAI-compatible chat server.")
    p.add_argument("folder", type=Path, help="the answer set (e.g. tests/eval/answers)")
    p.add_argument("--port", type=int, default=0, help="the loopback port (default: a free one)")
    args = p.parse_args(argv)
    folder = args.folder.expanduser()
    model = AnswerSet(folder).model()
    with serve(folder, args.port) as server:
        print(f"serving {folder} at {server.url}\n"
              f"  LORELINE_OPENAI_BASE_URL={server.url} LORELINE_OPENAI_MODEL={model} "
              "scripts/eval … --backend openai-compatible", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            return 0


if __name__ == "__main__":
    sys.exit(main())
