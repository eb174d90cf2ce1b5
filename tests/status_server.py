"""A scripted Add/Search service on 127.0.0.1 for the client's retry and fail-fast tests.

`POST /_script` with `{"add": [R, ...], "search": [R, ...]}` queues the next responses of
each endpoint, where R is `{"status": int, "body": any JSON (optional), "headers": {...}}`;
once a queue is empty the endpoint answers correctly (Add echoes the ids, Search returns one
item). Every request to /add and /search is recorded; `GET /_log` returns and clears the
record as `[{"path", "body"}]`. Posting a script also clears the record.

Usage: python tests/status_server.py   (prints "listening on http://127.0.0.1:PORT")
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.queues: dict[str, list[dict[str, Any]]] = {"add": [], "search": []}
        self.log: list[dict[str, Any]] = []


STATE = State()


def correct_response(endpoint: str, body: Any) -> Any:
    if endpoint == "add":
        return {"success": True, **{k: body.get(k) for k in ("request_id", "user_id", "session_id")}}
    return {"data": [{"id": "1", "content": "scripted memory", "score": 1.0, "created_at": None}]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes; no 40 ms stall

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read the record instead
        pass

    def _reply(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/_log":
            with STATE.lock:
                log, STATE.log = STATE.log, []
            return self._reply(200, log)
        if self.path == "/health":
            return self._reply(200, {"status": "ok"})
        self._reply(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"null")
        if self.path == "/_script":
            with STATE.lock:
                STATE.queues = {"add": list(body.get("add", [])), "search": list(body.get("search", []))}
                STATE.log = []
            return self._reply(200, {"ok": True})
        endpoint = self.path.strip("/")
        if endpoint not in STATE.queues:
            return self._reply(404, {"detail": "Not Found"})
        with STATE.lock:
            STATE.log.append({"path": self.path, "body": body})
            step = STATE.queues[endpoint].pop(0) if STATE.queues[endpoint] else None
        if step is None:
            return self._reply(200, correct_response(endpoint, body))
        payload = step["body"] if "body" in step else {"detail": f"scripted {step['status']}"}
        self._reply(step["status"], payload, step.get("headers"))


def main() -> int:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", file=sys.stderr, flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
