"""Strict validation of Add and Search request bodies (docs/design.md, "The Add/Search contract"),
independent of any web framework.

The rules, one place for the server (and documented for anyone implementing the contract):

- Add: `request_id`, `user_id`, `session_id` are required non-blank strings; `messages` is a
  required non-empty list of objects, each with non-blank string `role` and `content`; a
  message's `timestamp` is optional (absent or null), otherwise an integer in Unix ms: an
  integral float such as `1.7e12` is accepted, while a fractional float, a string, a boolean,
  NaN and infinities are rejected.
- Search: `query` and `user_id` are required non-blank strings; `top_k` is a required true
  integer (a string, a float, a boolean, a list are rejected), negative is rejected, above the
  server's maximum it is clamped; `options` is optional (absent or null) or a list of strings.
- Every string must be valid Unicode text: no lone surrogate and no U+0000 (which PostgreSQL
  cannot store), whatever the database.
- Unknown fields are ignored at every level. Values are never stripped or rewritten: what is
  echoed and stored is exactly what was sent.

Every violation is reported, not only the first, as `{"loc": [...], "msg": ..., "type": ...}`
(the shape FastAPI uses), and never echoes the offending value back, so that a response can
not reflect user data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# SQLite stores integers as signed 64-bit; anything outside cannot be kept exactly.
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class ValidationFailed(ValueError):
    """The body breaks the contract; `errors` is the field-level detail returned with a 422."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors))
        self.errors = errors


@dataclass(frozen=True)
class AddMessage:
    role: str
    content: str
    timestamp: int | None


@dataclass(frozen=True)
class AddRequest:
    request_id: str
    user_id: str
    session_id: str
    messages: tuple[AddMessage, ...]


@dataclass(frozen=True)
class SearchRequest:
    query: str
    user_id: str
    top_k: int
    """Already clamped to the server's maximum."""
    options: tuple[str, ...]


class _Errors:
    """Collects field errors so that one response names every broken field."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def add(self, loc: tuple[Any, ...], msg: str, kind: str) -> None:
        self.items.append({"loc": ["body", *loc], "msg": msg, "type": kind})

    def raise_if_any(self) -> None:
        if self.items:
            raise ValidationFailed(self.items)


def _required_str(obj: dict[str, Any], key: str, loc: tuple[Any, ...], errors: _Errors) -> str:
    if key not in obj or obj[key] is None:
        errors.add((*loc, key), "field required", "missing")
        return ""
    value = obj[key]
    if not isinstance(value, str):
        errors.add((*loc, key), "must be a string", "string_type")
        return ""
    if not value.strip():
        errors.add((*loc, key), "must not be empty or whitespace only", "string_blank")
    elif not _encodable(value):
        errors.add((*loc, key), "must be valid Unicode text (no lone surrogates, no NUL character)", "string_unicode")
    return value


def _encodable(value: str) -> bool:
    # JSON can carry "\ud800", which no UTF-8 store or response can hold, and "\u0000", which
    # PostgreSQL's text cannot hold: refused alike whatever the database, so both keep the same data.
    if "\x00" in value:
        return False
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _timestamp(value: Any, loc: tuple[Any, ...], errors: _Errors) -> int | None:
    if value is None:
        return None
    # bool is a subclass of int in Python; `true` is not a timestamp.
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        errors.add(loc, "must be an integer (Unix milliseconds)", "int_type")
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            errors.add(loc, "must be an integer (Unix milliseconds); fractional, NaN and infinite values are rejected", "int_from_float")
            return None
        value = int(value)
    if not _INT64_MIN <= value <= _INT64_MAX:
        errors.add(loc, "must fit in a signed 64-bit integer", "int_range")
        return None
    return value


def _body_object(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ValidationFailed([{"loc": ["body"], "msg": "the body must be a JSON object", "type": "dict_type"}])
    return body


def validate_add(body: Any) -> AddRequest:
    """The Add body as a typed request, or ValidationFailed naming every broken field."""
    body = _body_object(body)
    errors = _Errors()
    request_id = _required_str(body, "request_id", (), errors)
    user_id = _required_str(body, "user_id", (), errors)
    session_id = _required_str(body, "session_id", (), errors)
    messages: list[AddMessage] = []
    raw = body.get("messages")
    if raw is None:
        errors.add(("messages",), "field required", "missing")
    elif not isinstance(raw, list):
        errors.add(("messages",), "must be a list of message objects", "list_type")
    elif not raw:
        errors.add(("messages",), "must contain at least one message", "too_short")
    else:
        for i, item in enumerate(raw):
            loc = ("messages", i)
            if not isinstance(item, dict):
                errors.add(loc, "must be an object with role and content", "dict_type")
                continue
            role = _required_str(item, "role", loc, errors)
            content = _required_str(item, "content", loc, errors)
            timestamp = _timestamp(item.get("timestamp"), (*loc, "timestamp"), errors)
            messages.append(AddMessage(role, content, timestamp))
    errors.raise_if_any()
    return AddRequest(request_id, user_id, session_id, tuple(messages))


def validate_search(body: Any, max_top_k: int) -> SearchRequest:
    """The Search body as a typed request (top_k clamped to `max_top_k`), or ValidationFailed."""
    body = _body_object(body)
    errors = _Errors()
    query = _required_str(body, "query", (), errors)
    user_id = _required_str(body, "user_id", (), errors)
    top_k = 0
    raw_k = body.get("top_k")
    if raw_k is None:
        errors.add(("top_k",), "field required", "missing")
    elif isinstance(raw_k, bool) or not isinstance(raw_k, int):
        errors.add(("top_k",), "must be an integer (not a string, float or boolean)", "int_type")
    elif raw_k < 0:
        errors.add(("top_k",), "must be >= 0", "greater_than_equal")
    else:
        top_k = min(raw_k, max_top_k)
    options: tuple[str, ...] = ()
    raw_options = body.get("options")
    if raw_options is not None:
        if not isinstance(raw_options, list) or not all(isinstance(o, str) for o in raw_options):
            errors.add(("options",), "must be a list of strings", "list_type")
        else:
            options = tuple(raw_options)
    errors.raise_if_any()
    return SearchRequest(query, user_id, top_k, options)
