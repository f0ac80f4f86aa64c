"""The viewer's web application (Starlette): routes over one warm engine.

Reads and changes go through `loreline.api` like every front end; changes are recorded in
the audit as the user's, via "viewer". The engine is opened once (the sentence model stays loaded for
recall as you type) and used by one request at a time; requests run on worker threads, never
on the event loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from loreline.api import Loreline
from loreline.errors import LorelineError

from . import activity, brief, pages, review
from .guard import Guard
from .html import h, page

#: the audit records a person's change here as actor "user", via "viewer"
VIA = "viewer"
#: who confirmed a memory still holds, as `confirm` records it
CONFIRMED_BY = "you via viewer"
STATIC = Path(__file__).parent / "static"


class Viewer:
    def __init__(self, store: Path | None = None) -> None:
        self.lore = Loreline(store, via=VIA)
        self.lock = threading.Lock()
        self.warm = threading.Event()
        threading.Thread(target=self._warm_up, name="loreline-view-warm-up", daemon=True).start()

    def _warm_up(self) -> None:
        """Load the sentence model before the first keystroke asks for it (pages that need no
        model are served meanwhile; recall waits for it)."""
        try:
            self.lore.prompt_notes("(warm-up)", "warm up")
        except Exception:  # a damaged store says so on the first page instead
            pass
        finally:
            self.warm.set()

    @property
    def read_only(self) -> bool:
        return bool(self.lore.store.read_only)

    def close(self) -> None:
        self.lore.close()

    def show(self, render: Callable[[], str]) -> Response:
        with self.lock:
            try:
                return HTMLResponse(render())
            except LorelineError as err:
                return HTMLResponse(page("Not found", f'<p class="muted">{h(err)}</p>'), status_code=404)

    def change(self, act: Callable[[], object], back: str | Callable[[Any], str]) -> Response:
        """Make a change and send the browser on (`back`: where, or how to tell from the result)."""
        if self.read_only:
            return HTMLResponse(page("Read-only", '<p class="muted">The store is read-only here: nothing was '
                                     "changed.</p>"), status_code=409)
        with self.lock:
            try:
                done = act()
            except LorelineError as err:
                return HTMLResponse(page("Not done", f'<p class="muted">{h(err)}</p>'), status_code=400)
        return RedirectResponse(back(done) if callable(back) else back, status_code=303)


def build(store: Path | None, token: str, port: int) -> tuple[Any, Viewer]:
    viewer = Viewer(store)

    def q(request: Request, name: str) -> str:
        return request.query_params.get(name, "")

    def home(request: Request) -> Response:
        return viewer.show(lambda: pages.projects(viewer.lore))

    def project(request: Request) -> Response:
        return viewer.show(lambda: pages.project(viewer.lore, q(request, "key"), dict(request.query_params)))

    def brief_page(request: Request) -> Response:
        return viewer.show(lambda: brief.brief(viewer.lore, q(request, "key"), read_only=viewer.read_only))

    async def brief_line(request: Request) -> Response:
        number, action = int(request.path_params["n"]), request.path_params["action"]
        form = await request.form()
        key, text = str(form.get("key") or ""), str(form.get("text") or "").strip()
        back = f"/brief?key={quote(key)}"
        lore = viewer.lore
        steps: dict[str, Callable[[], object]] = {
            "pin": lambda: lore.pin_brief_line(key, number, form.get("on") == "1"),
            "edit": lambda: lore.edit_brief_line(key, number, text),
        }
        if action not in steps or not key:
            return HTMLResponse(page("Not found", ""), status_code=404)
        return await run_in_threadpool(viewer.change, steps[action], back)

    def recall(request: Request) -> Response:
        viewer.warm.wait(60)
        return viewer.show(lambda: pages.recall_fragment(viewer.lore, q(request, "key"), q(request, "q")[:2000]))

    def memory(request: Request) -> Response:
        memory_id = int(request.path_params["id"])
        return viewer.show(lambda: pages.memory(viewer.lore, memory_id, read_only=viewer.read_only))

    def source(request: Request) -> Response:
        return viewer.show(lambda: pages.source_page(viewer.lore, int(request.path_params["id"]),
                                                     int(request.path_params["n"])))

    def inbox(request: Request) -> Response:
        return viewer.show(lambda: review.inbox(viewer.lore, q(request, "project") or None, read_only=viewer.read_only))

    def conflicts(request: Request) -> Response:
        return viewer.show(lambda: review.conflicts(viewer.lore, q(request, "project") or None,
                                                    q(request, "show") or "pending", read_only=viewer.read_only))

    def sessions(request: Request) -> Response:
        return viewer.show(lambda: activity.sessions(viewer.lore, q(request, "project") or None))

    def session(request: Request) -> Response:
        return viewer.show(lambda: activity.session(viewer.lore, q(request, "path")))

    def preview(request: Request) -> Response:
        return viewer.show(lambda: activity.preview(q(request, "path")))

    def usage(request: Request) -> Response:
        return viewer.show(lambda: activity.usage(viewer.lore))

    async def act(request: Request) -> Response:
        memory_id, action = int(request.path_params["id"]), request.path_params["action"]
        form = await request.form()
        text = str(form.get("text") or "").strip() or None
        lore = viewer.lore
        if action in ("edit",) and not text:
            return HTMLResponse(page("Not done", '<p class="muted">The new wording is empty.</p>'), status_code=400)
        steps: dict[str, tuple[Callable[[], object], str | Callable[[Any], str]]] = {
            "forget": (lambda: lore.forget(memory_id), lambda gone: f"/project?key={quote(gone.project)}"),
            "pin": (lambda: lore.pin(memory_id, form.get("on") == "1"), f"/m/{memory_id}"),
            "confirm": (lambda: lore.confirm(memory_id, CONFIRMED_BY), f"/m/{memory_id}"),
            "edit": (lambda: lore.edit(memory_id, text or ""), lambda made: f"/m/{made.id}"),
            "approve": (lambda: lore.approve(memory_id, text), lambda made: f"/m/{made.id}"),
            "reject": (lambda: lore.reject(memory_id), "/inbox"),
        }
        if action not in steps:
            return HTMLResponse(page("Not found", ""), status_code=404)
        step, back = steps[action]
        return await run_in_threadpool(viewer.change, step, back)

    async def resolve(request: Request) -> Response:
        conflict_id = int(request.path_params["id"])
        form = await request.form()
        keep, merge = str(form.get("keep") or "") or None, str(form.get("merge") or "").strip() or None
        return await run_in_threadpool(viewer.change, lambda: viewer.lore.resolve(conflict_id, keep=keep, merge=merge),
                                       "/conflicts?show=all")

    async def revert(request: Request) -> Response:
        conflict_id = int(request.path_params["id"])
        return await run_in_threadpool(viewer.change, lambda: viewer.lore.revert(conflict_id), "/conflicts")

    routes = [
        Route("/", home), Route("/project", project), Route("/recall", recall),
        Route("/brief", brief_page), Route("/brief/{n:int}/{action:str}", brief_line, methods=["POST"]),
        Route("/m/{id:int}", memory), Route("/m/{id:int}/source/{n:int}", source),
        Route("/m/{id:int}/{action:str}", act, methods=["POST"]),
        Route("/inbox", inbox), Route("/conflicts", conflicts),
        Route("/conflicts/{id:int}/resolve", resolve, methods=["POST"]),
        Route("/conflicts/{id:int}/revert", revert, methods=["POST"]),
        Route("/sessions", sessions), Route("/session", session), Route("/session/preview", preview),
        Route("/usage", usage),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    return Guard(app, token, port), viewer
