"""`memory-arena serve`: the reference Add/Search server (docs/contract.md) on Starlette + uvicorn,
with one or several worker processes over one database.

The database (a SQLite file, or PostgreSQL with `--db postgresql://...`) is the source of truth
and the only state the workers share. Each worker keeps its own search backend (any built-in
memory system, `bm25` by default) and fills it lazily: before a search it reads the user's
version from the database (bumped in the transaction of every Add, `store`) and, when the
version moved, loads that user's newer messages. So an Add acknowledged by any worker is
returned by the next search on every worker, and a worker never serves a stale index. An Add
is answered only once its transaction has committed. The event loop is the only place that
touches a worker's backend, which keeps its order of ingestion equal to the commit order.
On PostgreSQL the reads of a search run on a small pool of threads, each with its own
connection, so the event loop serves other requests while one waits for its round trip; one
catch-up per user runs at a time (a per-user lock), so concurrent first searches of a user
load its messages once.

Decisions the contract leaves to the server:
- A body that is not JSON (or not UTF-8) is a 400; JSON that breaks the rules is a 422 with
  field-level detail (see `validation`). Every error is `{"detail": ...}`.
- Missing credentials, a wrong key and an unknown scheme are all a 401 (the key is invalid or
  the scheme does not match); this server has no per-endpoint or per-user permissions, so it
  never answers 403. `/health` never needs a key.
- A repeated `(request_id, user_id)` is answered like the first one (200, ids echoed) and
  changes nothing.
- Search ids are the server's message ids; `created_at` is the message's own `timestamp`,
  or null when it had none (the time of ingestion never leaks into results).
- No access log and no request bodies in any log: messages are user data.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from memory_arena.contract import heap
from memory_arena.contract.store import (GroupCommitWriter, Store, StoreError, StoredAdd, is_postgres_url,
                                         open_store, remove_sqlite_files)
from memory_arena.contract.validation import AddRequest, ValidationFailed, validate_add, validate_search
from memory_arena.systems.extras import require

log = logging.getLogger("memory_arena.server")

DEFAULT_BACKEND = "bm25"
DEFAULT_MAX_TOP_K = 100
DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a 20-message chunk of the longest tasks is a few kB
MAX_WORKERS = 64

# Threads (and PostgreSQL connections) per worker for the reads of searches: a cold search
# waits one round trip, and two let a second one overlap it while the event loop works.
READ_THREADS = 2

# How `--workers N` hands the configuration to the worker processes uvicorn spawns.
CONFIG_ENV = "MEMORY_ARENA_SERVE_CONFIG"


@dataclass(frozen=True)
class ServerConfig:
    db: str | Path
    """A SQLite file path, or a `postgresql://` URL."""
    backend: str = DEFAULT_BACKEND
    api_key: str | None = None
    max_top_k: int = DEFAULT_MAX_TOP_K
    max_body_bytes: int = DEFAULT_MAX_BODY
    backend_options: dict[str, Any] = field(default_factory=dict)
    """Constructor options of the backend (`--backend-option key=value`)."""


class HttpError(Exception):
    """An error answered as `{"detail": detail}` with `status`."""

    def __init__(self, status: int, detail: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers


@dataclass
class _Cached:
    """What a worker's backend holds of one user: the messages up to `version`, and their ids."""

    version: int = 0
    ids: list[str] = field(default_factory=list)
    """The built-in systems number a user's memories 0, 1, 2, ... in arrival order
    (systems.store.Record.position); this maps that number back to our message id."""


class _UserLocks:
    """One asyncio lock per user whose cache entry is being brought up to date or waited for,
    dropped when nobody holds or awaits it (the dict does not grow with the users served)."""

    def __init__(self) -> None:
        self._held: dict[str, tuple[asyncio.Lock, int]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, user_id: str) -> AsyncIterator[None]:
        lock, count = self._held.get(user_id) or (asyncio.Lock(), 0)
        self._held[user_id] = (lock, count + 1)
        try:
            async with lock:
                yield
        finally:
            lock, count = self._held[user_id]
            if count == 1:
                del self._held[user_id]
            else:
                self._held[user_id] = (lock, count - 1)


class MemoryService:
    """The store, its writer thread and this worker's search backend, tied to one event loop.

    `settle_heap`: this service is what its process runs (a server worker): after start-up and
    after each load of new messages into the cache, the long-lived heap is frozen out of the
    garbage collector's full collections (`heap.settle`), which would otherwise stop the event
    loop for a time growing with the users cached."""

    def __init__(self, store: Store, backend_name: str, backend_options: dict[str, Any] | None = None,
                 settle_heap: bool = False) -> None:
        from memory_arena.systems import SYSTEMS, build_system

        self._store = store
        self._settle_heap = settle_heap
        self.backend_name = backend_name
        self._backend = build_system(backend_name, backend_options)
        # The built-in systems number a user's memories 0, 1, 2, ... in arrival order; an
        # adapter or plugin has ids of its own, which are passed on as they are.
        self._positional = backend_name in SYSTEMS
        self._cache: dict[str, _Cached] = {}
        self._catching_up = _UserLocks()
        # Only a store whose reads wait on a socket gets threads: on SQLite, four A/B runs showed
        # no clear gain on cold searches and ~0.03 ms more CPU per repeated one (docs/contract.md).
        self._readers = (ThreadPoolExecutor(READ_THREADS, thread_name_prefix="memory-arena-reader")
                         if store.remote else None)
        _warm_up(self._backend, backend_name)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._writer: GroupCommitWriter | None = None

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._writer = GroupCommitWriter(self._store, self._deliver)
        if self._settle_heap:  # the modules, the app and the warmed-up backend live as long as the worker
            heap.settle()

    def stop(self) -> None:
        if self._writer is not None:
            self._writer.close()
        if self._readers is not None:
            self._readers.shutdown(wait=True)
        self._backend.close()
        self._store.close()

    async def add(self, request: AddRequest) -> None:
        """Return once the Add is committed (or found to be a repeat)."""
        assert self._loop is not None and self._writer is not None, "start() not called"
        done: asyncio.Future[None] = self._loop.create_future()
        self._writer.submit(done, request)
        await done

    async def search_async(self, user_id: str, query: str, top_k: int) -> list[dict[str, Any]]:
        """The server's search, on its event loop: the user's cache entry is first brought up to the version
        committed in the database, by one catch-up at a time per user (a search waiting for
        another one's load then reads only what committed after it, usually nothing)."""
        if top_k == 0:
            return []
        cached = self._cache.setdefault(user_id, _Cached())
        async with self._catching_up.hold(user_id):
            if self._readers is None:
                caught_up = self._store.catch_up(user_id, cached.version)
            else:
                assert self._loop is not None, "start() not called"
                caught_up = await self._loop.run_in_executor(self._readers, self._store.catch_up, user_id,
                                                             cached.version)
            self._apply(user_id, cached, *caught_up)
        return self._found(user_id, cached, query, top_k)

    def search(self, user_id: str, query: str, top_k: int) -> list[dict[str, Any]]:
        """The same search with the store read on the calling thread, for a service used as a
        library object with no event loop (benchmarks/server_heap.py); not to be mixed with
        `search_async` on one service."""
        if top_k == 0:
            return []
        cached = self._cache.setdefault(user_id, _Cached())
        self._apply(user_id, cached, *self._store.catch_up(user_id, cached.version))
        return self._found(user_id, cached, query, top_k)

    def _apply(self, user_id: str, cached: _Cached, version: int, adds: list[StoredAdd]) -> None:
        """Ingest `adds`, the messages of the versions above `cached.version` up to `version`
        (a later Add may commit meanwhile: the next search loads it from there). No await in
        here: no search of this worker sees a half-loaded user."""
        if version == cached.version:
            return
        for add in adds:
            self._ingest(add, cached)
        self._backend.flush(user_id)  # a backend that buffers its adds writes them now
        cached.version = version
        if self._settle_heap:  # what was just loaded stays cached: keep full collections off it
            heap.settle()

    def _found(self, user_id: str, cached: _Cached, query: str, top_k: int) -> list[dict[str, Any]]:
        if not cached.ids:
            return []
        found = self._backend.search(user_id, query, top_k)
        return [{"id": cached.ids[int(m["id"])] if self._positional else m["id"], "content": m["content"], "score": m["score"],
                 "created_at": m["created_at"]} for m in found[:top_k]]

    def _ingest(self, add: StoredAdd, cached: _Cached) -> None:
        self._backend.add(add.user_id, add.session_id, list(add.messages))
        cached.ids.extend(add.ids)

    # -- writer thread -> event loop --------------------------------------------------------
    def _deliver(self, outcomes: list[tuple[object, object]]) -> None:
        assert self._loop is not None
        self._loop.call_soon_threadsafe(self._answer, outcomes)

    @staticmethod
    def _answer(outcomes: list[tuple[object, object]]) -> None:
        for future, outcome in outcomes:
            assert isinstance(future, asyncio.Future)
            if future.done():  # a client that hung up has cancelled its future
                continue
            if isinstance(outcome, Exception):
                future.set_exception(outcome)
            else:
                future.set_result(None)


def _warm_up(backend: Any, backend_name: str) -> None:
    """A built-in backend imports its libraries (bm25s and scipy, a model) on first use: one
    throwaway search pays for that before the worker serves, not during a client's request.
    Then the backend forgets that user again (the server's cache never saw it)."""
    from memory_arena.systems import SYSTEMS

    if backend_name not in SYSTEMS:  # an adapter may write to a service: nothing is sent to it
        return
    backend.add("warm-up", "s", [{"role": "user", "content": "warm up the index"}])
    backend.flush("warm-up")
    backend.search("warm-up", "index", 1)
    backend.reset("warm-up")


# -- HTTP layer --------------------------------------------------------------------------------

def _json(status: int, payload: Any, headers: dict[str, str] | None = None):
    from starlette.responses import Response

    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Response(body, status_code=status, media_type="application/json", headers=headers)


def _check_auth(headers: Any, api_key: bytes) -> None:
    """Accept `Authorization: Bearer <key>`, `Authorization: Token <key>` or `X-Api-Key: <key>`."""
    offered: str | None = headers.get("x-api-key")
    if offered is None:
        scheme, _, value = headers.get("authorization", "").partition(" ")
        if scheme.lower() in ("bearer", "token") and value.strip():
            offered = value.strip()
    if offered is None:
        raise HttpError(401, "missing API key: send Authorization: Bearer <key> or X-Api-Key", _CHALLENGE)
    # compare_digest runs in time independent of where the strings differ.
    if not hmac.compare_digest(offered.encode("utf-8", "surrogatepass"), api_key):
        # 401, not 403: the key is invalid. 403 would mean a valid key without the right to
        # this endpoint or user, and this server gives every valid key every right.
        raise HttpError(401, "invalid API key", _CHALLENGE)


_CHALLENGE = {"WWW-Authenticate": "Bearer"}


async def _read_json(request: Any, limit: int) -> Any:
    """The body parsed as JSON, refusing more than `limit` bytes before reading them all."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise HttpError(413, f"request body larger than {limit} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HttpError(413, f"request body larger than {limit} bytes")
        chunks.append(chunk)
    try:
        return json.loads(b"".join(chunks).decode("utf-8"), parse_int=_parse_int)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise HttpError(400, "the body is not valid JSON (UTF-8)") from None
    except RecursionError:
        raise HttpError(400, "the body nests arrays or objects too deeply") from None


# Longer integers are out of every range the contract has (timestamps are signed 64-bit, top_k
# is clamped), and Python refuses to convert one of more than 4,300 digits (a ValueError).
_MAX_INT_DIGITS = 40


def _parse_int(text: str) -> int:
    """A JSON integer; one too long to matter stands in as +-2**200, which validation then
    refuses or clamps exactly as it would the number itself."""
    if len(text) <= _MAX_INT_DIGITS:
        return int(text)
    return -(2**200) if text.startswith("-") else 2**200


def create_app(config: ServerConfig, store: Store | None = None, settle_heap: bool = False):
    """The ASGI application of one worker. `store` defaults to opening `config.db`; `settle_heap`
    when the app is what its process serves (see `MemoryService`), not a library object in a
    larger program."""
    from starlette.applications import Starlette
    from starlette.exceptions import HTTPException
    from starlette.routing import Route

    store = store if store is not None else open_store(config.db)
    service = MemoryService(store, config.backend, config.backend_options, settle_heap)
    api_key = config.api_key.encode("utf-8") if config.api_key else None

    def endpoint(handler: Callable[[Any], Any], authenticated: bool = True):
        async def wrapped(request: Any):
            try:
                if authenticated and api_key is not None:
                    _check_auth(request.headers, api_key)
                return await handler(request)
            except HttpError as exc:
                return _json(exc.status, {"detail": exc.detail}, exc.headers)
            except ValidationFailed as exc:
                return _json(422, {"detail": exc.errors})
        return wrapped

    async def add(request: Any):
        req = validate_add(await _read_json(request, config.max_body_bytes))
        await service.add(req)
        return _json(200, {"success": True, "request_id": req.request_id, "user_id": req.user_id,
                           "session_id": req.session_id})

    async def search(request: Any):
        req = validate_search(await _read_json(request, config.max_body_bytes), config.max_top_k)
        return _json(200, {"data": await service.search_async(req.user_id, req.query, req.top_k)})

    async def health(request: Any):
        # The worker's process id tells an operator (and the tests) which worker answered.
        return _json(200, {"status": "ok", "backend": service.backend_name, "worker": os.getpid()})

    async def http_error(request: Any, exc: Any):
        return _json(exc.status_code, {"detail": exc.detail}, getattr(exc, "headers", None))

    async def server_error(request: Any, exc: Exception):
        # The exception only, never the request: bodies are user data.
        log.error("%s %s failed: %s", request.method, request.url.path, type(exc).__name__, exc_info=exc)
        return _json(500, {"detail": "internal server error"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        service.start()
        try:
            yield
        finally:
            service.stop()

    app = Starlette(
        routes=[
            Route("/add", endpoint(add), methods=["POST"]),
            Route("/search", endpoint(search), methods=["POST"]),
            Route("/health", endpoint(health, authenticated=False), methods=["GET"]),
        ],
        exception_handlers={HTTPException: http_error, Exception: server_error},
        lifespan=lifespan,
    )
    app.state.service = service
    return app


def listen(host: str, port: int) -> socket.socket:
    """A bound, listening socket (port 0 picks a free one, which the caller can then print)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP explicitly: asyncio enables TCP_NODELAY only on accepted sockets whose
    # proto says TCP, and without it a keep-alive client waits ~40 ms (Nagle + delayed ACK)
    # for every response uvicorn writes in two pieces.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def _uvicorn_config(app: Any, **kw: Any) -> Any:
    import uvicorn

    return uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_keep_alive=30,
                          backlog=2048, **kw)


def _print_banner(sock: socket.socket, banner: str) -> None:
    host, port = sock.getsockname()[:2]
    print(banner.format(url=f"http://{host}:{port}"), file=sys.stderr, flush=True)


def serve(app: Any, sock: socket.socket, banner: str) -> None:
    """Run `app` on `sock` with uvicorn in this process until interrupted; print `banner` once listening."""
    import uvicorn

    server = uvicorn.Server(_uvicorn_config(app))
    _print_banner(sock, banner)
    server.run(sockets=[sock])


def serve_workers(settings: dict[str, Any], workers: int, sock: socket.socket, banner: str) -> None:
    """Run `workers` uvicorn worker processes on `sock`, each building its app from `settings`
    (see `app_from_environment`); uvicorn's supervisor starts a new worker when one dies."""
    from uvicorn.supervisors import Multiprocess

    os.environ[CONFIG_ENV] = json.dumps(settings)  # the workers are spawned: they inherit it
    config = _uvicorn_config(f"{__name__}:app_from_environment", factory=True, workers=workers)
    _print_banner(sock, banner)
    Multiprocess(config, sockets=[sock]).run()


def app_from_environment() -> Any:
    """The app of one worker of `--workers N`, configured by the parent through `CONFIG_ENV`."""
    settings = json.loads(os.environ[CONFIG_ENV])
    key_env = settings.pop("api_key_env")
    app = create_app(ServerConfig(api_key=os.environ[key_env] if key_env else None, **settings), settle_heap=True)
    _exit_with_parent()
    return app


def _exit_with_parent(interval: float = 1.0) -> None:
    """Stop this worker gracefully once its parent is gone. uvicorn's supervisor stops its
    workers when it is stopped, but one killed with SIGKILL cannot: its workers would go on
    holding the port and the database with nobody to stop them."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="memory-arena-parent-watch", daemon=True).start()


BANNER = "memory-arena serve: listening on {url}"


def spawn(argv: list[str], log_path: Path, env: dict[str, str] | None = None,
          timeout: float = 60.0) -> tuple[subprocess.Popen, str]:
    """Start a server command (e.g. `python -m memory_arena.cli serve --port 0 ...`) as a child
    process logging to `log_path`; return it and its base URL once it answers `/health`.
    For tests and benchmarks: the banner on stderr says which port `--port 0` picked."""
    import httpx

    log = open(log_path, "ab")
    proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=env)
    log.close()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+)", Path(log_path).read_text("utf-8", "replace"))
        if found:
            try:
                if httpx.get(f"{found.group(1)}/health", timeout=2.0).status_code == 200:
                    return proc, found.group(1)
            except httpx.TransportError:
                pass
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}: {Path(log_path).read_text()[-2000:]}")
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"the server did not answer /health within {timeout} s")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    parser.add_argument("--db", default="memory-arena.sqlite3",
                        help="SQLite file, created if missing, or a postgresql://user:password@host/dbname URL "
                             "(default ./memory-arena.sqlite3)")
    parser.add_argument("--workers", type=int, default=1,
                        help=f"worker processes sharing the database, 1 to {MAX_WORKERS} (default 1)")
    parser.add_argument("--api-key-env", metavar="VAR",
                        help="require the API key held in this environment variable (default: no auth)")
    from memory_arena.systems import SYSTEMS

    parser.add_argument("--backend", default=DEFAULT_BACKEND,
                        help=f"search backend: a built-in memory system ({', '.join(SYSTEMS)}; default {DEFAULT_BACKEND}), "
                             "a library adapter (mem0, chroma, qdrant) or a plugin (package.module:ClassName, or "
                             "the name an installed package registers)")
    parser.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                        help="constructor option of the backend, repeatable; VALUE is read as JSON when it is JSON")
    parser.add_argument("--max-top-k", type=int, default=DEFAULT_MAX_TOP_K,
                        help=f"larger top_k values are clamped to this (default {DEFAULT_MAX_TOP_K})")
    parser.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY,
                        help=f"larger request bodies get a 413 (default {DEFAULT_MAX_BODY})")


def _http_stack() -> str:
    """What uvicorn's "auto" picks: httptools and uvloop (the `uvicorn[standard]` extras) serve
    about twice the requests per CPU second of the pure-Python h11 and asyncio."""
    from importlib.util import find_spec

    http = "httptools" if find_spec("httptools") else "h11"
    loop = "uvloop" if find_spec("uvloop") else "asyncio"
    return f"{http}/{loop}"


def describe_db(db: str) -> str:
    """The database for the banner: never the password of a URL."""
    if is_postgres_url(db):
        from urllib.parse import urlsplit

        parts = urlsplit(db)
        return f"PostgreSQL {parts.hostname or 'localhost'}:{parts.port or 5432}{parts.path}"
    return f"SQLite {db}"


def _usage_error(message: str) -> int:
    print(f"memory-arena serve: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from memory_arena.systems import check_name, is_url, plugins, system_class

    try:
        if is_url(args.backend):
            raise ValueError(f"backend {args.backend!r} is a URL; the server's backend runs in its own process")
        check_name(args.backend)
        backend_options = plugins.parse_options(args.backend_option)
        if backend_options:  # imports the backend's class: only when there is something to check
            plugins.check_options(system_class(args.backend), backend_options, f"backend {args.backend!r}")
    except ValueError as exc:
        return _usage_error(str(exc).replace("memory system", "backend", 1))
    except (ImportError, RuntimeError) as exc:  # a missing extra, a plugin module that fails on import
        print(f"memory-arena serve: error: {exc}", file=sys.stderr)
        return 1
    if not 0 <= args.port <= 65535:
        return _usage_error(f"--port must be between 0 and 65535, got {args.port}")
    if not 1 <= args.workers <= MAX_WORKERS:
        return _usage_error(f"--workers must be between 1 and {MAX_WORKERS}, got {args.workers}")
    if args.max_top_k < 1 or args.max_body_bytes < 1:
        return _usage_error("--max-top-k and --max-body-bytes must be positive")
    if not args.db.strip() or args.db.startswith(("postgresql:", "postgres:")) != is_postgres_url(args.db):
        return _usage_error(f"--db must be a file path or a postgresql://... URL, got {args.db!r}")
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env, "")
        if not api_key.strip():
            return _usage_error(f"--api-key-env {args.api_key_env}: that environment variable is empty or unset")
    config = ServerConfig(args.db, args.backend, api_key, args.max_top_k, args.max_body_bytes, backend_options)
    sqlite_created = not is_postgres_url(args.db) and not Path(args.db).exists()
    store = None
    try:
        for module in ("starlette", "uvicorn"):  # before the database file: nothing left behind
            require(module, "server", "memory-arena serve")
        store = open_store(config.db)
        stored = store.count_messages()
        if args.workers == 1:
            app = create_app(config, store, settle_heap=True)
        else:  # each worker opens its own connections; the parent only checked the database
            store.close()
        try:
            sock = listen(args.host, args.port)
        except OSError as exc:
            raise OSError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    except (StoreError, OSError, ImportError, ValueError, RuntimeError) as exc:
        if store is not None:
            store.close()
            if sqlite_created:  # a file this failed start made holds nothing: do not leave it behind
                remove_sqlite_files(config.db)
        print(f"memory-arena serve: error: {exc}", file=sys.stderr)
        return 1
    auth = "API key required" if api_key else "no auth"
    workers = f"{args.workers} worker{'s' if args.workers > 1 else ''}"
    banner = (f"{BANNER} (backend {config.backend}, {describe_db(args.db)}, {stored} messages stored, {workers}, "
              f"{auth}, {_http_stack()})")
    if args.workers == 1:
        serve(app, sock, banner)
    else:
        settings = {"db": args.db, "backend": args.backend, "backend_options": backend_options, "api_key_env": args.api_key_env,
                    "max_top_k": args.max_top_k, "max_body_bytes": args.max_body_bytes}
        serve_workers(settings, args.workers, sock, banner)
    return 0
