"""Loreline's evaluation: a labelled extraction set and a retrieval question set.

`scripts/eval` runs `python -m evallib`. The extraction set is synthetic sessions in Claude
Code's real shape (`cases.py`, committed as JSONL under `tests/eval/sessions/` with
`tests/eval/labels.json`); every case names the memories a careful reader would keep (kind,
keywords that must appear, the lines that say it) and the ones that must never be kept.
Labels describe what a person would remember, never what a backend happens to find.
`scripts/eval redaction` hands over to `scripts/eval_redaction.py`.
"""
