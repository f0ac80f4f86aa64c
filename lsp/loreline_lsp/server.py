"""The language server: LSP wiring only. Each handler structures its parameters (`params`),
calls the service off the event loop and shapes the answer; every error becomes a one-line
error response and the server stays up (`transport` answers what never reaches a handler)."""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
import threading
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import cattrs
from lsprotocol import types
from lsprotocol.types import ErrorCodes, LSPErrorCodes
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer
from pygls.protocol import default_converter

from loreline.api.uris import file_path
from loreline.errors import LorelineError
from loreline_lsp import __version__, hover, limits, service, stale, transport
from loreline_lsp.background import StoreWatcher, WorkerThread
from loreline_lsp.documents import Documents
from loreline_lsp.framing import Framer
from loreline_lsp.viewer import ViewerProcess
from loreline_lsp.options import InitOptions, parse
from loreline_lsp.params import (ApproveParams, ConflictsParams, FolderParams, IdParams, ImportParams, InboxParams,
                                 MemoriesParams, RecallParams, ResolveParams, SetApiKeyParams, make_strict, structure)
from loreline_lsp.readers import Readers
from loreline_lsp.status_cache import StatusCache

log = logging.getLogger(__name__)
T = TypeVar("T")

MEMORIES = "loreline/memories"
PROVENANCE = "loreline/provenance"
VIEWER = "loreline/viewer"
RECALL = "loreline/recall"
BRIEF = "loreline/brief"
CONFLICTS = "loreline/conflicts"
RESOLVE_CONFLICT = "loreline/resolveConflict"
FORGET = "loreline/forget"
IMPORT = "loreline/import"
STATUS = "loreline/status"
SET_API_KEY = "loreline/setApiKey"
CONFIRM = "loreline/confirm"
INBOX = "loreline/inbox"
APPROVE = "loreline/approve"
REJECT = "loreline/reject"
DID_CHANGE = "loreline/didChange"
SHOW_FILE_MEMORIES = "loreline.showFileMemories"
#: custom notifications the server sends (requests are whatever is registered)
NOTIFICATIONS = (DID_CHANGE,)


def request_failed(err: LorelineError | str) -> JsonRpcException:
    """The one answer an engine error gets: `RequestFailed` with its one-line message."""
    return JsonRpcException(message=transport.one_line(str(err)), code=LSPErrorCodes.RequestFailed)


async def answer(method: str, work: Awaitable[T]) -> T:
    """`work`'s result; an engine or OS error becomes `RequestFailed` (traceback to the log)."""
    try:
        return await work
    except (JsonRpcException, asyncio.CancelledError):
        raise
    except LorelineError as err:
        raise request_failed(err) from None
    except Exception as err:
        log.exception("%s failed", method)
        raise request_failed(f"{method} failed: {type(err).__name__}: {err}") from None


def fs_path(value: str, method: str) -> str:
    """A path from a path or a `file:` URI (what `folder` and `paths` accept)."""
    if not value.startswith("file:"):
        return value
    path = file_path(value)
    if path is None:
        raise JsonRpcInvalidParams(f"{method}: not a file URI")
    return path


def lsp_converter() -> cattrs.Converter:
    """pygls' converter, with lsprotocol's types taking strings, numbers and booleans only
    from values of that JSON type (`"uri": 5` is InvalidParams, not the path "5")."""
    return make_strict(default_converter())


class LorelineServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("loreline", __version__, protocol_cls=transport.LorelineProtocol,
                         converter_factory=lsp_converter)
        self.options = InitOptions()
        self.folders: list[str] = []
        self._service: service.Service | None = None
        self.watcher: StoreWatcher | None = None
        self.worker: WorkerThread | None = None
        self.readers = Readers()
        #: status has a thread of its own: a keyring that never answers must not take the readers
        self.status_reader = Readers(threads=1, name="loreline-status")
        self.status_cache = StatusCache()
        self.documents = Documents()
        self.viewer = ViewerProcess()
        self.client_name = "editor"
        self.tasks: set[asyncio.Task[Any]] = set()

    @property
    def service(self) -> service.Service:
        """The event loop's own connection (the store watcher's `data_version`)."""
        if self._service is None:
            self._service = service.Service.open()
        return self._service

    def project(self, folder: str | None) -> str:
        target = fs_path(folder, "folder") if folder else (self.folders[0] if self.folders else str(Path.cwd()))
        return service.project_of(target)

    def changed(self, reason: str, project: str | None = None) -> None:
        self.protocol.notify(DID_CHANGE, {"reason": reason, **({"project": project} if project else {})})
        for uri in list(self.workspace.text_documents):
            self.spawn(publish_stale(self, uri))

    def spawn(self, work: Awaitable[Any]) -> None:
        """Run `work` on the event loop in the background (a reference kept until it ends)."""
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def close(self) -> None:
        for part in (self.watcher, self.worker):
            if part is not None:
                part.stop()
        self.viewer.stop()
        self.readers.close()
        self.status_reader.close()
        if self._service is not None:
            self._service.close()
            self._service = None

    def start_io(self, stdin: Any = None, stdout: Any = None) -> None:
        """pygls' stdio server with `transport.serve` reading the messages."""
        self._stop_event = threading.Event()
        framer = Framer(stdin or sys.stdin.buffer, self.thread_pool, limits.MAX_MESSAGE)
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))
        assert isinstance(self.protocol, transport.LorelineProtocol)
        try:
            asyncio.run(transport.serve(self.protocol, framer, self._stop_event))
        except BrokenPipeError:
            log.error("the client closed the connection")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()


server = LorelineServer()
Read = Callable[[LorelineServer, service.Service, Any], Any]


def request(method: str, kind: type[Any]) -> Callable[[Read], Read]:
    """Register a custom request that reads: params structured into `kind`, the work done on
    a reader thread, engine and OS errors answered with `RequestFailed`."""
    def wrap(fn: Read) -> Read:
        @functools.wraps(fn)
        async def handler(ls: LorelineServer, raw: Any) -> Any:
            p = structure(method, raw, kind)
            return await answer(method, ls.readers.run(lambda svc: fn(ls, svc, p)))
        server.feature(method)(handler)
        return fn
    return wrap


@server.feature(types.INITIALIZE)
def on_initialize(ls: LorelineServer, params: types.InitializeParams) -> None:
    uris_given = [f.uri for f in (params.workspace_folders or [])] or ([params.root_uri] if params.root_uri else [])
    ls.folders = _folders(uris_given)
    if params.client_info is not None:
        ls.client_name = params.client_info.name[:60]
    ls.options, problems = parse(params.initialization_options)
    if len(ls.folders) < len(uris_given):
        problems.append(f"workspace folders that are not files, or over {limits.MAX_PATH:,} characters, are ignored")
    for problem in problems:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"Loreline: {problem}"))


def _folders(given: list[str]) -> list[str]:
    paths = [file_path(uri) if len(uri) <= limits.MAX_PATH else None for uri in given]
    return [p for p in paths if p is not None]


@server.feature(types.INITIALIZED)
async def on_initialized(ls: LorelineServer, _: types.InitializedParams) -> None:
    """Opening the store may migrate it or wait for another process's lock: off the loop."""
    try:
        svc = await asyncio.get_running_loop().run_in_executor(None, lambda: ls.service)
        ls.watcher = StoreWatcher(svc.data_version, ls.options.poll_seconds, ls.changed)
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
        from loreline.api.worker import Worker
    except ImportError:
        return None

    def serve(should_stop: Callable[[], bool]) -> object:
        return Worker().serve(should_stop)
    return serve


@server.feature(types.SHUTDOWN)
def on_shutdown(ls: LorelineServer, _: None) -> None:
    ls.close()


@request(MEMORIES, MemoriesParams)
def memories(ls: LorelineServer, svc: service.Service, p: MemoriesParams) -> dict[str, Any]:
    return svc.memories(ls.project(p.folder), kind=p.kind, status=None if p.status == "any" else p.status,
                        text=p.text, offset=p.offset, limit=p.limit or ls.options.page_size)


@request(PROVENANCE, IdParams)
def provenance(ls: LorelineServer, svc: service.Service, p: IdParams) -> dict[str, Any]:
    return svc.provenance(p.id)


@request(VIEWER, IdParams)
def viewer_page(ls: LorelineServer, svc: service.Service, p: IdParams) -> dict[str, Any]:
    """The local viewer's page for a memory (the viewer is started on first use)."""
    svc.provenance(p.id)  # an unknown id is an error here, not a blank page there
    return {"url": ls.viewer.page(f"/m/{p.id}")}


@request(RECALL, RecallParams)
def recall(ls: LorelineServer, svc: service.Service, p: RecallParams) -> dict[str, Any]:
    return svc.recall(ls.project(p.folder), p.query, limit=p.limit, include_inactive=p.include_inactive)


@request(BRIEF, FolderParams)
def brief(ls: LorelineServer, svc: service.Service, p: FolderParams) -> dict[str, Any] | None:
    return svc.brief(ls.project(p.folder))


@request(CONFLICTS, ConflictsParams)
def conflict_list(ls: LorelineServer, svc: service.Service, p: ConflictsParams) -> dict[str, Any]:
    project = None if p.all_projects else ls.project(p.folder)
    return svc.conflicts(project, None if p.status == "any" else p.status)


@request(INBOX, InboxParams)
def inbox(ls: LorelineServer, svc: service.Service, p: InboxParams) -> dict[str, Any]:
    return svc.inbox(None if p.all_projects else ls.project(p.folder))


@server.feature(STATUS)
async def status(ls: LorelineServer, raw: Any) -> dict[str, Any]:
    p = structure(STATUS, raw, FolderParams)
    return await answer(STATUS, ls.status_reader.run(lambda svc: _status(ls, svc, p)))


def _status(ls: LorelineServer, svc: service.Service, p: FolderParams) -> dict[str, Any]:
    return svc.status(ls.project(p.folder), facts=ls.status_cache.get(svc))


Write = Callable[[service.Service, Any], dict[str, Any]]


def write_request(method: str, kind: type[Any]) -> Callable[[Write], None]:
    """Register a custom request that writes. It runs off the event loop on its own store
    connection: waiting for another process's write lock must not freeze hovers and reads."""
    def wrap(fn: Write) -> None:
        async def handler(ls: LorelineServer, raw: Any) -> dict[str, Any]:
            p = structure(method, raw, kind)
            work = asyncio.get_running_loop().run_in_executor(None, _on_own_store, fn, p)
            result = await answer(method, work)
            ls.changed(fn.__name__, result.get("project"))
            return result
        handler.__name__ = fn.__name__
        server.feature(method)(handler)
    return wrap


def _on_own_store(fn: Write, p: Any) -> dict[str, Any]:
    with service.Service.open() as svc:
        return fn(svc, p)


@write_request(RESOLVE_CONFLICT, ResolveParams)
def conflict(svc: service.Service, p: ResolveParams) -> dict[str, Any]:
    return svc.resolve_conflict(p.id, f"keep_{p.keep}" if p.keep else "merge", p.merge)


@write_request(APPROVE, ApproveParams)
def approve(svc: service.Service, p: ApproveParams) -> dict[str, Any]:
    return svc.approve(p.id, p.text)


@write_request(REJECT, IdParams)
def reject(svc: service.Service, p: IdParams) -> dict[str, Any]:
    return svc.reject(p.id)


@write_request(FORGET, IdParams)
def forget(svc: service.Service, p: IdParams) -> dict[str, Any]:
    return svc.forget(p.id)


@server.feature(SET_API_KEY)
async def set_api_key(ls: LorelineServer, raw: Any) -> dict[str, Any]:
    """The keyring may answer slowly (D-Bus, an unlock prompt): off the event loop."""
    from loreline.api import settings as keys

    p = structure(SET_API_KEY, raw, SetApiKeyParams)
    work = asyncio.get_running_loop().run_in_executor(None, keys.save_key, p.key.strip())
    try:
        where = await answer(SET_API_KEY, work)
    finally:
        ls.status_cache.forget()
    return {"stored": True, "source": "keyring", "backend": where}


@server.feature(IMPORT)
async def import_sessions(ls: LorelineServer, raw: Any) -> dict[str, Any]:
    p = structure(IMPORT, raw, ImportParams)
    paths = [fs_path(path, IMPORT) for path in p.paths] if p.paths is not None else None
    token = p.work_done_token or await _server_token(ls)
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
        report = await answer(IMPORT, loop.run_in_executor(None, lambda: service.run_import(
            paths, p.scope, p.days, p.sessions, progress, lambda: stop.is_set() or cancelled())))
    except asyncio.CancelledError:
        stop.set()
        raise
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


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def on_did_open(ls: LorelineServer, params: types.DidOpenTextDocumentParams) -> None:
    ls.documents.check(ls.workspace, params.text_document.uri)
    ls.spawn(check_document(ls, params.text_document.uri))


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
async def on_did_save(ls: LorelineServer, params: types.DidSaveTextDocumentParams) -> None:
    await check_document(ls, params.text_document.uri)


async def check_document(ls: LorelineServer, uri: str) -> None:
    """An opened or saved file is compared with what the memories about it rest on (that file
    alone: a file reopened after a branch switch is checked even without a file watcher)."""
    path = file_path(uri) if len(uri) <= limits.MAX_PATH else None
    if path is not None:
        await check_files({ls.project(path): [path]}, ls)
        await publish_stale(ls, uri)


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
async def on_watched_files(ls: LorelineServer, params: types.DidChangeWatchedFilesParams) -> None:
    """Files changed outside the editor (a branch switch, a pull): those files are checked."""
    by_project: dict[str, list[str]] = {}
    for change in params.changes[:limits.MAX_WATCHED]:
        path = file_path(change.uri) if len(change.uri) <= limits.MAX_PATH else None
        if path is not None:
            by_project.setdefault(ls.project(path), []).append(path)
    await check_files(by_project, ls)


async def check_files(by_project: dict[str, list[str]], ls: LorelineServer) -> None:
    """Check the files off the event loop (it may write); tell the client what changed."""
    for project, paths in by_project.items():
        try:
            found = await asyncio.get_running_loop().run_in_executor(
                None, _on_own_store, lambda svc, _: svc.check_files(project, paths), None)
        except LorelineError as err:
            log.warning("staleness check skipped: %s", err)
            continue
        if found["flagged"] or found["cleared"]:
            ls.changed("stale", project)


async def publish_stale(ls: LorelineServer, uri: str) -> None:
    """The file's stale-memory diagnostic (or none), published for the client."""
    path = file_path(uri) if len(uri) <= limits.MAX_PATH else None
    if path is None:
        return
    try:
        found = await ls.readers.run(lambda svc: svc.stale_file_memories(ls.project(path), path))
    except LorelineError as err:
        log.warning("stale diagnostics skipped: %s", err)
        return
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=stale.diagnostics(found)))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION)
def on_code_action(ls: LorelineServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    return stale.code_actions(params.context.diagnostics)


@server.command(stale.CONFIRM)
async def confirm_command(ls: LorelineServer, *args: Any) -> dict[str, Any]:
    return await confirm_memory(ls, _command_id(args, stale.CONFIRM), stale.CONFIRM)


@server.feature(CONFIRM)
async def confirm_request(ls: LorelineServer, raw: Any) -> dict[str, Any]:
    return await confirm_memory(ls, structure(CONFIRM, raw, IdParams).id, CONFIRM)


async def confirm_memory(ls: LorelineServer, memory_id: int, method: str) -> dict[str, Any]:
    by = f"{_user()} via {ls.client_name}"
    work = asyncio.get_running_loop().run_in_executor(None, _on_own_store, lambda svc, _: svc.confirm(memory_id, by),
                                                      None)
    result = await answer(method, work)
    ls.changed("confirm", result.get("project"))
    return result


@server.command(stale.FORGET)
async def forget_command(ls: LorelineServer, *args: Any) -> dict[str, Any]:
    memory_id = _command_id(args, stale.FORGET)
    work = asyncio.get_running_loop().run_in_executor(None, _on_own_store, lambda svc, _: svc.forget(memory_id), None)
    result = await answer(stale.FORGET, work)
    ls.changed("forget", result.get("project"))
    return result


@server.command(stale.SHOW_PROVENANCE)
async def show_provenance_command(ls: LorelineServer, *args: Any) -> dict[str, Any]:
    """The memory's sources; the client is asked to open the first one at its lines."""
    memory_id = _command_id(args, stale.SHOW_PROVENANCE)
    found = await answer(stale.SHOW_PROVENANCE, ls.readers.run(lambda svc: svc.provenance(memory_id)))
    first = found["sources"][0] if found["sources"] else None
    caps = ls.client_capabilities.window
    if first is not None and caps is not None and caps.show_document and caps.show_document.support:
        lines = types.Range(types.Position(max(first["lineStart"] - 1, 0), 0), types.Position(first["lineEnd"], 0))
        ls.spawn(ls.window_show_document_async(types.ShowDocumentParams(uri=first["sessionUri"], selection=lines)))
    elif first is not None:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Info, f"Loreline #{memory_id}: "
                                                       f"{first['sessionPath']} lines {first['lineStart']}-"
                                                       f"{first['lineEnd']}: {first['excerpt'][:300]}"))
    return found


def _command_id(args: tuple[Any, ...], command: str) -> int:
    try:
        return stale.memory_id_arg(args, command)
    except ValueError as err:
        raise JsonRpcInvalidParams(str(err)) from None


def _user() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "user"


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def on_did_change(ls: LorelineServer, params: types.DidChangeTextDocumentParams) -> None:
    ls.documents.check(ls.workspace, params.text_document.uri)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def on_did_close(ls: LorelineServer, params: types.DidCloseTextDocumentParams) -> None:
    ls.documents.closed(params.text_document.uri)


def _document_uri(uri: str, method: str) -> str:
    if len(uri) > limits.MAX_PATH:
        raise JsonRpcInvalidParams(f"{method}: the document URI is longer than {limits.MAX_PATH:,} characters")
    return uri


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def on_hover(ls: LorelineServer, params: types.HoverParams) -> types.Hover | None:
    uri = _document_uri(params.text_document.uri, types.TEXT_DOCUMENT_HOVER)
    if ls.options.hover_limit == 0:
        return None
    found = await answer(types.TEXT_DOCUMENT_HOVER, ls.readers.run(lambda svc: _hover(ls, svc, uri, params.position)))
    if not found:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=hover.markdown(found)))


def _hover(ls: LorelineServer, svc: service.Service, uri: str, at: types.Position) -> list[Any]:
    word = hover.word_at(ls.documents.line(ls.workspace, uri, at.line), at.character)
    if word is None:
        return []
    path = file_path(uri)
    return svc.hover_memories(ls.project(path), word, ls.options.hover_limit)


@server.feature(types.TEXT_DOCUMENT_CODE_LENS)
async def on_code_lens(ls: LorelineServer, params: types.CodeLensParams) -> list[types.CodeLens]:
    uri = _document_uri(params.text_document.uri, types.TEXT_DOCUMENT_CODE_LENS)
    path = file_path(uri)
    if not ls.options.code_lens or path is None:
        return []
    found = await answer(types.TEXT_DOCUMENT_CODE_LENS,
                         ls.readers.run(lambda svc: svc.file_memories(ls.project(path), path)))
    if not found:
        return []
    title = f"Loreline: {len(found)} {'memory' if len(found) == 1 else 'memories'} about this file"
    command = types.Command(title=title, command=SHOW_FILE_MEMORIES, arguments=[uri])
    return [types.CodeLens(range=types.Range(types.Position(0, 0), types.Position(0, 0)), command=command)]


@server.command(SHOW_FILE_MEMORIES)
async def show_file_memories(ls: LorelineServer, *args: Any) -> dict[str, Any]:
    uri = args[0] if args and isinstance(args[0], str) and len(args[0]) <= limits.MAX_PATH else None
    path = file_path(uri) if uri is not None else None
    if uri is None or path is None:
        raise JsonRpcInvalidParams(f"{SHOW_FILE_MEMORIES}: expects the file's URI")
    items = await answer(SHOW_FILE_MEMORIES, ls.readers.run(lambda svc: svc.file_memories(ls.project(path), path)))
    return {"uri": uri, "items": items}


def custom_methods() -> list[str]:
    """Every `loreline/…` request this server answers."""
    return sorted(m for m in server.protocol.fm.features if m.startswith("loreline/"))


class _ExpectedErrors(logging.Filter):
    """An InvalidParams or RequestFailed answer is the protocol working, not a server fault:
    keep pygls from logging a traceback for it into the editor's log."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (isinstance(error, JsonRpcException)
                    and error.code in (ErrorCodes.InvalidParams, LSPErrorCodes.RequestFailed))


def main() -> None:
    logging.basicConfig(level=logging.WARNING)
    pygls_log = logging.getLogger("pygls")
    pygls_log.setLevel(logging.ERROR)
    for handler in logging.getLogger().handlers:
        handler.addFilter(_ExpectedErrors())
    server.start_io()
