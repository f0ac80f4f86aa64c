"""Export → wipe → import round trips in subprocesses: an identical store (every memory column,
versions, statuses, pins, provenance, files, conflicts, tombstones, audit), idempotent,
scoped by project, with paths mapped to where the project lives on the other machine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from loreline.beliefs import conflicts
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from tests.test_cli import cli

pytestmark = pytest.mark.slow  # export and import round trips in many CLI processes, each loading the sentence model

TABLES = {
    "memories": "SELECT * FROM memories ORDER BY id",
    "provenance": "SELECT * FROM provenance ORDER BY id",
    "memory_files": "SELECT * FROM memory_files ORDER BY memory_id, path",
    "conflicts": "SELECT * FROM conflicts ORDER BY id",
    "tombstones": "SELECT * FROM tombstones ORDER BY project, content_hash",
    "audit": "SELECT * FROM audit WHERE action != 'import-export' ORDER BY id",
}


def _seed(home: Path, tmp_path: Path, project: str = "/work/port") -> dict[str, int]:
    s = ClaudeSession(project)
    s.user("We decided to use Redis for job locks.")
    s.user("We decided to use Postgres advisory locks.")
    s.user("In this repo we use pnpm, never npm.")
    s.user("Always run ruff before committing.")
    cli(home, "import", "sessions", "--path", str(s.write(tmp_path / f"s{abs(hash(project))}.jsonl")))
    listed = json.loads(cli(home, "memories", "--project", project, "--json").stdout)
    ids = {m["text"]: m["id"] for m in listed}
    cli(home, "edit", str(ids["In this repo we use pnpm, never npm."]), "Use pnpm 9 everywhere; never npm.")
    cli(home, "forget", str(ids["Always run ruff before committing."]))
    with Store(home / "loreline.db") as store, store.write():
        store.conn.execute("INSERT INTO memory_files(memory_id, path) VALUES(?, ?)",
                           (ids["We decided to use Redis for job locks."], f"{project}/src/locks.py"))
        cid = conflicts.record(store, project, ids["We decided to use Redis for job locks."],
                               ids["We decided to use Postgres advisory locks."], "both pick the lock backend")
    cli(home, "resolve", str(cid), "--keep", "new")
    listed = json.loads(cli(home, "memories", "--project", project, "--json").stdout)
    cli(home, "pin", str(next(m["id"] for m in listed if m["text"].startswith("Use pnpm 9"))))
    return ids


def _tables(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    with Store(db) as store:
        return {name: store.rows(sql) for name, sql in TABLES.items()}


def test_export_wipe_import_is_identical_and_idempotent(loreline_home: Path, tmp_path: Path) -> None:
    _seed(loreline_home, tmp_path)
    db = loreline_home / "loreline.db"
    before = _tables(db)
    assert {row[6] for row in before["memories"]} >= {"active", "superseded", "forgotten"}
    assert before["conflicts"] and before["tombstones"] and before["provenance"]
    out = tmp_path / "all.jsonl"
    done = cli(loreline_home, "export", "-o", str(out))
    assert "exported 5 memories" in done.stderr
    assert (out.stat().st_mode & 0o777) == 0o600
    for suffix in ("", "-wal", "-shm"):
        Path(str(db) + suffix).unlink(missing_ok=True)
    first = json.loads(cli(loreline_home, "import", "memories", str(out), "--json").stdout)
    assert first["memories"] == 5 and first["already"] == 0
    assert _tables(db) == before
    with Store(db) as store:
        assert store.scalar("SELECT count(*) FROM memory_vec") == 5
        hits = store.rows("SELECT rowid FROM memory_fts WHERE memory_fts MATCH 'postgres'")
        assert len(hits) == 1
    again = cli(loreline_home, "import", "memories", str(out))
    assert again.stdout.startswith("nothing new: 5 memories already here")
    assert _tables(db) == before
    recalled = json.loads(cli(loreline_home, "recall", "advisory locks", "--project", "/work/port", "--json").stdout)
    assert recalled and recalled[0]["memory"]["text"] == "We decided to use Postgres advisory locks."


def test_project_scope_and_path_map(loreline_home: Path, tmp_path: Path) -> None:
    _seed(loreline_home, tmp_path, "/home/ana/src/billing")
    _seed(loreline_home, tmp_path, "/home/ana/src/other")
    out = tmp_path / "billing.jsonl"
    cli(loreline_home, "export", "--project", "/home/ana/src/billing", "-o", str(out))
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0]["projects"] == ["/home/ana/src/billing"]
    assert {r["project"] for r in records if r["record"] == "memory"} == {"/home/ana/src/billing"}
    other = tmp_path / "raj-home"
    mapped = json.loads(cli(other, "import", "memories", str(out), "--map",
                            "/home/ana/src/billing=/Users/raj/work/billing", "--json").stdout)
    assert mapped["memories"] == 5 and mapped["conflicts"] == 1
    with Store(other / "loreline.db") as store:
        assert {r[0] for r in store.rows("SELECT DISTINCT project FROM memories")} == {"/Users/raj/work/billing"}
        assert store.rows("SELECT path FROM memory_files WHERE path LIKE '/home/%'") == []
        assert store.scalar("SELECT count(*) FROM memory_files WHERE path = '/Users/raj/work/billing/src/locks.py'") == 1
        assert store.scalar("SELECT count(*) FROM tombstones WHERE project = '/Users/raj/work/billing'") == 1
    listed = json.loads(cli(other, "memories", "--project", "/Users/raj/work/billing", "--json").stdout)
    assert listed[0]["pinned"] and listed[0]["text"] == "Use pnpm 9 everywhere; never npm."
    everything = tmp_path / "all.jsonl"
    cli(loreline_home, "export", "-o", str(everything))
    scoped = json.loads(cli(tmp_path / "third", "import", "memories", str(everything), "--project",
                            "/home/ana/src/other", "--json").stdout)
    assert scoped["memories"] == 5 and scoped["skipped_other_projects"] == 5


def test_markdown_groups_active_memories_by_kind(loreline_home: Path, tmp_path: Path) -> None:
    _seed(loreline_home, tmp_path)
    text = cli(loreline_home, "export", "--format", "markdown", "--project", "/work/port").stdout
    assert text.startswith("# Memories of /work/port")
    assert "## Preferences" in text and "## Decisions" in text
    assert "- Use pnpm 9 everywhere; never npm. <!-- pinned; " in text
    assert "ruff" not in text and "Redis" not in text  # forgotten and superseded stay out
    assert text.index("## Preferences") < text.index("## Decisions")


def test_bad_files_are_one_line_and_write_nothing(loreline_home: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"record": "loreline-export", "version": 1}\n{"record": "memory", "id": 1\n')
    failed = cli(loreline_home, "import", "memories", str(bad), check=False)
    assert failed.returncode == 1 and "bad.jsonl:2: not a JSON line" in failed.stderr
    assert len(failed.stderr.strip().splitlines()) == 1
    alien = tmp_path / "alien.jsonl"
    alien.write_text('{"hello": 1}\n')
    assert "not a Loreline export record" in cli(loreline_home, "import", "memories", str(alien), check=False).stderr
    wrong_map = cli(loreline_home, "import", "memories", str(bad), "--map", "nope", check=False)
    assert "--map wants FROM=TO" in wrong_map.stderr


def test_into_a_store_that_has_memories_ids_are_remapped_and_chains_kept(loreline_home: Path, tmp_path: Path) -> None:
    _seed(loreline_home, tmp_path)
    out = tmp_path / "all.jsonl"
    cli(loreline_home, "export", "-o", str(out))
    other = tmp_path / "other-home"
    s = ClaudeSession("/work/elsewhere")
    for n in range(7):
        s.user(f"In this repo we use tool number {n}, never the other one.")
    cli(other, "import", "sessions", "--path", str(s.write(tmp_path / "elsewhere.jsonl")))
    cli(other, "import", "memories", str(out))
    with Store(other / "loreline.db") as store:
        chain = store.rows("SELECT v2.version, v1.text, v1.status FROM memories v2 JOIN memories v1 "
                           "ON v2.replaces = v1.id AND v2.root_id = v1.id WHERE v2.project = '/work/port'")
        assert chain == [(2, "In this repo we use pnpm, never npm.", "superseded")]
        [(a, b, status)] = store.rows("SELECT ma.text, mb.text, c.status FROM conflicts c JOIN memories ma ON ma.id = c.a "
                                      "JOIN memories mb ON mb.id = c.b")
        assert (a, b, status) == ("We decided to use Redis for job locks.",
                                  "We decided to use Postgres advisory locks.", "resolved")
        audited = store.rows("SELECT DISTINCT m.project FROM audit a JOIN memories m ON m.id = a.memory_id "
                             "WHERE a.action IN ('edit', 'forget', 'pin')")
        assert audited == [("/work/port",)]
        assert store.scalar("SELECT count(*) FROM memories") == 12


def test_columns_a_later_loreline_added_are_carried_or_reported(loreline_home: Path, tmp_path: Path) -> None:
    _seed(loreline_home, tmp_path)
    with Store(loreline_home / "loreline.db") as store, store.write():
        store.conn.execute("ALTER TABLE memories ADD COLUMN review_note TEXT")
        store.conn.execute("UPDATE memories SET review_note = 'held for review' WHERE text LIKE '%Postgres%'")
    out = tmp_path / "all.jsonl"
    cli(loreline_home, "export", "-o", str(out))
    memory = next(json.loads(line) for line in out.read_text().splitlines() if "Postgres" in line)
    assert memory["review_note"] == "held for review"
    other = tmp_path / "older"
    done = cli(other, "import", "memories", str(out))
    assert "columns this store lacks were dropped: review_note" in done.stdout
    newer = tmp_path / "newer"
    with Store(newer / "loreline.db") as store, store.write():
        store.conn.execute("ALTER TABLE memories ADD COLUMN review_note TEXT")
    cli(newer, "import", "memories", str(out))
    with Store(newer / "loreline.db") as store:
        assert store.rows("SELECT text FROM memories WHERE review_note IS NOT NULL") == [
            ("We decided to use Postgres advisory locks.",)]


def test_markdown_pasted_into_claude_md_joins_the_same_memories(loreline_home: Path, tmp_path: Path) -> None:
    project = tmp_path / "port"
    (project / ".git").mkdir(parents=True)
    _seed(loreline_home, tmp_path, str(project))
    before = json.loads(cli(loreline_home, "memories", "--project", str(project), "--json").stdout)
    text = cli(loreline_home, "export", "--format", "markdown", "--project", str(project)).stdout
    (project / "CLAUDE.md").write_text(text)
    done = json.loads(cli(loreline_home, "import", "native", "--project", str(project), "--claude-dir",
                          str(tmp_path / "no-claude"), "--json").stdout)
    assert (done["added"], done["joined"]) == (0, len(before))
    after = json.loads(cli(loreline_home, "memories", "--project", str(project), "--json").stdout)
    assert [m["id"] for m in after] == [m["id"] for m in before]
    assert all(any(p["tool"] == "claude-md" for p in m["provenance"]) for m in after)
