"""Deliberately broken Add/Search services, to prove that `check-endpoint` catches each fault.

Each is the real reference server with exactly one fault spliced in by an ASGI wrapper that
rewrites a request body before the server sees it or a response body before the client does:

- `wrong-echo`: Add answers with the `request_id` lower-cased (as a service that normalises ids).
- `top-level-array`: Search answers `[...]` instead of `{"data": [...]}`.
- `leak-users`: every user's data goes to, and is searched in, one shared store.
- `not-idempotent`: a repeated `(request_id, user_id)` is written again.
- `lenient-top-k`: `top_k` given as a string or a float is coerced instead of refused.
- `wrong-key-403`: a wrong key is answered 403 instead of 401 (the server's answer before the
  AML contract's 401 was adopted); needs `--api-key-env`.

Usage: python tests/broken_servers.py --fault NAME --db PATH [--port 0] [--api-key-env VAR]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

from memory_arena.contract.server import BANNER, ServerConfig, create_app, listen, serve

Rewrite = Callable[[Any], Any]


class RewriteJson:
    """ASGI wrapper: on `path`, pass the JSON request body through `on_request` and the JSON
    response body through `on_response`; `on_response` also gets the original request."""

    def __init__(self, app: Any, path: str, on_request: Rewrite | None = None,
                 on_response: Callable[[Any, Any], Any] | None = None) -> None:
        self.app, self.path = app, path
        self.on_request, self.on_response = on_request, on_response

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] != self.path:
            return await self.app(scope, receive, send)
        raw = b""
        while True:
            message = await receive()
            raw += message.get("body", b"")
            if not message.get("more_body"):
                break
        original = _loads(raw)
        if self.on_request and isinstance(original, dict):
            raw = json.dumps(self.on_request(json.loads(raw))).encode()

        async def replay() -> dict:
            return {"type": "http.request", "body": raw, "more_body": False}

        start: dict = {}
        chunks: list[bytes] = []

        async def capture(message: dict) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            payload = _loads(body)
            if self.on_response and start["status"] == 200 and payload is not None:
                body = json.dumps(self.on_response(payload, original)).encode()
            headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": headers})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, replay, capture)


class WrongKeyForbidden:
    """ASGI wrapper: a 401 to a request that did send credentials becomes a 403."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        names = {name.lower() for name, _ in scope.get("headers", [])}
        if scope["type"] != "http" or not names & {b"authorization", b"x-api-key"}:
            return await self.app(scope, receive, send)

        async def forbid(message: dict) -> None:
            if message["type"] == "http.response.start" and message["status"] == 401:
                message = {**message, "status": 403}
            await send(message)

        await self.app(scope, receive, forbid)


def _loads(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except ValueError:
        return None


def _restore_user(payload: Any, original: Any) -> Any:
    """Echo the caller's own user id, so that only the fault under test shows."""
    if isinstance(payload, dict) and isinstance(original, dict) and "user_id" in original:
        payload["user_id"] = original["user_id"]
    return payload


def _restore_request(payload: Any, original: Any) -> Any:
    if isinstance(payload, dict) and isinstance(original, dict) and "request_id" in original:
        payload["request_id"] = original["request_id"]
    return payload


def _coerce_top_k(body: dict) -> dict:
    if isinstance(body.get("top_k"), (str, float)):
        body["top_k"] = int(float(body["top_k"]))
    return body


def wrap(app: Any, fault: str) -> Any:
    counter = itertools.count()
    if fault == "wrong-echo":
        return RewriteJson(app, "/add", on_response=lambda p, o: {**p, "request_id": str(p["request_id"]).lower()})
    if fault == "top-level-array":
        return RewriteJson(app, "/search", on_response=lambda p, o: p["data"])
    if fault == "leak-users":
        shared = lambda body: {**body, "user_id": "everyone"}  # noqa: E731
        return RewriteJson(RewriteJson(app, "/search", on_request=shared), "/add",
                           on_request=shared, on_response=_restore_user)
    if fault == "not-idempotent":
        fresh = lambda body: {**body, "request_id": f"{body.get('request_id')}#{next(counter)}"}  # noqa: E731
        return RewriteJson(app, "/add", on_request=fresh, on_response=_restore_request)
    if fault == "lenient-top-k":
        return RewriteJson(app, "/search", on_request=_coerce_top_k)
    if fault == "wrong-key-403":
        return WrongKeyForbidden(app)
    raise ValueError(f"unknown fault {fault!r}")


FAULTS = ("wrong-echo", "top-level-array", "leak-users", "not-idempotent", "lenient-top-k", "wrong-key-403")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", required=True, choices=FAULTS)
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key-env", help="require the key held in this environment variable")
    args = parser.parse_args()
    api_key = os.environ[args.api_key_env] if args.api_key_env else None
    app = create_app(ServerConfig(Path(args.db), backend="grep", api_key=api_key))
    serve(wrap(app, args.fault), listen("127.0.0.1", args.port), f"{BANNER} (fault {args.fault})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
