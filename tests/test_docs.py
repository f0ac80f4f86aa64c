"""Docs cannot drift: the README's two commands run, and every command is documented."""

from __future__ import annotations

import re
import subprocess

from loreline.cli.main import build_parser
from tests.conftest import ROOT, subprocess_env

README = (ROOT / "README.md").read_text(encoding="utf-8")
CLI_REFERENCE = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def _first_block() -> list[str]:
    block = re.search(r"```sh\n(.*?)```", README, re.S)
    assert block, "README must open with a sh block"
    return [line.split("#")[0].strip() for line in block.group(1).strip().splitlines()]


def test_readme_opens_with_exactly_the_two_commands() -> None:
    assert README.index("```sh") < 40
    assert _first_block() == ["scripts/demo", "scripts/test"]
    for command in _first_block():
        assert (ROOT / command).is_file()


def test_the_demo_command_works(tmp_path: object) -> None:
    out = subprocess.run([str(ROOT / "scripts" / "demo")], capture_output=True, text=True, timeout=300,
                         env=subprocess_env(ROOT / ".never-created"))
    assert out.returncode == 0, out.stderr
    assert "Memories, per project" in out.stdout and "Provenance of memory" in out.stdout


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "scripts/test" in ci


def test_every_cli_command_is_documented() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    missing = [name for name in sub.choices if f"loreline {name}" not in CLI_REFERENCE]  # type: ignore[attr-defined]
    assert missing == []


def test_every_linked_doc_exists() -> None:
    for text, base in ((README, ROOT), (CLI_REFERENCE, ROOT / "docs")):
        for target in re.findall(r"\]\(([^)#:]+\.md)\)", text):
            assert (base / target).is_file(), target


def test_the_readme_is_for_users_first() -> None:
    """Install and the quick start come first; contributor material lives elsewhere."""
    assert len(README.splitlines()) < 150
    headings = re.findall(r"^## (.+)$", README, re.M)
    assert headings[:2] == ["Install", "Quick start"]
    users_part = README.split("## Install", 1)[1]
    for contributor_word in ("pytest", "mypy", "--fast", "scripts/bench", "## Layout"):
        assert contributor_word not in users_part, contributor_word
