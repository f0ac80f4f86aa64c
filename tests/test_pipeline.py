"""The import pipeline end to end on real fixture files and on small built sessions."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.models import Candidate, Chunk
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.store import memories as rows
from tests.conftest import REAL


class CountingDistiller(RulesDistiller):
    """The rules backend, counting how many chunks it was asked to read."""

    def __init__(self) -> None:
        self.calls = 0

    def distill(self, chunk: Chunk) -> list[Candidate]:
        self.calls += 1
        return super().distill(chunk)


def real_claude_files() -> list[Path]:
    return sorted((REAL / "claude-code").rglob("*.jsonl"))


def run(store: Store, paths: list[Path], distiller: RulesDistiller | None = None) -> pipeline.ImportReport:
    options = pipeline.Options(distiller=distiller or RulesDistiller())
    return pipeline.import_sessions(store, [(p, "claude-code") for p in paths], options)


def test_real_fixtures_import_cleanly_and_a_second_run_does_nothing(tmp_path: Path) -> None:
    files = real_claude_files()
    assert len(files) >= 15
    first, second = CountingDistiller(), CountingDistiller()
    with Store() as store:
        report = run(store, files, first)
        memories_after_first = store.scalar("SELECT count(*) FROM memories")
        provenance_after_first = store.scalar("SELECT count(*) FROM provenance")
        again = run(store, files, second)
        assert store.scalar("SELECT count(*) FROM memories") == memories_after_first
        assert store.scalar("SELECT count(*) FROM provenance") == provenance_after_first
        ledgered = store.scalar("SELECT count(*) FROM ledger")
    assert report.failed == []
    assert report.imported == len(files)
    assert report.turns > 50
    assert first.calls == report.chunks > 0
    assert again.unchanged == len(files) and again.imported == 0
    assert second.calls == 0
    assert ledgered == len(files)


def test_a_built_session_yields_typed_memories_with_provenance(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("Hi, can you look at the flaky test?")
    s.assistant("Sure, looking.", tools=[("Read", {"file_path": "/work/acme/tests/test_io.py"}, "def test(): ...")])
    pref = s.user("In this repo we use pnpm, never npm.")
    s.assistant("Noted, pnpm it is.")
    dec = s.user("We'll use Postgres advisory locks because each job needs exactly one worker.")
    s.assistant("Implemented.", tools=[("Edit", {"file_path": "/work/acme/jobs/run.py", "old_string": "a",
                                                 "new_string": "b"}, "ok")])
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        report = run(store, [path])
        found, total = rows.query(store, rows.Filter(project="/work/acme"))
    assert report.added == 2 and total == 2
    by_kind = {m.kind: m for m in found}
    assert by_kind["preference"].text == "In this repo we use pnpm, never npm."
    assert by_kind["decision"].text.startswith("We'll use Postgres advisory locks because")
    prov = by_kind["decision"].provenance[0]
    assert (prov.tool, prov.session_id, prov.line_start, prov.line_end) == ("claude-code", s.session_id, dec, dec)
    assert prov.session_path == str(path)
    assert by_kind["preference"].provenance[0].line_start == pref
    assert "jobs/run.py" in by_kind["decision"].files
    assert by_kind["decision"].observed_at is not None


def test_exact_duplicates_merge_with_a_new_provenance_row(tmp_path: Path) -> None:
    one, two = ClaudeSession("/work/acme"), ClaudeSession("/work/acme")
    one.user("In this repo we use pnpm, never npm.")
    two.user("in this repo we use   pnpm, never npm")
    with Store() as store:
        report = run(store, [one.write(tmp_path / "1.jsonl"), two.write(tmp_path / "2.jsonl")])
        memory = rows.query(store, rows.Filter(project="/work/acme"))[0][0]
    assert (report.added, report.merged) == (1, 1)
    assert len(memory.provenance) == 2


def test_same_words_in_two_projects_stay_two_memories(tmp_path: Path) -> None:
    one, two = ClaudeSession("/work/a"), ClaudeSession("/work/b")
    one.user("In this repo we use pnpm, never npm.")
    two.user("In this repo we use pnpm, never npm.")
    with Store() as store:
        report = run(store, [one.write(tmp_path / "1.jsonl"), two.write(tmp_path / "2.jsonl")])
    assert (report.added, report.merged) == (2, 0)


def test_grown_file_resumes_at_the_watermark_with_context(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    s.assistant("OK.")
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        run(store, [path])
        s.user("We decided to keep the monorepo because CI caching depends on it.")
        s.assistant("Understood.")
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(s.text()[len(path.read_text(encoding="utf-8")):])
        counting = CountingDistiller()
        report = run(store, [path], counting)
        texts = sorted(m.text for m in rows.query(store, rows.Filter(project="/work/acme"))[0])
        ledger_line, offset, stored_hash = store.one("SELECT line, offset, prefix_hash FROM ledger")  # type: ignore[misc]
    from loreline.store.ledger import prefix_hash

    assert stored_hash == prefix_hash(path, offset)  # the continued hash equals one over the whole prefix
    assert report.imported == 1 and report.added == 1 and report.merged == 0
    assert report.turns == 2  # only the new turns count; the old ones are context
    assert counting.calls == 1
    assert texts == ["In this repo we use pnpm, never npm.",
                     "We decided to keep the monorepo because CI caching depends on it."]
    assert ledger_line == 4


def test_rewritten_file_is_reprocessed_without_duplicates(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        run(store, [path])
        other = ClaudeSession("/work/acme", session_id=s.session_id)
        other.user("Something unrelated first.")
        other.user("In this repo we use pnpm, never npm.")
        other.user("The fix was to pin openssl to 3.0 in the Dockerfile.")
        other.write(path)
        report = run(store, [path])
        memories = rows.query(store, rows.Filter(project="/work/acme"))[0]
    assert report.imported == 1
    assert report.added == 1 and report.merged == 1
    assert len(memories) == 2
    pnpm = next(m for m in memories if "pnpm" in m.text)
    assert sorted(p.line_start for p in pnpm.provenance) == [1, 2]


def test_touched_but_identical_file_is_unchanged(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        run(store, [path])
        os.utime(path, (1_000_000_000, 1_000_000_000))
        counting = CountingDistiller()
        report = run(store, [path], counting)
    assert report.unchanged == 1 and counting.calls == 0


def test_corrupt_lines_are_skipped_and_counted(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    s.user("We decided to use ruff because it is fast.")
    good = s.text().splitlines(keepends=True)
    path = tmp_path / "s.jsonl"
    path.write_bytes(good[0].encode() + b'{"type": "user", "broken\n' + b"\xff\xfe not utf8\n" + b"[1, 2]\n"
                     + good[1].encode() + b'{"type": "assistant", "trunc')
    with Store() as store:
        report = run(store, [path])
        memories = rows.query(store, rows.Filter(project="/work/acme"))[0]
    assert report.failed == []
    assert report.lines_skipped == 4
    assert len(memories) == 2
    assert {m.provenance[0].line_start for m in memories} == {1, 5}


def test_missing_file_is_reported_and_others_still_import(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        report = run(store, [tmp_path / "gone.jsonl", path])
    assert report.imported == 1 and report.added == 1
    assert len(report.failed) == 1 and "gone.jsonl" in report.failed[0][0]


def test_secrets_never_reach_the_store(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("We'll use the staging db at postgres://app:HunterTwo2024@db.internal:5432/app because prod is frozen.")
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        run(store, [path])
    blob = b"".join(p.read_bytes() for p in (tmp_path / "loreline-home").glob("loreline.db*"))
    assert b"HunterTwo2024" not in blob


def test_dry_run_writes_nothing_and_previews(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "s.jsonl")
    options = pipeline.Options(distiller=RulesDistiller(), dry_run=True)
    with Store() as store:
        report = pipeline.import_sessions(store, [(path, None)], options)
        assert store.scalar("SELECT count(*) FROM memories") == 0
        assert store.scalar("SELECT count(*) FROM ledger") == 0
    assert report.dry_run and report.candidates == 1
    assert [c.text for _, accepted in options.preview for c in accepted] == ["In this repo we use pnpm, never npm."]


def test_replayed_chunk_is_a_no_op(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        run(store, [path])
        store.conn.execute("DELETE FROM ledger")  # as if the process died before the watermark
        counting = CountingDistiller()
        report = run(store, [path], counting)
        assert store.scalar("SELECT count(*) FROM provenance") == 1
    assert counting.calls == 0 and report.chunks_replayed == 1


@pytest.mark.parametrize("name", ["cc-empty-0-bytes.jsonl", "cc-summary-only.jsonl", "cc-file-history-snapshot-only.jsonl"])
def test_degenerate_real_files_import_as_empty(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    shutil.copyfile(REAL / "claude-code" / name, path)
    with Store() as store:
        report = run(store, [path])
    assert report.failed == [] and report.imported == 1 and report.turns == 0


def test_a_turn_far_over_the_chunk_budget_is_distilled_whole(tmp_path: Path) -> None:
    filler = "Here is the build log line that keeps going on and on. " * 700
    s = ClaudeSession("/work/acme")
    s.user(f"In this repo we use pnpm, never npm.\n{filler}\nWe prefer ruff over flake8 for linting.\n{filler}\n"
           "On macOS the build needs OPENSSL_DIR set to the brew prefix.")
    path = s.write(tmp_path / "long.jsonl")
    with Store() as store:
        report = run(store, [path])
        texts = sorted(m.text for m in rows.query(store, rows.Filter(project="/work/acme"))[0])
    assert report.chunks >= 3 and report.chunks_replayed == 0
    assert texts == ["In this repo we use pnpm, never npm.", "On macOS the build needs OPENSSL_DIR set to the brew prefix.",
                     "We prefer ruff over flake8 for linting."]


def test_a_rewrite_with_new_words_on_the_same_lines_is_read(tmp_path: Path) -> None:
    s = ClaudeSession("/work/acme")
    s.user("We prefer ruff over flake8 for linting.")
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        run(store, [path])
        path.write_text(path.read_text().replace("ruff over flake8 for linting", "black over yapf for formatting"))
        report = run(store, [path])
        texts = sorted(m.text for m in rows.query(store, rows.Filter(project="/work/acme"))[0])
    assert report.chunks_replayed == 0 and report.added == 1
    assert texts == ["We prefer black over yapf for formatting.", "We prefer ruff over flake8 for linting."]


def test_one_file_named_two_ways_is_one_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    path = s.write(tmp_path / "s.jsonl")
    (tmp_path / "link.jsonl").symlink_to(path)
    monkeypatch.chdir(tmp_path)
    counting = CountingDistiller()
    with Store() as store:
        run(store, [path])
        again = run(store, [Path("s.jsonl"), tmp_path / "link.jsonl"], counting)
        sources = store.scalar("SELECT count(*) FROM provenance")
        ledgered = [r[0] for r in store.rows("SELECT session_path FROM ledger")]
    assert again.unchanged == 2 and counting.calls == 0
    assert sources == 1 and ledgered == [str(path)]


def test_a_fifo_or_a_directory_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with Store() as store:
        report = run(store, [fifo, tmp_path])
    assert [reason for _, reason in report.failed] == [
        "a named pipe (FIFO), not a transcript file", "a directory, not a transcript file"]


def test_file_paths_holding_secrets_are_never_kept(tmp_path: Path) -> None:
    secret = "hunter2SuperSecretPw99"
    s = ClaudeSession("/work/acme")
    s.user("In this repo we use pnpm, never npm.")
    s.assistant("Reading.", tools=[
        ("Read", {"file_path": f"https://user:{secret}@example.com/x"}, "x"),
        ("Read", {"file_path": "/work/acme/keys/ghp_Zq8vK2mN4pQ7rS9tU1wX3yZ5aB6cD8eF0gH2.txt"}, "x"),
        ("Read", {"file_path": "/work/acme/src/app.py"}, "x")])
    path = s.write(tmp_path / "s.jsonl")
    with Store() as store:
        run(store, [path])
        files = [r[0] for r in store.rows("SELECT path FROM memory_files")]
    assert files == ["src/app.py"]
    blob = b"".join(p.read_bytes() for p in (tmp_path / "loreline-home").glob("loreline.db*"))
    assert secret.encode() not in blob and b"ghp_Zq8vK2mN4pQ7" not in blob
