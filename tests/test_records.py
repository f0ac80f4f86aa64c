"""`loreline.records`: the engine's nouns behave as the frozen dataclasses they replace (fields in
order or by name, defaults and factories, value equality and hashing, refused assignment,
copies, pickling) while loading neither `dataclasses` nor `typing`."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import subprocess
import sys

import pytest

from loreline import records
from loreline.models import ImportReport, Memory, Provenance
from tests.conftest import ROOT


def _source(short: str = "") -> Provenance:
    return Provenance("codex", "sid-1", "/s/a.jsonl", 3, 4, "said so", None, session_short=short)


def _memory(**changes: object) -> Memory:
    fields = dict(id=7, project="/p", scope="project", kind="fact", text="use uv", status="active", version=1,
                  created_at="2026-01-01", observed_at=None, valid_until=None, pinned=False, extractor="rules",
                  provenance=(_source(),))
    fields.update(changes)
    return Memory(**fields)  # type: ignore[arg-type]


def test_fields_come_in_order_by_position_or_name_with_their_defaults() -> None:
    by_position = Provenance("codex", "sid-1", "/s/a.jsonl", 3, 4, "said so", None)
    assert by_position == _source()
    assert by_position.session_short == "" and by_position.session_label == "sid-1"
    assert [f.name for f in records.fields(Provenance)][-1] == "session_short"
    assert Memory.__match_args__[:3] == ("id", "project", "scope")
    with pytest.raises(TypeError):
        Provenance("codex", "sid-1")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _memory(colour="red")


def test_equality_and_hash_follow_the_compared_fields_only() -> None:
    assert _source() == _source("sid-1abc") and hash(_source()) == hash(_source("sid-1abc"))  # compare=False
    assert _memory() == _memory() and len({_memory(), _memory()}) == 1
    assert _memory() != _memory(text="use pip") and _memory() != "use uv"
    assert "session_short=''" in repr(_source()) and repr(_memory()).startswith("Memory(id=7, project='/p'")


def test_frozen_records_refuse_changes_and_mutable_ones_take_them() -> None:
    memory = _memory()
    with pytest.raises(dataclasses.FrozenInstanceError):
        memory.text = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del memory.text  # type: ignore[misc]
    with pytest.raises(AttributeError):
        memory.colour = "red"  # type: ignore[attr-defined]
    one, two = ImportReport(), ImportReport()
    one.rejected["no_quote_match"] = 1
    one.added += 2
    assert two.rejected == {} and two.added == 0  # each its own factory-made dict
    with pytest.raises(TypeError):
        hash(one)


def test_replace_asdict_copies_and_pickles_keep_the_values() -> None:
    memory = _memory()
    edited = records.replace(memory, text="use uv, not pip")
    assert edited.text == "use uv, not pip" and edited.id == 7 and memory.text == "use uv"
    with pytest.raises(TypeError):
        records.replace(memory, colour="red")
    plain = records.asdict(memory)
    assert plain["provenance"] == ({**records.asdict(_source())},) and plain["text"] == "use uv"
    assert json.loads(json.dumps(records.asdict(ImportReport(added=1))))["added"] == 1
    for again in (copy.copy(memory), copy.deepcopy(memory), pickle.loads(pickle.dumps(memory))):
        assert again == memory and again.provenance[0].excerpt == "said so"


def test_a_record_cannot_extend_another_and_defaults_come_last() -> None:
    with pytest.raises(TypeError, match="inherit"):
        @records.record
        class Longer(Provenance):  # noqa: F841
            extra: int = 0
    with pytest.raises(TypeError, match="default"):
        @records.record
        class Misordered:  # noqa: F841
            first: int = 0
            second: int


def test_building_records_loads_neither_dataclasses_nor_typing() -> None:
    code = ("import sys\nfrom loreline import models\nfrom loreline.api import results\n"
            "m = models.Turn('user', 'hi', 1, 1)\nprint(sorted(n for n in ('dataclasses', 'inspect', 'typing') "
            "if n in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT / "engine"), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
