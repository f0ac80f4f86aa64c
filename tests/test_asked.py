"""Explicit requests to keep something ("remember this", "from now on …") are first-class.

The offline rules keep a self-contained request active at once, marked `asked`; one that
points elsewhere waits in the review inbox with the lines it points to. A model is told which
lines hold a request, and a memory keeps `asked` only when it cites one.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import orjson
import pytest

from loreline import asked, pipeline
from loreline.distill.anthropic import user_message
from loreline.distill.rules import RulesDistiller
from loreline.models import Candidate, Chunk, Evidence, Turn
from loreline.store import Store
from tests.conftest import loreline_exe, subprocess_env

# a request in each of the nine languages the redactor covers, and the rule it carries
REQUESTS = {
    "en": ("remember: never run git yourself", "never run git yourself"),
    "de": ("Merk dir: die Tests laufen mit pytest -x.", "pytest -x"),
    "fr": ("Souviens-toi que les migrations vont dans db/migrations.", "db/migrations"),
    "es": ("Recuerda que usamos pnpm, nunca npm.", "pnpm"),
    "pt": ("Lembre-se: o deploy é feito com fly deploy.", "fly deploy"),
    "it": ("Ricordati che i test si lanciano con make test.", "make test"),
    "ru": ("Запомни: деплой через make deploy.", "make deploy"),
    "ja": ("覚えておいて：テストは pnpm test で実行します。", "pnpm test"),
    "zh": ("记住：我们用 pnpm 安装依赖。", "pnpm"),
}


@pytest.mark.parametrize("language", sorted(REQUESTS))
def test_a_request_to_keep_is_found_in_each_language(language: str) -> None:
    text, rule = REQUESTS[language]
    found = asked.find(text)
    assert found is not None and found.explicit and found.self_contained and rule in found.statement


def test_a_request_that_points_elsewhere_is_told_apart() -> None:
    for text in ("save how you did that in memory", "i liked how you are working with docker, save for the future "
                 "in the memory", "Remember this for next time.", "Merk dir das für die Zukunft."):
        found = asked.find(text)
        assert found is not None and not found.self_contained, text
    mixed = asked.find("never execute git, save in your memory please")
    assert mixed is not None and mixed.self_contained and mixed.phrase == "save in your memory"


def test_what_is_not_a_request() -> None:
    for text in ("it always fails on CI", "What do you remember about the API?", "Fix the padding of the list.",
                 "[quoted] Remember: tokens expire after 1h [/quoted] ok"):
        assert asked.find(text) is None, text
    for said_to_last in ("Always run the linter before committing.", "From now on the CI runs on Node 22."):
        found = asked.find(said_to_last)  # a model is told; the rules do not act on it alone
        assert found is not None and found.self_contained and not found.explicit


def _chunk(*turns: Turn) -> Chunk:
    return Chunk("s", "/s.jsonl", 0, turns, "\n".join(f"L{t.line_start} [{t.speaker.upper()}] {t.text}" for t in turns))


def test_the_rules_keep_a_self_contained_request_active_in_the_persons_words() -> None:
    piece = _chunk(Turn("user", "never execute git, save in your memory please", 3, 3))
    [candidate] = RulesDistiller().distill(piece)
    assert candidate.text == "Never execute git." and candidate.asked and candidate.confidence == 1.0
    assert candidate.evidence[0].line == 3


def test_the_rules_hold_a_pointing_request_with_the_lines_it_points_to() -> None:
    piece = _chunk(Turn("user", "upgrade the sale module", 1, 1),
                   Turn("assistant", "Upgraded it with docker exec odoo-web odoo -u sale -d prod --stop-after-init.", 2, 2),
                   Turn("user", "great, save how you did that in your memory", 3, 3))
    [candidate] = RulesDistiller().distill(piece)
    assert candidate.asked and candidate.confidence < 1.0  # a suggestion: a person approves it
    assert "docker exec odoo-web" in candidate.text and [e.line for e in candidate.evidence] == [3, 2]


def test_a_model_is_told_which_lines_ask_and_keeps_asked_only_when_it_cites_one() -> None:
    piece = _chunk(Turn("assistant", "Ran the upgrade.", 1, 1), Turn("user", "remember this for the future", 2, 2))
    message = user_message(piece)
    assert "explicitly asked to keep something at L2" in message and "asked" in message
    cited = Candidate("procedure", "Upgrade with X.", (Evidence(1, "Ran the upgrade."), Evidence(2, "remember this")),
                      "m", asked=True)
    uncited = Candidate("fact", "Y holds.", (Evidence(1, "Ran the upgrade."),), "m", asked=True)
    settled = asked.settle([cited, uncited], piece)
    assert [c.asked for c in settled] == [True, False]
    plain = _chunk(Turn("user", "upgrade the module", 1, 1))
    assert "asked to keep" not in user_message(plain)


def _session(path: Path, texts: list[str]) -> Path:
    lines = []
    for n, text in enumerate(texts, start=1):
        role = "user" if n % 2 else "assistant"
        content = text if role == "user" else [{"type": "text", "text": text}]
        lines.append(orjson.dumps({"type": role, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None,
                                   "sessionId": path.stem, "cwd": "/home/dev/app", "isSidechain": False,
                                   "timestamp": f"2026-01-01T10:00:{n:02d}Z",
                                   "message": {"role": role, "content": content}}) + b"\n")
    path.write_bytes(b"".join(lines))
    return path


def test_an_asked_memory_is_stored_active_and_says_so(tmp_path: Path) -> None:
    session = _session(tmp_path / "a1b2c3d4-0000-4000-8000-000000000001.jsonl",
                       ["Set up the release script.", "Done.", "Remember: never push tags without a changelog entry."])
    db = tmp_path / "home" / "loreline.db"
    db.parent.mkdir()
    with Store(db) as store:
        pipeline.import_sessions(store, [(session, "claude-code")], pipeline.Options(distiller=RulesDistiller()))
        rows = store.rows("SELECT text, status, asked FROM memories")
    assert rows == [("Never push tags without a changelog entry.", "active", 1)]
    env = subprocess_env(db.parent)
    listed = subprocess.run([loreline_exe(), "memories", "--project", "/home/dev/app"], env=env,
                            capture_output=True, text=True, check=True).stdout
    assert "[asked for]" in listed
    shown = subprocess.run([loreline_exe(), "memories", "--project", "/home/dev/app", "--json"], env=env,
                           capture_output=True, text=True, check=True).stdout
    assert json.loads(shown)[0]["asked"] is True


# -- the cheap look before the full pattern ------------------------------------------------


def _covered(items: list[tuple[object, object]], literals: tuple[str, ...]) -> bool:
    """Every match of the parsed sequence `items` holds one of `literals` (lower-cased): one
    part of the sequence that every match goes through, a run of literal characters or a group
    all of whose branches are covered, holds one."""
    from re import _constants as c  # type: ignore[attr-defined]

    run = ""
    for op, arg in [*items, (None, None)]:
        if op in (c.LITERAL,):
            run += chr(arg)  # type: ignore[arg-type]
            continue
        if run and any(word in run.lower() for word in literals):
            return True
        run = ""
        if op is c.SUBPATTERN and _covered(list(arg[-1]), literals):  # type: ignore[index]
            return True
        if op is c.BRANCH and all(_covered(list(alt), literals) for alt in arg[1]):  # type: ignore[index]
            return True
        if op is c.MAX_REPEAT or op is c.MIN_REPEAT:
            low, _, inner = arg  # type: ignore[misc]
            if low >= 1 and _covered(list(inner), literals):
                return True
    return False


def _phrase_covered(phrase: str, literals: tuple[str, ...] = asked._LITERALS) -> bool:
    from re import _parser  # type: ignore[attr-defined]

    return _covered(list(_parser.parse(phrase, 0)), literals)


def test_every_phrase_holds_one_of_the_words_the_cheap_look_seeks() -> None:
    assert [p for p in asked._PHRASES if not _phrase_covered(p)] == []
    # the check can fail: a phrase without any of the words, and one whose branch misses them
    assert not _phrase_covered(r"keep (?:this|that) handy")
    assert not _phrase_covered(r"(?:remember|recall) this")
    assert _phrase_covered(r"(?:remember|memorize) this")


def test_the_cheap_look_never_hides_a_request() -> None:
    texts = [t for t, _ in REQUESTS.values()] + [
        "Always use pnpm.", "ok.  never push to main", "fix it\nNEVER run the migration twice", "It always fails.",
        "Note this down for later", "the domain email is maintained elsewhere", "From Now On use ruff",
        "x.[quoted]remember[/quoted]always lint", "from now[quoted]no[/quoted]on", "Save the key to your NOTES",
        "merk dir das", "plain question about the build", "", "future-proof the API", "Keep it in mind: tabs",
    ]
    for text in texts:
        own = asked._QUOTED.sub(" ", text)
        if asked._PATTERN.search(own) is not None:
            assert asked._may_ask(own), text
    assert not asked._may_ask("plain question about the build")
    assert asked.find("x.[quoted]remember[/quoted]always lint") is not None


def test_the_cheap_look_reads_case_as_the_pattern_does() -> None:
    # letters IGNORECASE matches to a seeked word's letters though str.lower keeps them apart
    for text in ("keep it in mİnd: tabs", "remember: uſe tabs", "ſave it in your memory", "запомни: ᲀсё"):
        assert asked._may_ask(text), text
    assert asked.find("ſave the port in your memory") is not None
    assert not asked._may_ask("✓ 12 passed, nothing to see")
