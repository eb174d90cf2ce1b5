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
- `first_candidate`: of the entry's `candidates` (e.g. the values the asked fact took), the
  one that occurs first in the user messages before the question, read top to bottom as a
  model that trusts the order of retrieved memories would; "I don't know" when none occurs.
- `http_error`: answer HTTP 500, so the eval output shows how a failed rollout is recorded.
- `flip`: the k-th time its question is asked (from 0), `right` for even k, else `stale`: the
  repeated rollouts of one task disagree, as a sampled model's do (with 3 rollouts: 2 right,
  1 wrong, whatever order they arrive in).
When the instructions ask for a final line `Answer: <value>`, the reply ends with that line.

Tool policy: the scripted agent does what its instructions say first, as the small models
tried in issue #16 did. When tools are offered and the system message tells it to store
(`store_memory`) before it tells it to acknowledge, each streamed part (`[Conversation part
i of N]`) is first stored with store_memory("part_<i>", <part text>), then acknowledged with
"OK"; at the question it calls list_memories before answering in `visible` mode. Instructions
that put the acknowledgement first get "OK" and no tool call.

`--strict` makes the server refuse, as llama.cpp and other strict OpenAI-compatible servers
do, a request with null where a string is required (e.g. `"reasoning_content": null`),
content parts other than text, an unknown role, or a malformed tool call / tool message:
HTTP 500 with llama.cpp's wording ("Failed to parse messages: ...").

`--barrier K` holds the model's reply to a store result until K such requests are waiting
(or 90 s passed), forcing concurrent rollouts to interleave: all stores happen before any
read. `--double-encode` sends store arguments as a JSON string holding the JSON object.

Usage: python scripted_server.py --script S.json --record R.jsonl --port-file P [--strict] [--barrier K]
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
ANSWER_LINE = "Answer: <value>"


def answer_text(text: str, instructions: str) -> str:
    """What the agent says at the question when it means `text`: the final answer line when
    its instructions ask for one."""
    return f"Answer: {text}" if ANSWER_LINE in instructions else text
ROLES = ("system", "developer", "user", "assistant", "tool")


def first_candidate(shown: str, candidates: list[str]) -> str:
    """The candidate that occurs first in `shown` (whole words, any case; the longer one when
    two start at the same place), or "I don't know"."""
    text = shown.casefold()
    found = [(hit.start(), -len(c), c) for c in candidates
             if (hit := re.search(rf"(?<!\w){re.escape(c.casefold())}(?!\w)", text))]
    return min(found)[2] if found else "I don't know"


def told_to_store(instructions: str) -> bool:
    """Whether instructions tell the agent to store (name store_memory) before they tell it to
    acknowledge: the agent follows whichever comes first."""
    store = instructions.find("store_memory")
    ack = instructions.lower().find("acknowledg")
    return store >= 0 and (ack < 0 or store < ack)


def strict_violation(body: dict[str, Any]) -> str | None:
    """Why a strict OpenAI-compatible server (llama.cpp's chat template parser) would refuse
    this request, or None."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages must be a non-empty array"
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            return f"messages[{i}] must be an object"
        role = m.get("role")
        if role not in ROLES:
            return f"messages[{i}]: unsupported role {role!r}"
        for key, value in m.items():
            # Only an assistant message with tool calls may have null content (OpenAI's schema).
            if value is None and not (key == "content" and role == "assistant" and m.get("tool_calls")):
                return f"messages[{i}].{key}: type must be {'array' if key == 'tool_calls' else 'string'}, but is null"
        content = m.get("content")
        if isinstance(content, list):
            for part in content:
                if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
                    return f"messages[{i}]: unsupported content part {json.dumps(part)[:80]}"
        elif content is not None and not isinstance(content, str):
            return f"messages[{i}].content: type must be string or array of text parts"
        if "content" not in m and not m.get("tool_calls"):
            return f"messages[{i}]: missing content"
        for call in m.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if (not isinstance(call.get("id") if isinstance(call, dict) else None, str) or not isinstance(function, dict)
                    or not isinstance(function.get("name"), str) or not isinstance(function.get("arguments"), str)):
                return f"messages[{i}]: malformed tool call {json.dumps(call)[:80]}"
        if role == "tool" and not isinstance(m.get("tool_call_id"), str):
            return f"messages[{i}]: tool message without a string tool_call_id"
    return None


class Script:
    """The reply logic: everything comes from the request, except the count of `flip` questions."""

    def __init__(self, entries: list[dict[str, Any]], double_encode: bool, barrier: threading.Barrier | None) -> None:
        self.entries = entries
        self.double_encode = double_encode
        self.barrier = barrier
        self.calls = 0
        self.asked: dict[str, int] = {}
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
        instructions = " ".join(str(m.get("content")) for m in messages if m.get("role") == "system")
        stores = "store_memory" in tools and told_to_store(instructions)
        last = messages[-1] if messages else {}
        user_texts = [m.get("content") for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)]
        last_user = user_texts[-1] if user_texts else ""
        question = last_user[len("Question: "):] if last_user.startswith("Question: ") else None

        if question is None:  # a streamed part (or anything else): acknowledge, storing first if told to
            match = PART_RE.match(last_user)
            if match and stores and last.get("role") == "user":
                return {"tool_calls": [self._tool_call("store_memory", {"key": f"part_{match.group(1)}", "value": last_user})]}
            return {"content": "OK"}

        def final(text: str) -> dict[str, Any]:
            return {"content": answer_text(text, instructions)}

        everything = " ".join(str(m.get("content")) for m in messages if m.get("content"))
        entry = next((e for e in self.entries if e["question"] == question and e.get("marker", "") in everything),
                     {"mode": "visible", "answer": ""})
        mode, answer, stale = entry.get("mode", "visible"), entry.get("answer", ""), entry.get("stale", "")
        if mode == "flip":
            with self.lock:
                asked = self.asked.get(question, 0)
                self.asked[question] = asked + 1
            mode = "stale" if asked % 2 else "right"
        if mode == "http_error":
            return {"http_error": 500}
        if mode == "right":
            return final(answer)
        if mode == "stale":
            return final(stale)
        if mode == "hedge":
            return final(f"{answer} or {stale}")
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
            return final(result)
        if mode == "first_candidate":
            shown = "\n".join(str(m.get("content")) for m in messages[:-1] if m.get("role") == "user")
            return final(first_candidate(shown, entry.get("candidates", [])))
        # visible: read memory first when parts were stored, then answer only from what is shown
        if stores and "list_memories" in tools and last.get("role") == "user":
            return {"tool_calls": [self._tool_call("list_memories", {})]}
        shown = " ".join(str(m.get("content")) for m in messages[:-1] if m.get("content")) + " " + (
            str(last.get("content")) if last.get("role") == "tool" else "")
        return final(answer if answer and answer.lower() in shown.lower() else "I don't know")


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


def make_handler(script: Script, record: Path, strict: bool):
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
            problem = strict_violation(body) if strict else None
            if problem is not None:  # llama.cpp's status and wording for a template parse failure
                self._send_json(500, {"error": {"code": 500, "message": f"Failed to parse messages: {problem}",
                                                "type": "server_error"}})
                return
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
    parser.add_argument("--strict", action="store_true", help="refuse what strict OpenAI-compatible servers refuse")
    parser.add_argument("--double-encode", action="store_true", help="double-encode store_memory arguments")
    parser.add_argument("--barrier", type=int, default=0, help="hold store results until K arrive")
    args = parser.parse_args()
    entries = json.loads(Path(args.script).read_text(encoding="utf-8"))
    barrier = threading.Barrier(args.barrier, timeout=90) if args.barrier > 1 else None
    script = Script(entries, args.double_encode, barrier)
    server = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(script, Path(args.record), args.strict))
    Path(args.port_file + ".tmp").write_text(str(server.server_address[1]))
    Path(args.port_file + ".tmp").replace(args.port_file)  # atomic: readers never see a partial port
    server.serve_forever()


if __name__ == "__main__":
    main()
