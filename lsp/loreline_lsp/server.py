"""The language server: LSP wiring only. Each handler checks its parameters, calls the
service and shapes the answer; every error becomes an error response and the server stays up."""

from __future__ import annotations

import asyncio
import functools
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from loreline.errors import LorelineError
from loreline.models import KINDS, STATUSES
from loreline_lsp import __version__, hover, service
from loreline_lsp.background import StoreWatcher, WorkerThread
from loreline_lsp.options import InitOptions, parse
from loreline_lsp.params import Params

log = logging.getLogger(__name__)
REQUEST_FAILED = -32803

MEMORIES = "loreline/memories"
PROVENANCE = "loreline/provenance"
RECALL = "loreline/recall"
CONFLICTS = "loreline/conflicts"
RESOLVE_CONFLICT = "loreline/resolveConflict"
FORGET = "loreline/forget"
IMPORT = "loreline/import"
STATUS = "loreline/status"
SET_API_KEY = "loreline/setApiKey"
DID_CHANGE = "loreline/didChange"
SHOW_FILE_MEMORIES = "loreline.showFileMemories"
#: custom notifications the server sends (requests are whatever is registered)
NOTIFICATIONS = (DID_CHANGE,)


def request_failed(err: LorelineError) -> JsonRpcException:
    """The one answer an engine error gets: `RequestFailed` with its one-line message."""
    return JsonRpcException(message=str(err), code=REQUEST_FAILED)


class LorelineServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("loreline", __version__)
        self.options = InitOptions()
        self.folders: list[str] = []
        self._service: service.Service | None = None
        self.watcher: StoreWatcher | None = None
        self.worker: WorkerThread | None = None

    @property
    def service(self) -> service.Service:
        if self._service is None:
            self._service = service.Service.open()
        return self._service

    def project(self, folder: str | None) -> str:
        target = folder or (self.folders[0] if self.folders else str(Path.cwd()))
        return service.project_of(target)

    def changed(self, reason: str, project: str | None = None) -> None:
        self.protocol.notify(DID_CHANGE, {"reason": reason, **({"project": project} if project else {})})

    def close(self) -> None:
        for part in (self.watcher, self.worker):
            if part is not None:
                part.stop()
        if self._service is not None:
            self._service.close()
            self._service = None


server = LorelineServer()
Handler = Callable[[LorelineServer, Params], Any]


def request(method: str) -> Callable[[Handler], Handler]:
    """Register a custom request whose engine errors become `RequestFailed` responses."""
    def wrap(fn: Handler) -> Handler:
        @functools.wraps(fn)
        def handler(ls: LorelineServer, raw: Any) -> Any:
            try:
                return fn(ls, Params(method, raw))
            except LorelineError as err:
                raise request_failed(err) from None
        server.feature(method)(handler)
        return fn
    return wrap


@server.feature(types.INITIALIZE)
def on_initialize(ls: LorelineServer, params: types.InitializeParams) -> None:
    ls.folders = [service.to_path(f.uri) for f in (params.workspace_folders or [])]
    if not ls.folders and params.root_uri:
        ls.folders = [service.to_path(params.root_uri)]
    ls.options, problems = parse(params.initialization_options)
    for problem in problems:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"Loreline: {problem}"))


@server.feature(types.INITIALIZED)
def on_initialized(ls: LorelineServer, _: types.InitializedParams) -> None:
    try:
        ls.watcher = StoreWatcher(ls.service.data_version, ls.options.poll_seconds, ls.changed)
    except LorelineError as err:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"Loreline: {err}"))
        return
    ls.watcher.start()
    serve = _worker_serve()
    if ls.options.background_worker and serve is not None:
        ls.worker = WorkerThread(ls.options.worker_interval_seconds, serve)
        ls.worker.start()


def _worker_serve() -> Callable[[Callable[[], bool]], object] | None:
    try:
        from loreline.capture.worker import Worker
    except ImportError:
        return None

    def serve(should_stop: Callable[[], bool]) -> object:
        return Worker().serve(should_stop)
    return serve


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: LorelineServer, _: None) -> None:
    ls.close()


@request(MEMORIES)
def memories(ls: LorelineServer, p: Params) -> dict[str, Any]:
    status = p.choice("status", (*STATUSES, "any"), "active")
    return ls.service.memories(
        ls.project(p.string("folder")), kind=p.choice("kind", KINDS), status=None if status == "any" else status,
        text=p.string("text"), offset=p.integer("offset", 0, low=0, high=10**9) or 0,
        limit=p.integer("limit", ls.options.page_size, low=1, high=1000) or ls.options.page_size)


@request(PROVENANCE)
def provenance(ls: LorelineServer, p: Params) -> dict[str, Any]:
    return ls.service.provenance(p.integer("id", required=True) or 0)


@request(RECALL)
def recall(ls: LorelineServer, p: Params) -> dict[str, Any]:
    query = p.string("query", required=True) or ""
    return ls.service.recall(ls.project(p.string("folder")), query,
                             limit=p.integer("limit", 10, low=1, high=100) or 10,
                             include_inactive=p.boolean("includeInactive"))


@request(CONFLICTS)
def conflict_list(ls: LorelineServer, p: Params) -> dict[str, Any]:
    status = p.choice("status", ("pending", "resolved", "any"), "pending")
    project = None if p.boolean("allProjects") else ls.project(p.string("folder"))
    return ls.service.conflicts(project, None if status == "any" else status)


def write_request(method: str) -> Callable[[Callable[[service.Service, Params], dict[str, Any]]], None]:
    """Register a custom request that writes. It runs off the event loop on its own store
    connection: waiting for another process's write lock must not freeze hovers and reads."""
    def wrap(fn: Callable[[service.Service, Params], dict[str, Any]]) -> None:
        async def handler(ls: LorelineServer, raw: Any) -> dict[str, Any]:
            p = Params(method, raw)
            try:
                result = await asyncio.get_running_loop().run_in_executor(None, _on_own_store, fn, p)
            except LorelineError as err:
                raise request_failed(err) from None
            ls.changed(fn.__name__, result.get("project"))
            return result
        handler.__name__ = fn.__name__
        server.feature(method)(handler)
    return wrap


def _on_own_store(fn: Callable[[service.Service, Params], dict[str, Any]], p: Params) -> dict[str, Any]:
    with service.Service.open() as svc:
        return fn(svc, p)


@write_request(RESOLVE_CONFLICT)
def conflict(svc: service.Service, p: Params) -> dict[str, Any]:
    keep = p.choice("keep", ("new", "existing", "both"))
    merge = p.string("merge")
    if (keep is None) == (merge is None):
        p._fail("keep", "given, or 'merge' given instead (exactly one of them)")
    return svc.resolve_conflict(p.integer("id", required=True) or 0, f"keep_{keep}" if keep else "merge", merge)


@write_request(FORGET)
def forget(svc: service.Service, p: Params) -> dict[str, Any]:
    return svc.forget(p.integer("id", required=True) or 0)


@request(STATUS)
def status(ls: LorelineServer, p: Params) -> dict[str, Any]:
    return ls.service.status(ls.project(p.string("folder")))


@request(SET_API_KEY)
def set_api_key(ls: LorelineServer, p: Params) -> dict[str, Any]:
    from loreline import keys

    key = (p.string("key", required=True) or "").strip()
    if not key:
        p._fail("key", "a non-empty string")
    where = keys.save_key(key)
    return {"stored": True, "source": "keyring", "backend": where}


@server.feature(IMPORT)
async def import_sessions(ls: LorelineServer, raw: Any) -> dict[str, Any]:
    p = Params(IMPORT, raw)
    paths = p.strings("paths")
    scope = p.choice("scope", ("claude-code", "codex", "cursor", "all"), "claude-code") or "claude-code"
    days = p.integer("days", 14, low=1, high=3650) or 14
    sessions = p.integer("sessions", 20, low=1, high=100_000) or 20
    token = p.values.get("workDoneToken") or await _server_token(ls)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    cancelled = _token_cancelled(ls, token)

    def progress(index: int, total: int, path: str) -> None:
        if token is not None:
            report = types.WorkDoneProgressReport(message=f"{index}/{total} {Path(path).name}",
                                                  percentage=int(100 * (index - 1) / max(total, 1)), cancellable=True)
            loop.call_soon_threadsafe(ls.work_done_progress.report, token, report)

    if token is not None:
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title="Loreline import", cancellable=True))
    try:
        report = await loop.run_in_executor(None, lambda: service.run_import(
            paths, scope, days, sessions, progress, lambda: stop.is_set() or cancelled()))
    except asyncio.CancelledError:
        stop.set()
        raise
    except LorelineError as err:
        raise request_failed(err) from None
    finally:
        if token is not None:
            ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message="done"))
    ls.changed("import")
    return service.report_json(report)


async def _server_token(ls: LorelineServer) -> str | None:
    caps = ls.client_capabilities.window
    if not (caps and caps.work_done_progress):
        return None
    token = f"loreline-import-{uuid.uuid4().hex[:8]}"
    await ls.work_done_progress.create_async(token)
    return token


def _token_cancelled(ls: LorelineServer, token: Any) -> Callable[[], bool]:
    def check() -> bool:
        future = ls.work_done_progress.tokens.get(token) if token is not None else None
        return bool(future is not None and future.cancelled())
    return check


@server.feature(types.TEXT_DOCUMENT_HOVER)
def on_hover(ls: LorelineServer, params: types.HoverParams) -> types.Hover | None:
    try:
        document = ls.workspace.get_text_document(params.text_document.uri)
        line = document.lines[params.position.line] if params.position.line < len(document.lines) else ""
        word = hover.word_at(line, params.position.character)
        if word is None or ls.options.hover_limit == 0:
            return None
        found = ls.service.hover_memories(ls.project(document.path), word, ls.options.hover_limit)
    except LorelineError as err:
        raise request_failed(err) from None
    if not found:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=hover.markdown(found)))


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
def on_code_lens(ls: LorelineServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    if not ls.options.code_lens:
        return []
    path = service.to_path(params.text_document.uri)
    try:
        found = ls.service.file_memories(ls.project(path), path)
    except LorelineError as err:
        raise request_failed(err) from None
    if not found:
        return []
    title = f"Loreline: {len(found)} {'memory' if len(found) == 1 else 'memories'} about this file"
    command = types.Command(title=title, command=SHOW_FILE_MEMORIES, arguments=[params.text_document.uri])
    return [types.CodeLens(range=types.Range(types.Position(0, 0), types.Position(0, 0)), command=command)]


@server.command(SHOW_FILE_MEMORIES)
def show_file_memories(ls: LorelineServer, *args: Any) -> dict[str, Any]:
    uri = args[0] if args and isinstance(args[0], str) else None
    if uri is None:
        raise JsonRpcException(message=f"{SHOW_FILE_MEMORIES}: expects the file's URI", code=-32602)
    path = service.to_path(uri)
    return {"uri": uri, "items": ls.service.file_memories(ls.project(path), path)}


def custom_methods() -> list[str]:
    """Every `loreline/…` request this server answers."""
    return sorted(m for m in server.protocol.fm.features if m.startswith("loreline/"))


class _ExpectedErrors(logging.Filter):
    """An InvalidParams or RequestFailed answer is the protocol working, not a server fault:
    keep pygls from logging a traceback for it into the editor's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (isinstance(error, JsonRpcException) and error.code in (-32602, REQUEST_FAILED))


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    pygls_log = logging.getLogger("pygls")
    pygls_log.setLevel(logging.ERROR)
    for handler in logging.getLogger().handlers:
        handler.addFilter(_ExpectedErrors())
    server.start_io()
