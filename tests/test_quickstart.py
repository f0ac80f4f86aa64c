"""The README's install and quick start, word for word, in a fresh home.

A wheel is built from this checkout and installed into a new virtual environment (its
dependencies are borrowed from the test environment, so nothing is fetched), the way the
README's venv route installs it. Then every line of the README's quick-start block runs as it
is written, in a home that has only a Claude Code session of a git project, with nothing but the
new environment's `bin` on PATH.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import site
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from loreline.samples.builder import ClaudeSession, project_slug
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _quick_start() -> list[str]:
    section = README.split("## Quick start", 1)[1]
    block = re.search(r"```sh\n(.*?)```", section, re.S)
    assert block, "the quick start must be one sh block"
    return [line.split("  #")[0].strip() for line in block.group(1).strip().splitlines()]


def _install(venv: Path, dist: Path) -> None:
    """Build the wheel, make a venv that sees the test environment's packages, install it."""
    if not any(dist.glob("loreline-*.whl")):
        built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist),
                                str(ROOT)], capture_output=True, text=True, timeout=600)
        assert built.returncode == 0, built.stderr[-2000:]
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    purelib = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # the test environment's site-packages, after the venv's own: dependencies only, since
    # the editable install's path hook is not a .pth the new venv reads
    Path(purelib, "borrowed.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    wheel = next(dist.glob("loreline-*.whl"))
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                           "--disable-pip-version-check", str(wheel)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


def _sessions(home: Path, project: Path) -> None:
    """Two days of work: the person says which package manager twice, as people do, so even the
    offline rules (which only suggest what they find once) learn it; the rest waits for review."""
    said = [("Set up the dev environment for this repo please.", "Sure, I'll install the dependencies with pip."),
            ("No, we use uv for this project, never pip. Always run uv sync.", "Understood, uv it is.")]
    again = [("Add httpx to the API client.", "Running pip install httpx."),
             ("We use uv for this project, never pip.", "Right, `uv add httpx` then."),
             ("Never commit generated files.", "Noted.")]
    for days, turns in ((2, said), (1, again)):
        session = ClaudeSession(cwd=str(project), start=datetime.now(UTC) - timedelta(days=days))
        for prompt, answer in turns:
            session.user(prompt)
            session.assistant(answer)
        path = session.write(home / ".claude" / "projects" / project_slug(str(project)) / f"{session.session_id}.jsonl")
        old = time.time() - days * 3600
        os.utime(path, (old, old))


def test_the_quick_start_works_word_for_word(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    venv = tmp_path / "venv"
    _install(venv, tmp_path_factory.getbasetemp() / "dist")
    home = tmp_path / "home"
    project = home / "src" / "shop"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _sessions(home, project)
    env = {"HOME": str(home), "PATH": f"{venv / 'bin'}:/usr/bin:/bin", "LANG": "C.UTF-8",
           "LORELINE_PROMPT_RECALL": "words"}
    outputs: list[str] = []
    for line in _quick_start():
        argv = shlex.split(line)
        assert argv[0] == "loreline"
        out = subprocess.run(argv, cwd=project, env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, f"{line}\n{out.stdout}\n{out.stderr}"
        outputs.append(out.stdout)
        if "--dry-run" in argv:
            assert not (home / ".local" / "share" / "loreline" / "loreline.db").exists(), "a dry run wrote the store"
    dry, learned, memories, connect, recall = outputs
    active, waiting = memories.split("wait for your review")
    assert "we use uv for this project, never pip" in active.lower(), memories
    assert "?#" in waiting and "Never commit generated files." in waiting, memories  # a suggestion, said once
    assert "we use uv" not in waiting.lower(), memories  # the first time it was said is a source of the memory now
    assert "uv" in recall, recall
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    commands = [h["command"] for entries in settings["hooks"].values() for entry in entries for h in entry["hooks"]]
    assert commands and all(str(venv / "bin" / "loreline-hook") in c for c in commands), commands
    # the store lives where the README's uninstall section says it does
    assert (home / ".local" / "share" / "loreline" / "loreline.db").is_file()
    assert (home / ".local" / "state" / "loreline").is_dir()


def test_the_install_section_names_what_it_installs() -> None:
    install = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    for route in ("pipx install .", "uv tool install .", "python3 -m venv", "loreline.vsix", "require(\"loreline\").setup()"):
        assert route in install, route
    assert README.count("```sh") >= 2 and README.index("## Install") < README.index("## Quick start")
