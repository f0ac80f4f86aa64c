"""The application layer's shapes: records paired by name, a typed status, one file-URI
conversion, and the MCP server's explicit tool table."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import os
from pathlib import Path

import pytest

from loreline.api import Loreline, StatusFacts, serialize
from loreline import records
from loreline.api.uris import file_path
from loreline.models import Memory, Provenance


def _distinct_memory() -> Memory:
    """Every field a different value, so a value under the wrong name shows."""
    source = Provenance("codex", "sid-1", "/s/r.jsonl", 11, 12, "said so", "2026-01-09T00:00:00Z")
    return Memory(41, "/p/shop", "project", "decision", "use the queue", "active", 3, "2026-01-01T00:00:00Z",
                  "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z", True, "rules", root_id=40, replaces=39,
                  provenance=(source,), files=("q.py",), hold_reason="because", stale="q.py changed",
                  confirmed_at="2026-01-04T00:00:00Z", confirmed_by="ana", cues="which queue?\nqueues")


def test_each_memory_field_is_written_under_its_own_name() -> None:
    m = _distinct_memory()
    for camel in (False, True):
        out = serialize.memory(m, camel=camel)
        for field in records.fields(Memory):
            if field.name in ("provenance", "files", "cues"):
                continue
            name = serialize.camel_name(field.name) if camel else field.name
            assert out[name] == getattr(m, field.name), field.name
        assert out["files"] == ["q.py"] and out["last_seen" if not camel else "lastSeen"] == m.last_seen
        assert out["cues"] == m.cues.splitlines() == ["which queue?", "queues"]  # one cue a line, as a list
        assert out["source"]["lineStart" if camel else "line_start"] == 11 and out["source"]["tool"] == "codex"


def test_a_record_made_without_a_field_or_with_an_unknown_one_is_refused() -> None:
    with pytest.raises(ValueError, match="held"):
        serialize.COUNTS.make(False, active=1, superseded=0, forgotten=0, pending_conflicts=0)
    with pytest.raises(ValueError, match="extra"):
        serialize.FORGOTTEN.make(False, forgotten=[1], project="/p", extra=1)
    assert serialize.FORGOTTEN.make(True, project="/p", forgotten=[1]) == {"forgotten": [1], "project": "/p"}


def test_status_is_typed_and_its_json_keeps_the_fields_order(tmp_path: Path, loreline_home: Path) -> None:
    with Loreline() as lore:
        found = lore.status(str(tmp_path))
    facts = found.facts
    assert isinstance(facts, StatusFacts)
    assert isinstance(facts.store_bytes, int) and facts.memories["active"] == 0 and facts.sessions_imported == 0
    names = [f.name for f in records.fields(StatusFacts)]
    snake = serialize.status(found)
    assert list(snake) == [*names, "project", "project_counts"]
    assert snake["store"] == facts.store and snake["capture"] == facts.capture
    camel = serialize.status(found, camel=True)
    assert list(camel)[:3] == ["store", "storeBytes", "memories"] and camel["capture"]["pausedHere"] is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        facts.projects = 3  # type: ignore[misc]


@pytest.mark.parametrize(("uri", "path"), [
    ("file:///home/a%20b/x.py", "/home/a b/x.py"),
    ("file:///tmp/%C3%A9t%C3%A9/n%23.md", "/tmp/été/n#.md"),
    ("file://server/share/x.py", "//server/share/x.py"),
    ("file:///C:/Users/x.py", "c:/Users/x.py"),
    ("file:/tmp/short", "/tmp/short"),
    ("untitled:Untitled-1", None),
    ("https://example.com/x.py", None),
    ("file://[bad", None),
])
def test_one_conversion_from_file_uris_to_paths(uri: str, path: str | None) -> None:
    assert file_path(uri) == (path.replace("/", "\\") if path and os.name == "nt" else path)


def test_every_front_end_converts_uris_with_that_one_function() -> None:
    """The language server's documents, requests and folders and the MCP server's roots."""
    from loreline_lsp import documents, server, service
    from loreline_mcp import server as mcp_server

    for module in (documents, server, service, mcp_server):
        text = inspect.getsource(module)
        assert "file_path(" in text and "to_fs_path" not in text and "urlparse" not in text, module.__name__
    assert service.to_path("file:///srv/a%20b") == "/srv/a b" and service.to_path("/srv/x") == "/srv/x"


def test_the_mcp_server_dispatches_through_an_explicit_table() -> None:
    from loreline_mcp.desk import Desk
    from loreline_mcp.server import WORK, build

    declared = {tool.name for tool in asyncio.run(build().list_tools())}
    assert set(WORK) == declared == {"brief", "recall", "list_memories", "show_memory", "remember", "forget"}
    assert all(WORK[name] is getattr(Desk, name) for name in declared)
    source = inspect.getsource(build)
    assert "getattr" not in source
