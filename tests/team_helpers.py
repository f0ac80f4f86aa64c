"""Building machines for the team tests: a git checkout with a remote and sessions imported
into a Loreline store (rules distiller, offline)."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

from loreline import pipeline
from loreline.distill.rules import RulesDistiller
from loreline.samples.builder import ClaudeSession
from loreline.store import Store
from loreline.team.settings import TeamSettings


def make_repo(folder: Path, remote: str) -> str:
    """A real git repository at `folder` whose origin is `remote`; returns its project key."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "remote", "add", "origin", remote], check=True)
    return str(folder)


def import_said(store: Store, project: str, sentences: list[str], transcripts: Path, name: str,
                day: int = 2) -> None:
    """A Claude Code session in `project` on November `day` where the person says each sentence, imported."""
    session = ClaudeSession(cwd=project, start=datetime(2026, 11, day, 9, 0, tzinfo=UTC))
    for sentence in sentences:
        session.user(sentence)
        session.assistant("Noted.")
    path = session.write(transcripts / f"{name}.jsonl")
    report = pipeline.import_sessions(store, [(path, "claude-code")], pipeline.Options(distiller=RulesDistiller()))
    assert not report.failed, report.failed


def settings(dsn: str, author: str, share: str = "approved") -> TeamSettings:
    return TeamSettings(dsn=dsn, author=author, remote="", share=share, sync_seconds=0.0)


def active_texts(store: Store, project: str) -> list[str]:
    return [str(r[0]) for r in store.rows(
        "SELECT text FROM memories WHERE project = ? AND status = 'active' ORDER BY text", (project,))]


def memory_id(store: Store, text: str) -> int:
    found = store.scalar("SELECT id FROM memories WHERE text = ? AND status = 'active'", (text,))
    assert found is not None, text
    return int(found)


def server_text(dsn: str) -> str:
    """Every value of every column of every table in the team database's public schema, as text."""
    import psycopg

    parts: list[str] = []
    with psycopg.connect(dsn) as conn:
        tables = [r[0] for r in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'").fetchall()]
        for table in tables:
            for row in conn.execute(f'SELECT t::text FROM "{table}" t').fetchall():
                parts.append(str(row[0]))
    return "\n".join(parts)
