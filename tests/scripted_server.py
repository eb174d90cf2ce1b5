"""A scripted OpenAI-compatible chat server on 127.0.0.1 for end-to-end tests.

It stands in for a model so that the real `vf-eval` CLI (both verifiers versions) can be run
against the environment. It serves `GET /v1/models` and `POST /v1/chat/completions`, plain
JSON or SSE streaming (`"stream": true`), with tool calls, and appends every request body
to a JSONL record file so tests can check what the model was really sent.

The reply is decided from the request alone, by a script that knows the expected answers:
a JSON list of {"question", "marker", "answer", "stale", "mode"}; an entry applies when the
request asks its question and shows its marker (a text of its conversation that stays in
view, since several tasks may share a question). It tests the pipeline, not a model.
Modes at the question:
- `right` / `stale` / `hedge`: the answer, a superseded value, "<answer> or <stale>".
- `visible`: the answer if its text appears in what this request shows (any message other
  than the question), else "I don't know". This makes eviction observable in the score.
- `store_retrieve`: store_memory("answer", <answer>), then retrieve_memory("answer"), then
  reply with what the tool returned (the tool-using transcript of full delivery).
- `http_error`: answer HTTP 500, so the eval output shows how a failed rollout is recorded.
Streamed parts (`[Conversation part i of N]`) are acknowledged with "OK"; with `--store-parts`
and tools offered, each part is first stored with store_memory("part_<i>", <part text>),
and at the question list_memories is called before answering in `visible` mode.

`--barrier K` holds the model's reply to a store result until K such requests are waiting
(or 90 s passed), forcing concurrent rollouts to interleave: all stores happen before any
read. `--double-encode` sends store arguments as a JSON string holding the JSON object.

Usage: python scripted_server.py --script S.json --record R.jsonl --port-file P [--barrier K]
"""

from __future__ import annotations

import argparse
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

PART_RE = re.compile(r"^\[Conversation part (\d+) of (\d+)\]")
MODEL_ID = "scripted"


class Script:
    """The reply logic; stateless between requests (everything comes from the request)."""

    def __init__(self, entries: list[dict[str, Any]], store_parts: bool, double_encode: bool,
                 barrier: threading.Barrier | None) -> None:
        self.entries = entries
        self.store_parts = store_parts
        self.double_encode = double_encode
        self.barrier = barrier
        self.calls = 0
        self.lock = threading.Lock()

    def _call_id(self) -> str:
        with self.lock:
            self.calls += 1
            return f"call_{self.calls}"

    def _tool_call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        text = json.dumps(args)
        if self.double_encode and name == "store_memory":
            text = json.dumps(text)
        return {"id": self._call_id(), "type": "function", "function": {"name": name, "arguments": text}}

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        """The assistant message (content and/or tool_calls) for one request."""
        messages = body.get("messages") or []
        tools = {t.get("function", {}).get("name") for t in body.get("tools") or []}
        last = messages[-1] if messages else {}
        user_texts = [m.get("content") for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
        last_user = user_texts[-1] if user_texts else ""
        question = last_user[len("Question: "):] if last_user.startswith("Question: ") else None

        if question is None:  # a streamed part (or anything else): acknowledge, storing first if asked
            match = PART_RE.match(last_user)
            if match and self.store_parts and "store_memory" in tools and last.get("role") == "user":
                return {"tool_calls": [self._tool_call("store_memory", {"key": f"part_{match.group(1)}", "value": last_user})]}
            return {"content": "OK"}

        everything = " ".join(str(m.get("content")) for m in messages if m.get("content"))
        entry = next((e for e in self.entries if e["question"] == question and e.get("marker", "") in everything),
                     {"mode": "visible", "answer": ""})
        mode, answer, stale = entry.get("mode", "visible"), entry.get("answer", ""), entry.get("stale", "")
        if mode == "http_error":
            return {"http_error": 500}
        if mode == "right":
            return {"content": answer}
        if mode == "stale":
            return {"content": stale}
        if mode == "hedge":
            return {"content": f"{answer} or {stale}"}
        if mode == "store_retrieve":
            if last.get("role") == "user":
                return {"tool_calls": [self._tool_call("store_memory", {"key": "answer", "value": answer})]}
            result = str(last.get("content"))
            if result.startswith(("stored", "updated")):
                if self.barrier is not None:
                    try:
                        self.barrier.wait()
                    except threading.BrokenBarrierError:
                        return {"content": "barrier broken: rollouts did not interleave"}
                return {"tool_calls": [self._tool_call("retrieve_memory", {"key": "answer"})]}
            return {"content": result}
        # visible: read memory first when parts were stored, then answer only from what is shown
        if self.store_parts and "list_memories" in tools and last.get("role") == "user":
            return {"tool_calls": [self._tool_call("list_memories", {})]}
        shown = " ".join(str(m.get("content")) for m in messages[:-1] if m.get("content")) + " " + (
            str(last.get("content")) if last.get("role") == "tool" else "")
        return {"content": answer if answer and answer.lower() in shown.lower() else "I don't know"}


def _completion(message: dict[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": "chatcmpl-scripted", "object": "chat.completion", "created": 0, "model": MODEL_ID,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": message.get("content"),
                                              **({"tool_calls": message["tool_calls"]} if message.get("tool_calls") else {})},
                     "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
    }


def _stream_chunks(message: dict[str, Any], include_usage: bool) -> list[dict[str, Any]]:
    base = {"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0, "model": MODEL_ID}
    chunks = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}]
    if message.get("content"):
        chunks.append({**base, "choices": [{"index": 0, "delta": {"content": message["content"]}, "finish_reason": None}]})
    for i, call in enumerate(message.get("tool_calls") or []):
        chunks.append({**base, "choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, **call}]}, "finish_reason": None}]})
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    if include_usage:
        chunks.append({**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}})
    return chunks


def make_handler(script: Script, record: Path):
    record_lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _record(self, body: dict[str, Any] | None) -> None:
            with record_lock, open(record, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"path": self.path, "body": body}) + "\n")

        def do_GET(self) -> None:
            self._record(None)
            if self.path.rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [
                    {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "memory-arena-tests"}]})
            else:
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}"}})
                return
            self._record(body)
            message = script.reply(body)
            if "http_error" in message:
                self._send_json(message["http_error"], {"error": {"message": "scripted server error", "type": "server_error"}})
                return
            if not body.get("stream"):
                self._send_json(200, _completion(message))
                return
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            payload = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in _stream_chunks(message, include_usage))
            payload += b"data: [DONE]\n\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True, help="JSON list of {question, marker, answer, stale, mode}")
    parser.add_argument("--record", required=True, help="JSONL file that receives every request")
    parser.add_argument("--port-file", required=True, help="file the bound port is written to")
    parser.add_argument("--store-parts", action="store_true", help="store every streamed part when tools are offered")
    parser.add_argument("--double-encode", action="store_true", help="double-encode store_memory arguments")
    parser.add_argument("--barrier", type=int, default=0, help="hold store results until K arrive")
    args = parser.parse_args()
    entries = json.loads(Path(args.script).read_text(encoding="utf-8"))
    barrier = threading.Barrier(args.barrier, timeout=90) if args.barrier > 1 else None
    script = Script(entries, args.store_parts, args.double_encode, barrier)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script, Path(args.record)))
    Path(args.port_file + ".tmp").write_text(str(server.server_address[1]))
    Path(args.port_file + ".tmp").replace(args.port_file)  # atomic: readers never see a partial port
    server.serve_forever()


if __name__ == "__main__":
    main()
