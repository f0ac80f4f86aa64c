"""The local viewer in a real headless Chromium (Debian's): every page loads with real content,
and the actions work end to end: approve a held memory, resolve a conflict, edit, forget.
Screenshots are kept in tests/artifacts/viewer/ (and shown in the README)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from loreline.store import Store
from tests.cdp import Browser, available
from tests.conftest import ROOT
from tests.editor_helpers import HELD, World, held_memories, missing_host, pending_conflict
from tests.viewer_helpers import Running, viewer, world  # noqa: F401 - fixtures

pytestmark = pytest.mark.editor_host
SHOTS = ROOT / "tests" / "artifacts" / "viewer"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    why = available()
    if why:
        missing_host(why)
    b = Browser(tmp_path / "chromium-profile")
    yield b
    b.close()


def _status(memory_id: int) -> str:
    with Store() as store:
        return str(store.scalar("SELECT status FROM memories WHERE id = ?", (memory_id,)))


def _submit(browser: Browser, selector: str) -> None:
    """Press a form's button as a person would, and wait for the next page."""
    browser.js("window.__left = false; addEventListener('pagehide', () => { window.__left = true; })")
    browser.js(f"document.querySelector({selector!r}).click()")
    browser.wait("window.__left !== false")
    browser.wait("document.readyState === 'complete' && document.querySelector('h1')")


def test_every_page_loads_with_real_content(world: World, viewer: Running, browser: Browser) -> None:
    held_memories(world)
    pending_conflict(world)
    project = str(world.repo)
    browser.go(viewer.address)
    assert browser.js("location.search") == ""  # the token left the address bar
    assert project in browser.js("document.body.innerText")
    browser.screenshot(SHOTS / "projects.png")
    browser.go(f"http://127.0.0.1:{viewer.port}/project?key={quote(project)}")
    assert "pnpm" in browser.js("document.body.innerText")
    browser.js("const box = document.getElementById('recall'); box.value = 'which package manager';"
               "box.dispatchEvent(new Event('input'))")
    browser.wait("document.querySelectorAll('#recall-hits li').length > 0")
    assert "pnpm" in browser.js("document.getElementById('recall-hits').innerText")
    browser.screenshot(SHOTS / "project.png")
    with Store() as store:
        pnpm = int(store.scalar("SELECT id FROM memories WHERE text LIKE '%pnpm%' AND status = 'active'"))
    browser.go(f"http://127.0.0.1:{viewer.port}/m/{pnpm}")
    text = browser.js("document.body.innerText")
    assert "Versions" in text and "Sources (1)" in text and "as the model read it" in text
    assert browser.js("document.querySelectorAll('.turn.cited').length") >= 1
    browser.screenshot(SHOTS / "memory.png")
    for path, expect, shot in (("/inbox", HELD[0], "inbox"), ("/conflicts", "Keep new", "conflicts"),
                               ("/sessions", "claude-code", "sessions"), ("/usage", "Model use", "usage")):
        browser.go(f"http://127.0.0.1:{viewer.port}{path}")
        assert expect in browser.js("document.body.innerText"), path
        browser.screenshot(SHOTS / f"{shot}.png")
    browser.go(f"http://127.0.0.1:{viewer.port}/session/preview?path={quote(str(world.extra))}")
    assert "42 threads" in browser.js("document.body.innerText")


def test_approve_resolve_edit_and_forget_work_end_to_end(world: World, viewer: Running, browser: Browser) -> None:
    held = held_memories(world)
    conflict_id = pending_conflict(world)
    browser.go(viewer.address)

    browser.go(f"http://127.0.0.1:{viewer.port}/inbox")
    _submit(browser, f"#held-{held[0]} form[action$='/approve'] button")
    assert _status(held[0]) == "active"
    browser.go(f"http://127.0.0.1:{viewer.port}/inbox")
    _submit(browser, f"#held-{held[1]} form[action$='/reject'] button")
    assert _status(held[1]) == "forgotten"

    browser.go(f"http://127.0.0.1:{viewer.port}/conflicts")
    _submit(browser, f"#conflict-{conflict_id} form[action$='/resolve'] input[value='both'] ~ button")
    with Store() as store:
        assert store.scalar("SELECT resolution FROM conflicts WHERE id = ?", (conflict_id,)) == "keep_both"
    browser.go(f"http://127.0.0.1:{viewer.port}/conflicts?show=resolved")
    _submit(browser, f"#conflict-{conflict_id} form[action$='/revert'] button")
    with Store() as store:
        assert store.scalar("SELECT status FROM conflicts WHERE id = ?", (conflict_id,)) == "pending"

    with Store() as store:
        fact = int(store.scalar("SELECT id FROM memories WHERE text LIKE '%8 threads%' AND status = 'active'"))
    browser.go(f"http://127.0.0.1:{viewer.port}/m/{fact}")
    browser.js("document.querySelector('form.edit textarea').value = 'The worker pool runs 12 threads.'")
    _submit(browser, "form.edit button")
    assert "12 threads" in browser.js("document.querySelector('.memory-text').innerText")
    assert _status(fact) == "superseded"
    new_id = int(browser.js("location.pathname.split('/').pop()"))
    _submit(browser, f"form[action='/m/{new_id}/forget'] button")
    assert _status(new_id) == "forgotten"
    with Store() as store:
        vias = {str(v) for (v,) in store.rows("SELECT via FROM audit WHERE via IS NOT NULL")}
    assert vias == {"viewer"}
