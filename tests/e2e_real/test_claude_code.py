"""The real Claude Code CLI, headless, against a fake Anthropic API: its own transcripts and its
own hook calls drive Loreline from `loreline connect claude-code` to a memory block injected
into the next session.

One story, told once per module (each step costs a real CLI run), then checked piece by piece:

1. startup   `claude -p` stating a preference and a decision (worker lock held, so the
             hooks' spool files can be read before `loreline worker --drain` imports them);
2. continue  `claude -p --continue` adding a fact and repeating the preference (no lock: the
             SessionEnd hook's detached worker must import it by itself);
3. compact   `claude -p "/compact keep the pnpm rule" --resume <id>`, the model's summary
             inventing two statements nobody made (lock held: PreCompact is read);
4. fresh     a new session asking a question: its request must carry the memory block;
5. paused    a new session under `LORELINE_OFF=1` stating a decision: nothing is captured.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from loreline.samples.builder import ClaudeSession
from tests.e2e_real.fake_models import Replies
from tests.e2e_real.harness import (
    Clients,
    Isolation,
    Run,
    Sandbox,
    hover_text,
    language_server,
    normalized,
    transcript_line,
    wait_for,
)

pytestmark = pytest.mark.real_clients

PREFERENCE = "In this repo we use pnpm, never npm."
DECISION = "We'll use Postgres advisory locks because each billing job needs one worker."
FACT = "The fix was to pin node to 20 in .nvmrc."
FIRST = f"{PREFERENCE} {DECISION}"
CONTINUE = f"{FACT} {PREFERENCE}"
FRESH = "Which package manager do we use here?"
PAUSED = "We decided to use Redis streams because the audit log must stay ordered."
#: what the compaction "summary" claims: said by nobody, so it must never become a memory
INVENTED = ("In this repo we use Bun for scripts, never Deno.",
            "We'll use Kafka topics because the billing retries need ordering.")
SUMMARY = ("<analysis>A short session about tooling.</analysis>\n<summary>\n1. Primary Request and Intent: "
           + " ".join(INVENTED) + "\n</summary>")
REPLIES = Replies("Understood.", (
    ("detailed summary of the conversation", SUMMARY),
    ("advisory locks", "Noted: pnpm only, and one worker per billing job through advisory locks."),
    ("nvmrc", "Noted: node 20 is pinned in .nvmrc."),
    ("which package manager", "pnpm, as you said in an earlier session."),
    ("redis streams", "Noted: Redis streams for the audit log."),
))
BLOCK = "<loreline-memories>"


@dataclass(repr=False)
class Story:
    box: Sandbox
    runs: dict[str, Run] = field(default_factory=dict)
    spools: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    memories: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    jobs: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    session_id: str = ""
    transcript: Path = Path()

    def __repr__(self) -> str:
        return f"Story({self.box.root})"

    def session_of(self, step: str) -> str:
        return str(self.runs[step].json()["session_id"])

    def transcript_of(self, step: str) -> Path:
        found = list((self.box.home / ".claude" / "projects").glob(f"*/{self.session_of(step)}.jsonl"))
        assert len(found) == 1, f"expected one transcript for the {step} session, found {found}"
        return found[0]

    def jobs_of(self, path: Path) -> list[dict[str, Any]]:
        return [j for j in self.box.jobs() if j["session_key"] == str(path)]


def claude(story: Story, step: str, *args: str, **env: str) -> Run:
    run = story.box.claude(step, ["-p", *args, "--output-format", "json"], REPLIES, **env).check()
    story.runs[step] = run
    return run


def settle(story: Story, step: str, path: Path, jobs: int) -> None:
    """Wait for the worker a hook started to finish `jobs` jobs of the session at `path`."""
    def done() -> bool:
        found = story.jobs_of(path)
        return len(found) == jobs and all(j["state"] == "done" for j in found)
    wait_for(done, f"the worker started by the {step} hooks to import {path.name} (jobs: {story.jobs_of(path)})")


def spooled_until_session_end(box: Sandbox, step: str) -> list[dict[str, Any]]:
    """The spool once SessionEnd's record is there (Claude Code runs that hook as it exits)."""
    wait_for(lambda: any(r["event"] == "SessionEnd" for r in box.spool_records()),
             f"the SessionEnd hook of the {step} run to write its spool file", timeout=20)
    return box.spool_records()


def tell(story: Story) -> Story:
    box = story.box
    box.loreline("connect", "claude-code")
    with box.worker_lock():
        claude(story, "startup", FIRST)
        story.spools["startup"] = spooled_until_session_end(box, "startup")
    story.session_id, story.transcript = story.session_of("startup"), story.transcript_of("startup")
    box.drain()
    story.memories["startup"] = box.memories()

    claude(story, "continue", CONTINUE, "--continue")
    settle(story, "continue", story.transcript, jobs=2)
    story.memories["continue"] = box.memories()

    with box.worker_lock():
        claude(story, "compact", "/compact keep the pnpm rule", "--resume", story.session_id)
        story.spools["compact"] = spooled_until_session_end(box, "compact")
    box.drain()
    story.memories["compact"] = box.memories()

    claude(story, "fresh", FRESH)
    settle(story, "fresh", story.transcript_of("fresh"), jobs=1)
    story.memories["fresh"] = box.memories()

    story.jobs["before-paused"] = box.jobs()
    claude(story, "paused", PAUSED, LORELINE_OFF="1")
    story.spools["paused"], story.jobs["paused"] = box.spool_records(), box.jobs()
    box.drain()
    story.memories["paused"], story.jobs["after-paused"] = box.memories(), box.jobs()
    return story


@pytest.fixture(scope="module")
def story(real_clients: Clients, isolation: Isolation, tmp_path_factory: pytest.TempPathFactory) -> Story:
    return tell(Story(Sandbox(tmp_path_factory.mktemp("claude-e2e"), real_clients, isolation)))


def texts(memories: list[dict[str, Any]]) -> list[str]:
    return sorted(m["text"] for m in memories)


# -- the client really ran, offline, through our hooks -------------------------------------


def test_the_pinned_client_ran_offline_against_the_fake_api(story: Story, real_clients: Clients) -> None:
    for step, run in story.runs.items():
        assert run.offline or not story.box.isolation.netns, f"{step}: a route left the namespace"
        posts = [r for r in run.requests if r["method"] == "POST"]
        assert posts, f"{step}: Claude Code sent the fake model nothing ({run.folder})"
        assert {r["path"] for r in posts} == {"/v1/messages?beta=true"}, f"{step}: {[r['path'] for r in posts]}"
        assert all(r["body"].get("stream") is True for r in posts), f"{step}: a non-streaming request"
        assert f"claude-cli/{real_clients.versions['claude']}" in posts[0]["headers"].get("user-agent", "")
    assert story.runs["startup"].json()["result"].startswith("Noted: pnpm only")


def test_connect_installed_the_hooks_into_the_isolated_settings(story: Story) -> None:
    settings = json.loads((story.box.home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    for event in ("SessionStart", "UserPromptSubmit", "Stop", "PreCompact", "SessionEnd"):
        commands = [h["command"] for g in settings["hooks"][event] for h in g["hooks"]]
        assert len(commands) == 1 and commands[0].endswith(f"loreline-hook {event}"), (event, commands)
        assert Path(commands[0].split()[0]).is_absolute()


def test_the_stop_and_session_end_hooks_recorded_the_real_session(story: Story) -> None:
    spooled = story.spools["startup"]
    assert [r["event"] for r in spooled] == ["Stop", "SessionEnd"], spooled
    for record in spooled:
        assert record["session_id"] == story.session_id and record["tool"] == "claude-code"
        assert record["transcript_path"] == str(story.transcript) and record["cwd"] == str(story.box.repo)
    assert spooled[0]["last_assistant_message"] == story.runs["startup"].json()["result"]
    assert spooled[1]["extra"].get("reason"), "SessionEnd carries Claude Code's reason"
    summaries = [json.loads(line) for line in story.transcript.read_text(encoding="utf-8").splitlines()
                 if '"stop_hook_summary"' in line]
    ran = [info["command"] for s in summaries for info in s.get("hookInfos", [])]
    assert ran and all(c.endswith("loreline-hook Stop") for c in ran), ran
    assert not any(s.get("hookErrors") for s in summaries), summaries


def test_the_pre_compact_hook_recorded_the_manual_compaction(story: Story) -> None:
    spooled = story.spools["compact"]
    events = [r["event"] for r in spooled]
    assert "PreCompact" in events and events[-1] == "SessionEnd", events
    pre = spooled[events.index("PreCompact")]
    assert pre["session_id"] == story.session_id and pre["extra"].get("trigger") == "manual", pre
    assert all(r["transcript_path"] == str(story.transcript) for r in spooled)


def injections(path: Path) -> list[str]:
    """The SessionStart hook runs Claude Code recorded with Loreline's block in their output."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    found = [r["attachment"] for r in records if r.get("type") == "attachment"]
    return [a["hookName"] for a in found if a.get("type") == "hook_success"
            and a.get("hookEvent") == "SessionStart" and BLOCK in str(a.get("stdout"))]


def test_the_session_start_hook_injected_on_startup_resume_and_compact(story: Story) -> None:
    assert injections(story.transcript_of("fresh")) == ["SessionStart:startup"]
    seen = injections(story.transcript)
    assert {"SessionStart:resume", "SessionStart:compact"} <= set(seen), seen
    assert "SessionStart:startup" not in seen, "the first session started with an empty store: nothing to inject"


def test_the_session_end_hook_started_a_worker_that_imported_the_continued_session(story: Story) -> None:
    jobs = story.jobs_of(story.transcript)
    assert len(jobs) == 3 and all(j["state"] == "done" and j["last_error"] is None for j in jobs), jobs
    assert jobs[1]["payload"]["events"] == 2 and jobs[1]["payload"]["last_event"] == "SessionEnd"
    assert texts(story.memories["continue"]) == sorted([PREFERENCE, DECISION, FACT])


# -- imported once, with provenance to the real lines ----------------------------------------


def test_the_session_was_imported_once_without_duplicates(story: Story) -> None:
    final = story.memories["paused"]
    assert texts(final) == sorted([PREFERENCE, DECISION, FACT]), texts(final)
    assert texts(story.memories["startup"]) == sorted([PREFERENCE, DECISION])
    ledger = story.box.rows("SELECT count(*) FROM ledger WHERE session_path = ?", (str(story.transcript),))
    assert ledger == [(1,)]
    adds = story.box.rows("SELECT memory_id, count(*) FROM audit WHERE action = 'add' GROUP BY memory_id")
    assert sorted(adds) == sorted((m["id"], 1) for m in final), adds
    for memory in final:
        spans = [(p["session_path"], p["line_start"], p["line_end"]) for p in memory["provenance"]]
        assert len(spans) == len(set(spans)), f"provenance repeated for {memory['text']!r}: {spans}"
    said_twice = next(m for m in final if m["text"] == PREFERENCE)
    assert len(said_twice["provenance"]) == 2, "the repeated preference merged: one more source, no new memory"


def test_provenance_points_at_the_real_transcript_lines(story: Story) -> None:
    for memory in story.memories["paused"]:
        assert memory["provenance"], memory
        for source in memory["provenance"]:
            assert (source["tool"], source["session_id"]) == ("claude-code", story.session_id)
            assert source["session_path"] == str(story.transcript)
            assert source["line_start"] == source["line_end"], source
            line = transcript_line(story.transcript, source["line_start"])
            assert line["type"] == "user" and line["sessionId"] == story.session_id, line
            assert normalized(memory["text"]) in normalized(json.dumps(line["message"]["content"])), (memory, line)
            assert normalized(memory["text"]) in normalized(source["excerpt"])


def test_the_compaction_summary_taught_nothing(story: Story, tmp_path: Path) -> None:
    lines = [json.loads(line) for line in story.transcript.read_text(encoding="utf-8").splitlines()]
    assert any(r.get("type") == "system" and r.get("subtype") == "compact_boundary" for r in lines)
    summaries = [r for r in lines if r.get("type") == "user" and INVENTED[0] in json.dumps(r.get("message"))]
    assert len(summaries) == 1, "Claude Code wrote the model's summary into the transcript as a user line"
    assert story.memories["compact"] == story.memories["continue"]
    assert not [m for m in story.memories["paused"] if "Bun" in m["text"] or "Kafka" in m["text"]]
    # control: the summary's words, without the lead-in that marks them as a summary, would teach both
    content = summaries[0]["message"]["content"]
    text = content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)
    kept = would_keep(story.box, tmp_path, [text[text.index("Summary:"):]])
    assert [t for t in kept if "Bun" in t] and [t for t in kept if "Kafka" in t], kept


def would_keep(box: Sandbox, folder: Path, said: list[str]) -> list[str]:
    """What the rules distiller keeps from a synthetic session where a person says `said`."""
    session = ClaudeSession(cwd=str(box.repo))
    for text in said:
        session.user(text)
        session.assistant("Noted.")
    path = session.write(folder / f"{session.session_id}.jsonl")
    report = box.loreline_json("import", "sessions", "--path", str(path), "--dry-run")
    return sorted(m["text"] for chunk in report["preview"] for m in chunk["memories"])


# -- the memory block: injected into the next session, never learned back --------------------


def test_a_new_session_request_carries_the_memory_block(story: Story) -> None:
    bodies = story.runs["fresh"].bodies("anthropic")
    carrying = [b for b in bodies if BLOCK in b]
    assert carrying, f"no request of the new session held {BLOCK} ({story.runs['fresh'].folder})"
    assert all(PREFERENCE in b and DECISION in b and FACT in b for b in carrying)
    assert story.runs["fresh"].json()["result"] == "pnpm, as you said in an earlier session."
    resumed = story.runs["continue"].bodies("anthropic")
    assert any(BLOCK in b and PREFERENCE in b for b in resumed), "SessionStart(resume) injects the block too"


def test_importing_the_new_session_does_not_learn_the_block(story: Story) -> None:
    fresh = story.transcript_of("fresh")
    assert BLOCK in fresh.read_text(encoding="utf-8"), "Claude Code recorded the injected block in its transcript"
    assert [j["state"] for j in story.jobs_of(fresh)] == ["done"], "the new session was imported"
    assert story.memories["fresh"] == story.memories["compact"]
    assert not [m for m in story.memories["paused"] if "loreline-memories" in m["text"].lower()]
    fresh_id = story.session_of("fresh")
    assert not [p for m in story.memories["paused"] for p in m["provenance"] if p["session_id"] == fresh_id]


def test_the_block_unwrapped_would_have_been_learned(story: Story, tmp_path: Path) -> None:
    """Control for the test above: the block's words themselves are learnable; only their
    recognition as Loreline's injection keeps them out."""
    fresh = [json.loads(line) for line in story.transcript_of("fresh").read_text(encoding="utf-8").splitlines()]
    (context,) = [r["attachment"]["content"] for r in fresh
                  if r.get("type") == "attachment" and r["attachment"].get("type") == "hook_additional_context"]
    block = "\n".join(context) if isinstance(context, list) else str(context)
    unwrapped = block.replace(BLOCK, "").replace("</loreline-memories>", "")
    kept = would_keep(story.box, tmp_path, [unwrapped])
    assert [t for t in kept if PREFERENCE in t] and [t for t in kept if DECISION in t], kept


def test_loreline_off_captures_nothing(story: Story, tmp_path: Path) -> None:
    assert story.spools["paused"] == [], story.spools["paused"]
    assert story.jobs["paused"] == story.jobs["before-paused"] == story.jobs["after-paused"]
    assert story.memories["paused"] == story.memories["fresh"]
    paused = story.transcript_of("paused")
    assert not [j for j in story.box.jobs() if j["session_key"] == str(paused)]
    assert not any(BLOCK in b for b in story.runs["paused"].bodies("anthropic")), "no injection when paused"
    assert PAUSED in paused.read_text(encoding="utf-8")
    # control: without LORELINE_OFF this session would have taught a decision
    left = story.box.loreline_json("import", "sessions", "--path", str(paused), "--dry-run")
    assert left["preview"] == [] and [p["reason"][:7] for p in left["sessions"]["left_out"]] == ["paused:"]
    report = story.box.loreline_json("import", "sessions", "--path", str(paused), "--dry-run", "--include-paused")
    assert [m["text"] for c in report["preview"] for m in c["memories"]] == [PAUSED]


# -- the language server on the same store ---------------------------------------------------


async def test_the_language_server_lists_the_memories_and_hovers_their_provenance(story: Story) -> None:
    box = story.box
    manifest = box.repo / "package.json"
    manifest.write_text('{\n  "packageManager": "pnpm@9.12.0"\n}\n', encoding="utf-8")
    async with language_server(box) as client:
        page = await client.protocol.send_request_async("loreline/memories", {})
        assert page.project == str(box.repo) and page.total == 3
        assert sorted(m.text for m in page.items) == sorted([PREFERENCE, DECISION, FACT])
        shown = await hover_text(client, manifest, line=1, character=23)
    assert shown is not None, "no hover on `pnpm`"
    preference = next(m for m in story.memories["paused"] if m["text"] == PREFERENCE)
    assert PREFERENCE in shown and f"claude-code · session `{story.session_id[:8]}`" in shown, shown
    assert any(f"lines {p['line_start']}*" in shown for p in preference["provenance"]), shown
