"""``finrag serve`` and the HTTP app ``langgraph dev`` mounts: a browser chat over the same graph and
checkpointer as the CLI, with a citation viewer that shows the cited page and the cited span on it.

JSON API (what the page uses; other tools may too):

- ``POST /api/ask`` ``{"question", "thread_id"?, "docs"?}`` -> the turn as :class:`graphs.service.AskResult`
  (``docs`` limits it to those filings; ``links`` gives each ``[doc, p. N]`` of the answer its own figure);
  ``POST /api/ask/stream`` streams NDJSON: one ``{"event": "progress", "plain": ...}`` per finished node, an
  ``{"event": "answer", "text": ...}`` as soon as the answer is written, then ``{"event": "result", "result": ...}``
  (or ``{"event": "error", "message": ...}``).
- ``POST /api/threads`` -> a new thread id; ``GET /api/threads`` -> recent threads (title, turns, last activity);
  ``GET /api/threads/{id}`` -> its turns, with each turn's full result (a reload shows them again).
- ``POST /api/fetch`` ``{"company", "form"?, "year"?, "limit"?}`` -> filings downloaded from SEC EDGAR and
  ingested, streaming NDJSON progress.
- ``GET /api/docs`` -> the ingested documents; ``PUT /api/upload?name=FILE`` with the file as the body ingests it,
  streaming NDJSON progress per page and chunk batch, then the ingest report.
- ``GET /api/citation/{doc}/{page}?quote=&figure=`` -> :class:`agent.index.render.PageView` (highlight boxes or text
  spans); ``GET /api/citation/{doc}/{page}.png?scale=`` -> the rendered PDF page.

Safe by default: ``finrag serve`` binds 127.0.0.1; requests name documents, never paths (a document's file is
found through the index); uploads are saved under ``FINRAG_HOME/uploads`` by their base name only; the page
puts every server string into the DOM as text, never as markup.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import queue
import re
import secrets
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from agent.config import Settings
from agent.errors import FinragError, NotFoundError
from agent.schemas import DocumentMeta
from tools.edgar import FILINGS_DIR, Transport

log = logging.getLogger(__name__)

PAGE_FILE = Path(__file__).with_name("static") / "index.html"
UPLOAD_DIR = "uploads"  # under FINRAG_HOME
MAX_UPLOAD_MB = 200.0  # the ingest limit; a larger body is refused before it is written
_SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._ -]+")
MAX_QUESTION_CHARS = 4000  # a question, not a document: longer bodies are refused before the graph runs
MAX_THREAD_ID_CHARS = 200  # thread ids are uuids or short names
MAX_TICKER_CHARS = 20  # a ticker or a CIK
MAX_DOC_NAME_CHARS = 200  # a document's name (or its 64-hex content hash)
MAX_DOCS_FILTER = 100  # documents one question may be limited to
MAX_FETCH_FILINGS = 20  # filings one browser request may download: more is a job for `finrag fetch`
MAX_EDIT_CHARS = 200  # a metadata value typed in the page (the store checks it further)
B = TypeVar("B", bound=BaseModel)
MAX_UPLOAD_NAME_CHARS = 120  # longer file names are cut (the extension kept): file systems allow 255 bytes
UPLOAD_CHUNK_BYTES = 1 << 20  # a request body is written as it arrives, a megabyte at a time


CLIENT_COOKIE_DAYS = 400  # browsers keep a cookie at most this long
CLIENT_COOKIE = "finrag_client"  # a browser's own secret: the threads it opens are listed to it alone
_CLIENT_ID_RE = re.compile(r"[A-Za-z0-9_-]{16,64}")
LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})
_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
THREAD_PAGE = 50  # turns of a thread sent back at most at once (?last=N for fewer)
CONVERSATION_LOCKS = 64  # turns of one thread run in order; threads hash onto this many locks (bounded memory)


class _App:
    """The assistant and index shared by the requests of one server. Questions of different threads run at
    once (the store gives each thread its own SQLite connection, the checkpointer serialises its writes); the
    turns of one thread run in order, and one upload is ingested at a time."""

    def __init__(self, settings: Settings | None = None) -> None:
        self._settings = settings
        self._assistant: Any = None
        self._assistant_lock = threading.Lock()
        self._conversations = [threading.Lock() for _ in range(CONVERSATION_LOCKS)]
        self.ingest_lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = Settings.from_env()
        return self._settings

    @property
    def assistant(self) -> Any:
        if self._assistant is None:
            with self._assistant_lock:
                if self._assistant is None:
                    from graphs.service import Assistant

                    self._assistant = Assistant(self.settings)
        return self._assistant

    def warm(self) -> None:
        """Load the graph, the embedding model and the indexes before the first request, so the first answer
        is as quick as the next; a problem here is the first question's to report, not the server's."""
        try:
            self.assistant.warm()
        except Exception as exc:  # noqa: BLE001 - a damaged index must still let the server start and say so
            log.warning("warm-up skipped: %s", exc)

    def conversation(self, thread_id: str) -> threading.Lock:
        """The lock that keeps the turns of ``thread_id`` in order (a follow-up reads the turn before it)."""
        digest = hashlib.blake2b(thread_id.encode("utf-8"), digest_size=4).digest()
        return self._conversations[int.from_bytes(digest, "big") % len(self._conversations)]

    def close(self) -> None:
        if self._assistant is not None:
            self._assistant.close()
            self._assistant = None


def _doc_row(d: DocumentMeta) -> dict[str, Any]:
    """A filing as the documents list shows it."""
    return {"name": d.name, "company": d.company, "ticker": d.ticker, "form": d.form, "period": d.fiscal_period,
            "filed": d.filing_date, "pages": d.n_pages, "format": d.source_format}


def _json(value: Any, status: int = 200) -> JSONResponse:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    elif isinstance(value, list):
        value = [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value]
    return JSONResponse(value, status_code=status)


def _error(exc: Exception) -> JSONResponse:
    status = 404 if isinstance(exc, NotFoundError) else 400
    return JSONResponse({"error": str(exc)}, status_code=status)


class AskRequest(BaseModel):
    """The body of ``POST /api/ask`` and ``/api/ask/stream``."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    question: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    thread_id: str | None = Field(default=None, max_length=MAX_THREAD_ID_CHARS, pattern=r"^[\w.:-]*$")
    docs: list[Annotated[str, Field(min_length=1, max_length=MAX_DOC_NAME_CHARS)]] = Field(
        default_factory=list, max_length=MAX_DOCS_FILTER, description="answer from these filings only")


class DocEdit(BaseModel):
    """The body of ``PATCH /api/docs/{name}``: the metadata a person corrects (as ``finrag docs edit`` takes it;
    each value is checked by the store, which names what a right one looks like)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    company: str | None = Field(default=None, max_length=MAX_EDIT_CHARS)
    ticker: str | None = Field(default=None, max_length=MAX_EDIT_CHARS)
    form: str | None = Field(default=None, max_length=MAX_EDIT_CHARS)
    fiscal_period: str | None = Field(default=None, max_length=MAX_EDIT_CHARS)
    fiscal_year: int | None = None
    period_end: str | None = Field(default=None, max_length=MAX_EDIT_CHARS)
    filing_date: str | None = Field(default=None, max_length=MAX_EDIT_CHARS)


class FetchRequest(BaseModel):
    """The body of ``POST /api/fetch``: what to download from EDGAR (as ``finrag fetch`` takes it)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    company: str = Field(min_length=1, max_length=MAX_TICKER_CHARS, pattern=r"^[A-Za-z0-9.\-]+$")
    form: Literal["10-K", "10-Q", "8-K", "earnings"] = "10-K"
    year: int | None = Field(default=None, ge=1993, le=2100)  # EDGAR's electronic filings start in 1993
    limit: int = Field(default=1, ge=1, le=MAX_FETCH_FILINGS)


async def _body(request: Request, model: type[B] = AskRequest) -> B:  # type: ignore[assignment]
    """The request's JSON body, validated: a missing or wrong field is a 400 naming the field, never a 500."""
    try:
        data = await request.json()
    except (ValueError, UnicodeDecodeError):
        raise FinragError("the request body must be JSON") from None
    if not isinstance(data, dict):
        raise FinragError("the request body must be a JSON object")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "body"
        raise FinragError(f"{field}: {first['msg']}") from None


def _too_large() -> JSONResponse:
    return JSONResponse({"error": f"the file is over {MAX_UPLOAD_MB:g} MB"}, status_code=413)


def _free_upload_name(folder: Path, name: str, sha256: str) -> Path:
    """Where an upload is kept: its name, unless a different file already holds it (another company's
    'report.md' never replaces the first one's); then the name with a number, as `finrag ingest` names files."""
    stem, suffix = Path(name).stem, Path(name).suffix
    candidate, number = folder / name, 2
    while candidate.exists() and hashlib.sha256(candidate.read_bytes()).hexdigest() != sha256:
        candidate = folder / f"{stem}_{number}{suffix}"
        number += 1
    return candidate


def _indexed_as(sha256: str, settings: Settings) -> Any:
    """The indexed document with these bytes (documents are keyed by their sha256), or None."""
    from agent.index.store import Store

    with Store.open(settings) as store:
        return next((d for d in store.list_documents() if d.doc_id == sha256), None)


def _unreadable_upload(path: Path, settings: Settings) -> str:
    """Why an uploaded file cannot be ingested (corrupt, empty, binary, too large), or '' when it may be: said
    without reading its text, which the ingest does once, under its lock."""
    from agent.errors import IngestError
    from agent.ingest.parsing import check_file

    try:
        check_file(path, settings)
    except IngestError as exc:
        return str(exc.reason)
    except FinragError as exc:
        return str(exc)
    except (OSError, ValueError, MemoryError, RecursionError) as exc:
        return f"cannot read this file: {exc}"
    return ""


def requester(request: Request) -> str:
    """Who is calling, for the threads they own: the browser's secret cookie, else a digest of the bearer token
    (every holder of the server token is one caller), else '' (a client with no identity, such as curl)."""
    cookie = request.cookies.get(CLIENT_COOKIE, "")
    if _CLIENT_ID_RE.fullmatch(cookie):
        return cookie
    token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32] if token else ""


def _host_name(host: str) -> str:
    """'127.0.0.1:8765' -> '127.0.0.1'; '[::1]:8765' -> '[::1]'."""
    return host.rsplit(":", 1)[0] if host.count(":") == 1 or host.startswith("[") and "]:" in host else host


def site_refusal(request: Request, allowed_hosts: frozenset[str]) -> str:
    """Why a request may not reach the server ('' when it may): it names a host the server does not answer to (a
    page whose name was rebound to this address), or it changes something and a browser says it comes from
    another site (a cross-origin form or fetch)."""
    host = request.headers.get("host", "")
    if "*" not in allowed_hosts and _host_name(host).lower() not in allowed_hosts:
        return (f"this server does not answer to the host {host!r}; add it to FINRAG_SERVE_HOSTS if people reach "
                "the server by that name")
    if request.method not in _CHANGING:
        return ""
    origin = request.headers.get("origin", "")
    if origin and origin != "null" and origin.split("://", 1)[-1].lower() != host.lower():
        return f"a request from another site ({origin}) may not change anything here"
    if origin == "null" or request.headers.get("sec-fetch-site", "") == "cross-site":
        return "a request from another site may not change anything here"
    return ""


def _thread_of(body: AskRequest) -> str:
    """The request's thread, or a new one (named here so its turn can be ordered like any other)."""
    from graphs.service import Assistant

    return body.thread_id or Assistant.new_thread()


def _line(value: dict[str, Any]) -> bytes:
    return (json.dumps(value, ensure_ascii=False, default=str) + "\n").encode("utf-8")


def _streamed(work: Any) -> Iterator[bytes]:
    """Run ``work(emit)`` in a thread and yield what it emits as NDJSON lines, as they come."""
    lines: queue.Queue[bytes | None] = queue.Queue()

    def run() -> None:
        try:
            work(lambda value: lines.put(_line(value)))
        except FinragError as exc:
            lines.put(_line({"event": "error", "message": str(exc)}))
        except Exception as exc:  # the stream must end with a reason, not hang the page
            lines.put(_line({"event": "error", "message": f"unexpected {type(exc).__name__}: {exc}"}))
        finally:
            lines.put(None)

    threading.Thread(target=run, daemon=True).start()
    while (item := lines.get()) is not None:
        yield item


def build_app(settings: Settings | None = None, edgar_transport: Transport | None = None,
              hosts: Sequence[str] = ()) -> Starlette:
    """The web app over ``settings`` (read from the environment on first use when None); ``edgar_transport``
    replaces the network for ``/api/fetch`` (tests replay recorded EDGAR responses); ``hosts`` are names the
    server answers to beside the loopback ones and FINRAG_SERVE_HOSTS (the address it is bound to)."""
    state = _App(settings)

    def page(request: Request) -> Response:
        response = HTMLResponse(PAGE_FILE.read_text(encoding="utf-8"))
        if not _CLIENT_ID_RE.fullmatch(request.cookies.get(CLIENT_COOKIE, "")):
            response.set_cookie(CLIENT_COOKIE, secrets.token_urlsafe(24), max_age=CLIENT_COOKIE_DAYS * 86400,
                                httponly=True, samesite="strict", path="/")
        return response

    def stranger(request: Request, thread_id: str) -> JSONResponse | None:
        """A 404 for a thread another caller opened (as for one that does not exist: its id says nothing)."""
        if state.assistant.thread_index.claim(thread_id, requester(request)):
            return None
        return JSONResponse({"error": f"no thread {thread_id!r} of yours"}, status_code=404)

    def ask_sync(question: str, thread_id: str, docs: list[str]) -> Any:
        with state.conversation(thread_id):
            return state.assistant.ask(question, thread_id=thread_id, docs=docs)

    async def ask(request: Request) -> Response:
        try:
            body = await _body(request)
            from starlette.concurrency import run_in_threadpool

            thread_id = _thread_of(body)
            if (refused := stranger(request, thread_id)) is not None:
                return refused
            result = await run_in_threadpool(ask_sync, body.question, thread_id, body.docs)
        except FinragError as exc:
            return _error(exc)
        return _json(result)

    async def ask_stream(request: Request) -> Response:
        try:
            body = await _body(request)
        except FinragError as exc:
            return _error(exc)
        question, thread_id = body.question, _thread_of(body)
        if (refused := stranger(request, thread_id)) is not None:
            return refused

        def work(emit: Any) -> None:
            with state.conversation(thread_id):
                for event in state.assistant.stream(question, thread_id=thread_id, docs=body.docs):
                    if event.result is not None:
                        emit({"event": "result", "result": event.result.model_dump(mode="json"),
                              "trace_text": event.result.trace.render_text()})
                        continue
                    emit({"event": "progress", "node": "/".join([*event.path, event.node]),
                          "elapsed_s": event.elapsed_s, "summary": event.summary, "plain": event.plain})
                    if event.answer:  # the words first; the result that follows links every figure
                        emit({"event": "answer", "text": event.answer})

        return StreamingResponse(_streamed(work), media_type="application/x-ndjson")

    def new_thread(request: Request) -> Response:
        from graphs.service import Assistant

        return _json({"thread_id": Assistant.new_thread()})

    def threads(request: Request) -> Response:
        return _json({"threads": [t.model_dump(mode="json")
                                  for t in state.assistant.threads(owner=requester(request))]})

    def thread_turns(request: Request) -> Response:
        thread_id = request.path_params["thread_id"]
        owner = state.assistant.thread_index.owner_of(thread_id)
        if owner is not None and owner != requester(request):
            return JSONResponse({"error": f"no thread {thread_id!r} of yours"}, status_code=404)
        try:
            last = int(request.query_params.get("last", THREAD_PAGE))
        except ValueError:
            return _error(FinragError("last: give a whole number of turns"))
        last = min(max(last, 1), THREAD_PAGE)
        turns = state.assistant.turns(thread_id)
        results = state.assistant.results(thread_id, last=last)
        return _json({"thread_id": thread_id, "turns": [t.model_dump(mode="json") for t in turns],
                      "results": [r.model_dump(mode="json") for r in results],
                      "more": len(turns) > len(results),
                      "last": results[-1].model_dump(mode="json") if results else None})

    def docs(request: Request) -> Response:
        from agent.index.store import Store

        with Store.open(state.settings) as store:
            found = store.list_documents()
        return _json([_doc_row(d) for d in found])

    async def edit_doc(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        from agent.index.store import Store

        try:
            body = await _body(request, DocEdit)
        except FinragError as exc:
            return _error(exc)
        changes = body.model_dump(exclude_none=True)
        if not changes:
            return _error(FinragError("nothing to change: give company, ticker, form or fiscal_period"))

        def edit() -> DocumentMeta:
            with state.ingest_lock, Store.open(state.settings) as store:
                return store.update_metadata(request.path_params["doc"], **changes)

        try:
            return _json(_doc_row(await run_in_threadpool(edit)))
        except FinragError as exc:
            return _error(exc)

    async def remove_doc(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        from agent.index.store import Store

        def remove() -> DocumentMeta:
            with state.ingest_lock, Store.open(state.settings) as store:
                return store.remove_document(request.path_params["doc"])

        try:
            gone = await run_in_threadpool(remove)
        except FinragError as exc:
            return _error(exc)
        return _json({"removed": gone.name})

    def suggestions(request: Request) -> Response:
        from agent.answer.suggestions import suggested_questions
        from agent.index.store import Store

        with Store.open(state.settings) as store:
            return _json({"questions": suggested_questions(store)})

    async def fetch_filings(request: Request) -> Response:
        from tools.edgar import EdgarClient, EdgarError, fetch_filings, ingest_overrides, urllib_transport

        try:
            body = await _body(request, FetchRequest)
            client = EdgarClient(state.settings.sec_user_agent, transport=edgar_transport or urllib_transport)
        except (FinragError, EdgarError) as exc:
            return _error(FinragError(str(exc)))

        def work(emit: Any) -> None:
            from agent.ingest.pipeline import open_ingestor

            def saved(f: Any) -> None:
                emit({"event": "downloaded" if f.fresh else "have", "file": f.path.name, "form": f.form,
                      "period": f.report_date or f.filing_date})

            try:
                got = fetch_filings(client, body.company, body.form, Path(state.settings.home) / FILINGS_DIR,
                                    body.year, body.limit, on_file=saved)
            except EdgarError as exc:
                raise FinragError(str(exc)) from None
            emit({"event": "found", "company": got.name, "cik": got.cik, "filings": got.filings,
                  "files": len(got.files)})

            def progress(stage: str, done: int, total: int) -> None:
                emit({"event": "progress", "stage": stage, "done": done, "total": total})

            with state.ingest_lock, open_ingestor(state.settings, on_progress=progress) as ingestor:
                for f in got.files:
                    shown = ingestor.ingest_file(f.path, ingest_overrides(f, body.form)).model_dump(mode="json")
                    shown["path"] = f"{FILINGS_DIR}/{got.cik}/{f.path.parent.name}/{f.path.name}"
                    emit({"event": "result", "report": shown})

        return StreamingResponse(_streamed(work), media_type="application/x-ndjson")

    def citation(request: Request) -> Response:
        from agent.index.render import view_page
        from agent.index.store import Store

        doc, page_no = request.path_params["doc"], request.path_params["page"]
        try:
            with Store.open(state.settings) as store:
                view = view_page(store, doc, page_no, request.query_params.get("quote", ""),
                                 request.query_params.get("figure", ""), request.query_params.get("chunk", ""))
        except FinragError as exc:
            return _error(exc)
        return _json(view)

    def filed(request: Request) -> Response:
        from agent.index.filed import CONTENT_SECURITY_POLICY, filed_html
        from agent.index.store import Store

        q = request.query_params
        try:
            page = int(q.get("page", "1"))
            with Store.open(state.settings) as store:
                shown = filed_html(store, request.path_params["doc"], page, q.get("quote", ""), q.get("figure", ""))
        except ValueError:
            return _error(FinragError("page must be a number"))
        except FinragError as exc:
            return _error(exc)
        return Response(shown, media_type="text/html; charset=utf-8", headers={
            "Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})

    def citation_png(request: Request) -> Response:
        from agent.index.render import DEFAULT_RENDER_SCALE, render_png
        from agent.index.store import Store

        doc, page_no = request.path_params["doc"], request.path_params["page"]
        try:
            scale = float(request.query_params.get("scale", DEFAULT_RENDER_SCALE))
            with Store.open(state.settings) as store:
                png = render_png(store, doc, page_no, scale)
        except ValueError:
            return _error(FinragError("scale must be a number"))
        except FinragError as exc:
            return _error(exc)
        return Response(png, media_type="image/png", headers={"Cache-Control": "max-age=3600"})

    async def upload(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        from agent.ingest.parsing import SUPPORTED_EXTENSIONS

        base = re.split(r"[\\/]", request.query_params.get("name", ""))[-1]  # the base name, whatever path came
        name = _SAFE_NAME_RE.sub("_", base).strip(" .")
        suffix = Path(name).suffix.lower()
        if not name or suffix not in SUPPORTED_EXTENSIONS:
            return _error(FinragError(f"give the file's name with one of {', '.join(SUPPORTED_EXTENSIONS)}"))
        name = Path(name).stem[: MAX_UPLOAD_NAME_CHARS - len(suffix)] + suffix
        limit = int(MAX_UPLOAD_MB * 1024 * 1024)
        if int(request.headers.get("content-length") or 0) > limit:
            return _too_large()
        folder = Path(state.settings.home) / UPLOAD_DIR
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{name}.{threading.get_ident()}.part"
        digest = hashlib.sha256()
        size = 0
        try:
            with partial.open("wb") as out:  # chunked bodies have no Content-Length: count while writing
                async for chunk in request.stream():
                    size += len(chunk)
                    if size > limit:
                        raise OverflowError
                    digest.update(chunk)
                    out.write(chunk)
        except OverflowError:
            partial.unlink(missing_ok=True)
            return _too_large()
        except OSError as exc:
            partial.unlink(missing_ok=True)
            return _error(FinragError(f"the upload could not be stored: {exc.strerror or exc}"))
        indexed = await run_in_threadpool(_indexed_as, digest.hexdigest(), state.settings)
        if indexed is not None:  # the same bytes under another name: no second copy, no second document
            partial.unlink(missing_ok=True)
            report = {"status": "unchanged", "name": indexed.name, "path": indexed.name, "pages": indexed.n_pages,
                      "chunks": indexed.n_chunks, "error": "",
                      "message": f"{name} is already indexed as {indexed.name} (the same file); nothing was added"}
            return Response(_line({"event": "result", "report": report}), media_type="application/x-ndjson")
        target = _free_upload_name(folder, name, digest.hexdigest())
        partial.replace(target)

        problem = await run_in_threadpool(_unreadable_upload, target, state.settings)
        if problem:
            target.unlink(missing_ok=True)
            return JSONResponse({"error": f"{name}: {problem}", "status": "failed"}, status_code=422)

        def work(emit: Any) -> None:
            from agent.ingest.pipeline import open_ingestor

            def progress(stage: str, done: int, total: int) -> None:
                emit({"event": "progress", "stage": stage, "done": done, "total": total})

            with state.ingest_lock, open_ingestor(state.settings, on_progress=progress) as ingestor:
                report = ingestor.ingest_file(target)
            if report.status == "failed":
                target.unlink(missing_ok=True)
            shown = report.model_dump(mode="json")
            shown["path"] = f"{UPLOAD_DIR}/{target.name}"  # never the server's absolute paths
            emit({"event": "result", "report": shown})

        return StreamingResponse(_streamed(work), media_type="application/x-ndjson")

    routes = [
        Route("/", page),
        Route("/api/ask", ask, methods=["POST"]),
        Route("/api/ask/stream", ask_stream, methods=["POST"]),
        Route("/api/threads", new_thread, methods=["POST"]),
        Route("/api/threads", threads, methods=["GET"]),
        Route("/api/threads/{thread_id:str}", thread_turns),
        Route("/api/docs", docs),
        Route("/api/docs/{doc:str}", edit_doc, methods=["PATCH"]),
        Route("/api/docs/{doc:str}", remove_doc, methods=["DELETE"]),
        Route("/api/suggestions", suggestions),
        Route("/api/upload", upload, methods=["PUT", "POST"]),
        Route("/api/fetch", fetch_filings, methods=["POST"]),
        Route("/api/filed/{doc:str}", filed),
        Route("/api/citation/{doc:str}/{page:int}.png", citation_png),
        Route("/api/citation/{doc:str}/{page:int}", citation),
    ]
    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        from starlette.concurrency import run_in_threadpool

        await run_in_threadpool(state.warm)
        yield
        state.close()

    async def not_found(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": f"nothing at {request.url.path}"}, status_code=404)

    class TokenGate(BaseHTTPMiddleware):
        """With ``serve_token`` set, every API request carries it (``Authorization: Bearer``, or ``?token=`` for
        the page images a browser loads by URL); the page itself holds no data and is served to anyone."""

        async def dispatch(self, request: Request, call_next: Any) -> Response:
            token = state.settings.serve_token
            if token and request.url.path.startswith("/api/"):
                given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
                given = given or request.query_params.get("token", "")
                if not hmac.compare_digest(given.encode(), token.encode()):
                    return JSONResponse({"error": "this server needs its token (FINRAG_SERVE_TOKEN): open the page "
                                                  "as /?token=... or send 'Authorization: Bearer ...'"}, status_code=401)
            return await call_next(request)

    allowed_hosts = LOOPBACK_HOSTS | {h.strip().lower() for h in state.settings.serve_hosts.split(",") if h.strip()}
    allowed_hosts |= {h.lower() for h in hosts}

    class SiteGate(BaseHTTPMiddleware):
        """Every request names a host this server answers to, and no other site's page changes anything here
        (see :func:`site_refusal`)."""

        async def dispatch(self, request: Request, call_next: Any) -> Response:
            why = site_refusal(request, frozenset(allowed_hosts))
            if why:
                return JSONResponse({"error": why}, status_code=403)
            return await call_next(request)

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={404: not_found},
                    middleware=[Middleware(SiteGate), Middleware(TokenGate)])
    app.state.finrag = state
    return app


# What `langgraph.json` mounts beside the graphs in `langgraph dev` (settings from the environment).
app = build_app()
