"""Stage by stage: chunking, the rules distiller, evidence validation, embedding, project keys."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from loreline import evidence
from loreline.chunk import chunk, render
from loreline.distill.rules import RulesDistiller, classify, sentences
from loreline.embed import HashingEmbedder
from loreline.models import Candidate, Evidence, Turn
from loreline.project import project_key


def turns(*texts: tuple[str, str]) -> list[Turn]:
    return [Turn(speaker, text, i * 2 + 1, i * 2 + 2 if speaker == "assistant" else i * 2 + 1)  # type: ignore[arg-type]
            for i, (speaker, text) in enumerate(texts)]


# -- chunk ---------------------------------------------------------------------------

def test_chunks_carry_line_labels_and_respect_the_budget() -> None:
    many = [Turn("user", "word " * 200, n, n) for n in range(1, 301)]
    pieces = chunk(many, session_id="s", path="p", budget=24_000)
    assert len(pieces) > 1
    assert all(len(p.text) <= 24_000 for p in pieces)
    assert pieces[0].text.startswith("L1 [USER] word")
    assert [t.line_start for p in pieces for t in p.turns] == list(range(1, 301))


def test_a_turn_is_split_only_when_it_alone_is_over_budget() -> None:
    huge = Turn("assistant", ("line of output\n" * 4000), 7, 9)
    pieces = chunk([huge], session_id="s", path="p", budget=24_000)
    assert len(pieces) >= 2
    assert all(p.turns[0].line_start == 7 and p.turns[0].line_end == 9 for p in pieces)
    assert all(p.text.startswith("L7-9 [ASSISTANT]") for p in pieces)


def test_chunks_of_only_context_are_dropped() -> None:
    ts = [Turn("user", "old words", 1, 1), Turn("user", "new words", 50, 50)]
    assert [c.line_start for c in chunk(ts, session_id="s", path="p", budget=30, context_until=10)] == [50]


def test_a_chunks_text_is_its_turns_rendered_in_order() -> None:
    ts = [Turn("user", "a" * 50, 1, 1), Turn("assistant", "line\n" * 400, 2, 4), Turn("user", "b", 5, 5)]
    pieces = chunk(ts, session_id="s", path="p", budget=600)
    assert len(pieces) > 2  # the long assistant turn is cut into pieces that keep its label
    for piece in pieces:
        assert piece.text == "\n\n".join(render(t) for t in piece.turns)
    assert "".join(t.text for p in pieces for t in p.turns if t.speaker == "assistant").count("line") == 400


def test_render_labels_a_span() -> None:
    assert render(Turn("assistant", "hi", 3, 5)) == "L3-5 [ASSISTANT] hi"


# -- rules -----------------------------------------------------------------------------

@pytest.mark.parametrize(("sentence", "kind"), [
    ("In this repo we use pnpm, never npm.", "preference"),
    ("Please don't use default exports in TypeScript files.", "preference"),
    ("I prefer tabs over spaces in Go files.", "preference"),
    ("We'll use Postgres advisory locks because each job needs one worker.", "decision"),
    ("We decided to keep the monorepo.", "decision"),
    ("Let's go with Redis since it's already deployed.", "decision"),
    ("The fix was to pin openssl to 3.0.", "fact"),
    ("On macOS the build needs OPENSSL_DIR set to the brew prefix.", "fact"),
    ("It turns out the cache key ignored the lockfile.", "fact"),
    ("To release, run `make publish` from a clean tree.", "procedure"),
    ("From now on we deploy to Fly.io, because Heroku's pricing doubled.", "decision"),
    ("We stay on Drizzle; the migration cost isn't worth it.", "decision"),
    ("Let's move sessions to Redis because we need expiry.", "decision"),
    ("When a change touches the database schema, ask me before running migrations.", "preference"),
    ("Keep the auth module functional, no classes; just fix the expiry check.", "preference"),
    ("Dans ce projet, on utilise toujours black pour le formatage Python, jamais autopep8.", "preference"),
    ("Commit messages should be imperative: 'Add X', not 'Added X'.", "preference"),
    ("For billing code we use Decimal for every money amount, never floats.", "preference"),
    ("FYI my setup: Windows 11 with WSL2 running Ubuntu 22.04.", "fact"),
    ("Staging always runs in eu-west-1, since all our customers are in the EU.", "fact"),
    ("We rotate all tokens every 90 days.", "procedure"),
    ("Yes, that's the way to regenerate the client: make openapi, then pnpm gen:client.", "procedure"),
    ("Don't rewrite it.", None),
    ("Please run the tests.", None),
    ("If it fails, run it again.", None),
    ("The button should be blue.", None),
    ("Should we use pnpm?", None),
    ("Maybe we should switch to Redis because it's faster.", None),
    ("Let's use Redis.", "decision"),  # a casual go-ahead names its choice: kept (see tests/test_rules.py)
    ("Use pnpm for now.", None),
    ("Thanks, that looks good.", None),
    ("ok", None),
])
def test_rules_classify_explicit_statements_only(sentence: str, kind: str | None) -> None:
    assert classify(sentence) == kind


def test_sentences_are_exact_substrings() -> None:
    text = "Add a button. In this repo we use pnpm, never npm; the lockfile is pnpm-lock.yaml.\n- Use ruff."
    parts = sentences(text)
    assert parts == ["Add a button.", "In this repo we use pnpm, never npm; the lockfile is pnpm-lock.yaml.", "Use ruff."]
    assert all(p in text for p in parts)


def test_rules_read_only_the_persons_lines() -> None:
    ts = turns(("assistant", "We'll use Redis locks because they are simple."), ("user", "Sounds good, thanks."))
    piece = chunk(ts, session_id="s", path="p")[0]
    assert RulesDistiller().distill(piece) == []


# -- evidence --------------------------------------------------------------------------

def _piece() -> object:
    ts = [Turn("user", "In this repo we use pnpm, never npm.", 3, 3),
          Turn("assistant", "I suggest we use Redis because it is fast.", 4, 6)]
    return chunk(ts, session_id="s", path="p", context_until=0)[0]


def _no_secret(text: str) -> bool:
    return "SECRET" in text


@pytest.mark.parametrize(("candidate", "reason"), [
    (Candidate("preference", "Use pnpm, never npm.", (Evidence(3, "we use pnpm, never npm"),), "t"), None),
    (Candidate("opinion", "x", (Evidence(3, "we use pnpm"),), "t"), "unknown-kind"),
    (Candidate("fact", "   ", (Evidence(3, "we use pnpm"),), "t"), "empty-text"),
    (Candidate("fact", "x" * 601, (Evidence(3, "we use pnpm"),), "t"), "oversized-text"),
    (Candidate("fact", "Use pnpm", (), "t"), "no-evidence"),
    (Candidate("fact", "Use pnpm", (Evidence(99, "we use pnpm"),), "t"), "line-outside-chunk"),
    (Candidate("fact", "Use pnpm", (Evidence(3, "we use yarn"),), "t"), "quote-mismatch"),
    (Candidate("decision", "Use Redis", (Evidence(5, "we use Redis because it is fast"),), "t"), "assistant-only-support"),
    (Candidate("fact", "Redis is fast", (Evidence(5, "Redis because it is fast"),), "t"), None),
    (Candidate("fact", "the SECRET is x", (Evidence(3, "we use pnpm"),), "t"), "secret"),
])
def test_evidence_rules(candidate: Candidate, reason: str | None) -> None:
    assert evidence.check(candidate, _piece(), _no_secret) == reason  # type: ignore[arg-type]


def test_evidence_quotes_ignore_case_spacing_and_curly_quotes() -> None:
    piece = chunk([Turn("user", "We don't   use  Docker here.", 1, 1)], session_id="s", path="p")[0]
    cand = Candidate("preference", "No Docker", (Evidence(1, "we don\u2019t use docker"),), "t")
    assert evidence.check(cand, piece, _no_secret) is None


def test_context_only_evidence_is_rejected() -> None:
    piece = chunk([Turn("user", "In this repo we use pnpm.", 1, 1), Turn("user", "New stuff here.", 9, 9)],
                  session_id="s", path="p", context_until=5)[0]
    cand = Candidate("preference", "pnpm", (Evidence(1, "we use pnpm"),), "t")
    assert evidence.check(cand, piece, _no_secret) == "context-only"


# -- embed -----------------------------------------------------------------------------

def test_hashing_embedder_is_deterministic_unit_and_ranks_overlap() -> None:
    import array
    import math

    emb = HashingEmbedder()
    a, b, c = (array.array("f", emb.embed(t)) for t in
               ("postgres advisory locks for billing jobs", "advisory lock in postgres", "use tabs in go files"))
    assert emb.embed("x y") == emb.embed("x y")
    assert math.isclose(sum(v * v for v in a), 1.0, rel_tol=1e-4)
    dot = lambda u, v: sum(x * y for x, y in zip(u, v))  # noqa: E731
    assert dot(a, b) > dot(a, c) + 0.2


# -- project keys ------------------------------------------------------------------------

def test_project_key_is_the_git_top_level_and_worktrees_map_to_main(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run([*git, "-C", str(repo), "worktree", "add", "-q", str(tmp_path / "wt")], check=True)
    assert project_key(str(repo / "src" / "deep")) == str(repo)
    assert project_key(str(tmp_path / "wt")) == str(repo)
    assert project_key("/no/such/dir/../here") == "/no/such/here"
    loose = tmp_path / "loose"
    loose.mkdir()
    (loose / "notes.md").write_text("x")
    assert project_key(str(loose / "notes.md")) == str(loose)
    assert project_key(None) == "(unknown)"
