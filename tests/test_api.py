"""The application layer's one serializer: every field the engine keeps reaches the JSON both
front ends send, in one casing policy (field names written once in snake_case; the language
server's camelCase is the same record renamed)."""

from __future__ import annotations

from loreline import records
from pathlib import Path
from typing import Any

from loreline.api import Conflict, ImportOutcome, Loreline, Page, ProjectCounts, serialize
from loreline.models import ImportReport, Memory, Provenance, RecallHit, Usage

#: where an ImportReport field lands in the JSON when not under its own name
REPORT_PLACES = {"imported": "sessions", "unchanged": "sessions", "left_out": "sessions", "failed": "sessions",
                 "deferred": "sessions", "until_tomorrow": "sessions", "model": "model_use", "usage": "model_use",
                 "estimated_input_tokens": "model_use"}


def keys(value: Any) -> set[str]:
    """Every key at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def sample_memory() -> Memory:
    source = Provenance("claude-code", "abc", "/s/a.jsonl", 3, 4, "x" * 200, "2026-01-01T00:00:00Z")
    return Memory(7, "/p", "project", "fact", "text", "active", 2, "2026-01-02", None, None, True, "rules",
                  root_id=5, replaces=5, provenance=(source,), files=("a.py",))


def test_every_import_report_field_reaches_the_json() -> None:
    report = ImportReport(deferred=[("/s/b.jsonl", "rate limited")], versioned=2, conflicts=1, model="m",
                          usage=Usage(calls=1))
    out = serialize.import_report(ImportOutcome(report))
    for field in records.fields(ImportReport):
        place = REPORT_PLACES.get(field.name)
        assert (field.name in out[place] if place in ("sessions",) else (place or field.name) in out), field.name
    assert out["sessions"]["deferred"] == [{"path": "/s/b.jsonl", "reason": "rate limited"}]
    assert (out["versioned"], out["conflicts"], out["model_use"]["calls"]) == (2, 1, 1)


def test_every_memory_and_source_field_reaches_the_json() -> None:
    out = serialize.memory(sample_memory(), full=True)
    assert {f.name for f in records.fields(Memory)} - {"provenance"} <= set(out)
    assert {f.name for f in records.fields(Provenance)} <= set(out["provenance"][0])
    assert out["source_count"] == 1 and out["source"]["excerpt"] == "x" * 160 + "…"
    assert out["provenance"][0]["excerpt"] == "x" * 200 and "provenance" not in serialize.memory(sample_memory())


def test_the_language_server_casing_is_camel_case_except_for_data_keys() -> None:
    report = ImportReport(rejected={"no_quote_match": 2, "malformed-output": 1}, lines_skipped=3,
                          deferred=[("/s/b.jsonl", "rate limited")])
    out = serialize.import_report(ImportOutcome(report), camel=True)
    assert out["linesSkipped"] == 3 and out["sessions"]["leftOut"] == [] and out["modelUse"]["inputTokens"] == 0
    assert out["rejected"] == {"no_quote_match": 2, "malformed-output": 1}
    assert out["sessions"]["deferred"] == [{"path": "/s/b.jsonl", "reason": "rate limited"}]
    assert not [k for k in keys(out) if "_" in k and k != "no_quote_match"]
    memory = serialize.memory(sample_memory(), camel=True)
    assert memory["source"]["sessionUri"] == "file:///s/a.jsonl" and memory["validUntil"] is None
    assert serialize.recase({"active_by_kind": {"fact_x": 1}}) == {"activeByKind": {"fact_x": 1}}


def test_both_casings_carry_the_same_values() -> None:
    """camelCase is a renaming of the snake_case record, nothing more or less."""
    m = sample_memory()
    conflict = Conflict(3, "/p", m, m, "pending", None, None, "why", "2026-01-03", None)
    report = ImportReport(rejected={"no_quote_match": 2}, versioned=1, model="m", usage=Usage(calls=2))
    for make in (lambda camel: serialize.memory(m, full=True, camel=camel),
                 lambda camel: serialize.conflict(conflict, camel=camel),
                 lambda camel: serialize.recall_hit(RecallHit(m, 0.5, 1, None), camel=camel),
                 lambda camel: serialize.page(Page("/p", 9, 0, (m,)), camel=camel),
                 lambda camel: serialize.import_report(ImportOutcome(report), camel=camel)):
        assert serialize.recase(make(False)) == make(True)


def test_project_counts_and_status_carry_both_casings(tmp_path: Path, loreline_home: Path) -> None:
    with Loreline() as lore:
        found = lore.status(str(tmp_path))
    assert found.counts == ProjectCounts(0, 0, 0, 0)
    snake = serialize.status(found)
    assert snake["project_counts"]["pending_conflicts"] == 0 and "store_bytes" in snake
    camel = serialize.status(found, camel=True)
    assert camel["projectCounts"]["pendingConflicts"] == 0 and "storeBytes" in camel and "sessionsImported" in camel
    assert camel == serialize.recase(snake)
