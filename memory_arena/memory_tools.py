"""The agent's memory tools (docs/design.md, the environment): store, retrieve and list notes, per rollout.

Pure standard library. A `MemoryStore` wraps a plain dict that the caller owns (the classic
environment keeps it in the rollout `state`, the v1 toolset in its per-rollout `State`), so
the same logic serves both verifiers versions and nothing is ever shared between rollouts.

Every answer is a string for the model. Bad input (a size limit, a missing key, arguments
that are not an object) is answered with an `error: ...` message, never an exception: a
tool must not end a rollout. Models sometimes double-encode their arguments (a JSON string
holding the JSON object); `parse_arguments` and `MemoryStore.call` tolerate that.
"""

from __future__ import annotations

import difflib
import json
from typing import Any

MAX_KEY_CHARS = 200
"""Longest accepted key."""
MAX_VALUE_CHARS = 4_000
"""Longest accepted value (a few paragraphs)."""
MAX_ENTRIES = 200
"""Most keys one rollout may hold; overwriting an existing key is always allowed."""
MAX_LIST_CHARS = 20_000
"""`list_memories` output budget; beyond it the listing is cut with a note."""
CLOSEST_KEYS = 3
"""How many similar keys a not-found answer suggests."""

TOOL_NAMES = ("store_memory", "retrieve_memory", "list_memories")

# The tool descriptions are the model's only documentation of its memory. They say what each
# tool is for and when to call it, in plain words a small model follows (issue #16: with
# descriptions that only said what a tool does, small models never called them). Both
# adapters read them from here.
TOOL_DOCS: dict[str, str] = {
    "store_memory": (
        "Save one fact so that you still have it after the message that said it is gone. Call it "
        "as soon as the user states a fact. Use a short key that names the fact (e.g. 'user_city') "
        "and the fact as the value (e.g. 'Lisbon'). Saving under a key that already exists replaces "
        "the old value: do that when a fact changes or is corrected. Limits: keys up to "
        f"{MAX_KEY_CHARS} characters, values up to {MAX_VALUE_CHARS}, at most {MAX_ENTRIES} keys. "
        "Returns 'stored' or 'updated', or an error message."
    ),
    "retrieve_memory": (
        "Read back the fact saved under a key (exact key, case-sensitive). Call it before you "
        "answer a question about something you stored. If there is no such key, the answer says "
        "so and names the closest keys."
    ),
    "list_memories": (
        "Show every fact you saved, as 'key: value' lines, oldest key first. Call it before you "
        "answer a question when you are not sure which key holds the fact."
    ),
}
ARG_DOCS: dict[str, dict[str, str]] = {
    "store_memory": {
        "key": "Short name of the fact, e.g. 'user_city' or 'on_call_Tuesday'.",
        "value": "The fact itself, e.g. 'Lisbon'.",
    },
    "retrieve_memory": {"key": "The key the fact was saved under."},
    "list_memories": {},
}


def tool_schemas() -> list[dict[str, Any]]:
    """The three tools as JSON-schema function definitions (name, description, parameters)."""
    return [
        {
            "name": name,
            "description": TOOL_DOCS[name],
            "parameters": {
                "type": "object",
                "properties": {arg: {"type": "string", "description": doc} for arg, doc in ARG_DOCS[name].items()},
                "required": list(ARG_DOCS[name]),
                "additionalProperties": False,
            },
        }
        for name in TOOL_NAMES
    ]


MAX_DECODES = 4
"""Layers of JSON encoding `parse_arguments` undoes (models have been seen sending three)."""


def _json_kind(value: Any) -> str:
    """What a decoded JSON value is, in the model's words."""
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool) or value is None:
        return "true, false or null"
    if isinstance(value, (int, float)):
        return "a number"
    return "a list" if isinstance(value, list) else f"a {type(value).__name__}"


def parse_arguments(raw: Any) -> dict[str, Any] | str:
    """Tool-call arguments as a dict, or an error message. Accepts a dict, a JSON object
    string, or a JSON string that itself holds one (several layers of encoding, up to
    MAX_DECODES). Text that is not JSON, JSON too deeply nested or with a number longer than
    Python will convert, and JSON that is not an object are all answered with an error."""
    value, decoded = raw, 0
    while isinstance(value, str) and decoded < MAX_DECODES:
        if not value.strip():
            return {} if decoded == 0 else "error: tool arguments must be a JSON object, got an empty string"
        try:
            inner = json.loads(value)
        except json.JSONDecodeError as exc:
            if decoded:  # the outer layer was valid JSON: a string that holds no JSON
                break
            return f"error: tool arguments are not valid JSON ({exc.msg}); send a JSON object"
        except RecursionError:
            return "error: tool arguments are nested too deeply; send a flat JSON object"
        except ValueError as exc:  # int-string conversion limit: "Exceeds the limit (4300 digits) ..."
            return f"error: tool arguments hold a number too long to read ({exc}); send the value as a string"
        value, decoded = inner, decoded + 1
    if value is None:
        return {}
    if isinstance(value, dict):
        return value
    return f"error: tool arguments must be a JSON object, got {_json_kind(value)}"


def _text(value: Any) -> str | None:
    """A scalar argument as text (a model may send a number for a value; a string may arrive
    JSON-encoded once more, see `unwrap_value`); None otherwise, including an integer too long
    to write out."""
    value = unwrap_value(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return str(value)
        except ValueError:  # more digits than sys.get_int_max_str_digits()
            return None
    return None


class MemoryStore:
    """Store / retrieve / list over a caller-owned dict: `{"entries": {key: value},
    "calls": int, "errors": int}`. Insertion order of `entries` is the listing order."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        data.setdefault("entries", {})
        data.setdefault("calls", 0)
        data.setdefault("errors", 0)

    @property
    def entries(self) -> dict[str, str]:
        return self.data["entries"]

    def _error(self, message: str) -> str:
        self.data["errors"] += 1
        return f"error: {message}"

    def store(self, key: Any, value: Any) -> str:
        key, value = _text(key), _text(value)
        if key is None or not key.strip():
            return self._error("'key' must be a non-empty string")
        if value is None:
            return self._error("'value' must be a string (or a number of at most 4300 digits)")
        key = key.strip()
        if len(key) > MAX_KEY_CHARS:
            return self._error(f"key is {len(key)} characters; the limit is {MAX_KEY_CHARS}")
        if len(value) > MAX_VALUE_CHARS:
            return self._error(f"value is {len(value)} characters; the limit is {MAX_VALUE_CHARS}")
        if key not in self.entries and len(self.entries) >= MAX_ENTRIES:
            return self._error(f"memory is full ({MAX_ENTRIES} keys); overwrite an existing key instead")
        verb = "updated" if key in self.entries else "stored"
        self.entries[key] = value
        return f"{verb} '{key}'"

    def retrieve(self, key: Any) -> str:
        key = _text(key)
        if key is None or not key.strip():
            return self._error("'key' must be a non-empty string")
        key = key.strip()
        if key in self.entries:
            return self.entries[key]
        if not self.entries:
            return self._error(f"no memory under '{key}'; the memory is empty")
        close = difflib.get_close_matches(key, list(self.entries), n=CLOSEST_KEYS, cutoff=0.0)
        return self._error(f"no memory under '{key}'; closest keys: {', '.join(close)}")

    def list(self) -> str:
        if not self.entries:
            return "the memory is empty"
        lines, used = [], 0
        for key, value in self.entries.items():
            line = f"{key}: {value}"
            if used + len(line) > MAX_LIST_CHARS:
                lines.append(f"... ({len(self.entries) - len(lines)} more keys; retrieve them by key)")
                break
            lines.append(line)
            used += len(line) + 1
        return "\n".join(lines)

    def call(self, name: str, raw_arguments: Any) -> str:
        """Run one tool call by name with raw (possibly double-encoded) arguments."""
        self.data["calls"] += 1
        args = parse_arguments(raw_arguments)
        if isinstance(args, str):
            self.data["errors"] += 1
            return args
        if name not in TOOL_NAMES:
            return self._error(f"unknown tool '{name}'; the tools are {', '.join(TOOL_NAMES)}")
        unknown = sorted(str(a) for a in set(args) - set(ARG_DOCS[name]))
        if unknown:
            return self._error(f"unexpected argument(s) {', '.join(unknown)} for {name}")
        if name == "store_memory":
            return self.store(args.get("key"), args.get("value"))
        if name == "retrieve_memory":
            return self.retrieve(args.get("key"))
        return self.list()


def unwrap_value(value: Any) -> Any:
    """An argument that arrived as a JSON-encoded string (`'"Chennai"'`) decoded once;
    anything else unchanged. `MemoryStore` applies it to every key and value, so the classic
    adapter (raw argument strings) and the v1 toolset (arguments its framework decoded) store
    the same note for the same model output."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        try:
            decoded = json.loads(value)
        except ValueError:  # JSONDecodeError is a ValueError
            return value
        return decoded if isinstance(decoded, str) else value
    return value
