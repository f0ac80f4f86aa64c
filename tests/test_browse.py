"""What the local viewer reads through the API (`loreline.api.browse`): projects with their
counts, sessions and what each taught, the transcript around a source as the model read it,
and model use per day against the cap (a real store filled by a real import)."""

from __future__ import annotations

from pathlib import Path

from loreline.api import Loreline, browse
from tests.editor_helpers import make_world


def test_projects_sessions_transcripts_and_model_use(tmp_path: Path, loreline_home: Path) -> None:
    world = make_world(tmp_path, loreline_home)
    with Loreline() as lore:
        [summary] = browse.projects(lore)
        assert summary.project == str(world.repo) and summary.counts.active == 3 and summary.last_learned
        [session] = browse.sessions(lore, str(world.repo))
        assert session.taught == 3 and session.tool == "claude-code"
        _, taught = browse.session(lore, session.session_path)
        assert {m.text for m in browse.memories_by_id(lore, taught)} >= {"In this repo we use pnpm, never npm."}
        pnpm = next(m for m in browse.memories_by_id(lore, taught) if "pnpm" in m.text)
        source = pnpm.provenance[0]
        window = browse.transcript_window(source.session_path, source.line_start, source.line_end)
        assert window.error is None and any(window.is_cited(t) and "pnpm" in t.text for t in window.turns)
        assert browse.transcript_window(str(tmp_path / "gone.jsonl"), 1, 1).error
        assert browse.transcript_window(source.session_path, 9999, 9999).error == \
            "the cited lines are no longer in the session file"
        chart = browse.usage_chart(lore, days=7)
        assert len(chart.days) == 7 and chart.daily_unattended_cap == 100 and all(d.calls == 0 for d in chart.days)
        options = browse.filter_options(lore, str(world.repo))
        assert options.tools == ("claude-code",) and options.authors
