"""The blind retrieval cues (`tests/eval/cues/model_cues.json`) as recorded answers of the cue writer.

Each memory of the retrieval sets becomes the request `loreline.distill.cue_writer` sends for it
(its kind and text), answered with the questions and topic words the blind writer gave that
memory. The writer saw each memory's kind and text and the distill prompt's description of those
two fields, never an evaluation question; the answers keep that note in their `by`.

    python -m evallib.cue_answers DIR      write them into the answer set DIR
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from loreline.distill import cue_writer
from loreline.distill.anthropic import MAX_CUE_QUESTIONS, MAX_CUE_TOPICS
from loreline.distill.recorded import AnswerSet, request_key

from .retrieval import CUES, SETS

BY = ("the blind cue writer of tests/eval/cues/model_cues.json (one memory at a time, its kind and text and the "
      "distill prompt's description of questions and topics; no evaluation question seen)")


def convert(folder: Path) -> int:
    answers = AnswerSet(folder)
    model = answers.model()
    written = json.loads(CUES.read_text(encoding="utf-8"))
    count = 0
    for spec_path in SETS:
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        cues = written.get(spec_path.name, {})
        for memory in [*spec["memories"], *spec["other_memories"]]:
            item = cues.get(memory["key"])
            if item is None:
                continue
            system, user = cue_writer.instructions(), cue_writer.user_message(memory["kind"], memory["text"])
            key = request_key(cue_writer.CUES_TOOL, system, user, model)
            answers.save_request(key, cue_writer.CUES_TOOL, system, user, model)
            answer = {"questions": list(item.get("questions", []))[:MAX_CUE_QUESTIONS],
                      "topics": list(item.get("topics", []))[:MAX_CUE_TOPICS]}
            answers.save_answer(key, answer, BY)
            count += 1
    return count


if __name__ == "__main__":
    print(f"wrote {convert(Path(sys.argv[1]))} cue answers")
