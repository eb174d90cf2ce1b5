"""A synchronous client of the Add/Search contract (docs/design.md, "The Add/Search contract"),
with chunking and retries.

- A session is sent in chunks of at most 20 messages and at most 2,000 words, cut on message
  boundaries (a single longer message travels alone). Each chunk's `request_id` is derived
  from (user, session, chunk index, the chunk's messages), so a retried or repeated ingestion
  is idempotent, and different messages are never taken for a write already done.
- Add is retried on 408/409/425/429/500/502/503/504 and on transport errors; Search on the
  same minus 409 (a conflict is about a write). Waits grow exponentially, are bounded, and
  honour `Retry-After` (seconds or an HTTP date). There is no jitter: a run is repeatable.
- 400/401/403/404/422 and every other non-retryable status fail at once with a
  `ContractError` naming the status and the server's detail; so does a malformed 200 (an Add
  without `success: true` or with an id changed, a Search without a `data` list, an item
  without `id` or `content`, or more than `top_k` items).

`check_add_response` and `check_search_response` are the one definition of a well-formed
answer; the conformance checker uses them too.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from memory_arena.systems.extras import require

ADD_RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
SEARCH_RETRY_STATUSES = ADD_RETRY_STATUSES - {409}
CHUNK_MESSAGES = 20
CHUNK_WORDS = 2000


class ContractError(RuntimeError):
    """The service answered outside the contract, refused the request, or stayed unavailable.

    `status` is the last HTTP status (None for a transport failure); `response` the last
    response body as text, for diagnosis."""

    def __init__(self, message: str, status: int | None = None, response: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.response = response


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded exponential backoff: attempt n waits base * 2**(n-1), at most `max_delay`;
    a `Retry-After` is honoured up to `max_retry_after` seconds."""

    max_attempts: int = 6
    base_delay: float = 0.25
    max_delay: float = 8.0
    max_retry_after: float = 60.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"RetryPolicy.max_attempts must be at least 1, got {self.max_attempts}")
        if min(self.base_delay, self.max_delay, self.max_retry_after) < 0:
            raise ValueError("RetryPolicy delays must not be negative")

    def delay(self, attempt: int, retry_after: float | None) -> float:
        backoff = min(self.max_delay, self.base_delay * 2 ** (attempt - 1))
        if retry_after is None:
            return backoff
        return min(self.max_retry_after, max(backoff, retry_after))


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header (delta-seconds or HTTP date), or None."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def chunk_messages(messages: Sequence[dict[str, Any]], max_messages: int = CHUNK_MESSAGES,
                   max_words: int = CHUNK_WORDS) -> list[list[dict[str, Any]]]:
    """Consecutive chunks of at most `max_messages` messages and `max_words` words."""
    chunks: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    words = 0
    for message in messages:
        n = len(str(message.get("content", "")).split())
        if current and (len(current) >= max_messages or words + n > max_words):
            chunks.append(current)
            current, words = [], 0
        current.append(message)
        words += n
    if current:
        chunks.append(current)
    return chunks


def wire_messages(messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages as an Add sends them: role, content and timestamp, nothing else."""
    return [{k: m[k] for k in ("role", "content", "timestamp") if k in m} for m in messages]


def request_id_for(user_id: str, session_id: str, chunk_index: int, messages: Sequence[dict[str, Any]]) -> str:
    """A stable id per chunk, so that a retry or a re-run is recognised as the same write.

    The messages are part of it: a service keeps the first write of a request id, so an id
    that did not change with the content would make it keep an earlier run's text."""
    key = json.dumps([user_id, session_id, chunk_index, wire_messages(messages)], ensure_ascii=False,
                     separators=(",", ":"))
    return "ma-" + hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def check_add_response(sent: dict[str, Any], payload: Any) -> str | None:
    """What is wrong with an Add's 200 body, or None when it is well-formed."""
    if not isinstance(payload, dict):
        return f"the body is a JSON {type(payload).__name__}, not an object"
    if payload.get("success") is not True:
        return "the body lacks `success: true`"
    for key in ("request_id", "user_id", "session_id"):
        if payload.get(key) != sent[key]:
            return f"`{key}` is not echoed unchanged: sent {sent[key]!r}, got {payload.get(key)!r}"
    return None


def check_search_response(payload: Any, top_k: int) -> str | None:
    """What is wrong with a Search's 200 body, or None when it is well-formed."""
    if not isinstance(payload, dict):
        return f"the body is a JSON {type(payload).__name__}, not an object with a `data` list"
    data = payload.get("data")
    if not isinstance(data, list):
        return "the body has no `data` list"
    if len(data) > top_k:
        return f"{len(data)} items returned for top_k={top_k}"
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            return f"data[{i}] is not an object"
        if isinstance(item.get("id"), bool) or not isinstance(item.get("id"), (str, int)):
            return f"data[{i}] has no `id` (string or integer)"
        if not isinstance(item.get("content"), str):
            return f"data[{i}] has no `content` string"
        score = item.get("score")
        if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))):
            return f"data[{i}].score is not a number"
    return None


def _created_at_ms(value: Any) -> int | None:
    """`created_at` as Unix ms: integers pass, ISO-8601 strings are converted, anything else is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            when = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        return int(when.timestamp() * 1000)
    return None


class ContractClient:
    """Add and Search against any service that speaks the contract. Reuses one connection pool."""

    def __init__(self, add_url: str, search_url: str, *, api_key: str | None = None, timeout: float = 30.0,
                 retry: RetryPolicy = RetryPolicy(), sleep: Callable[[float], None] = time.sleep,
                 http: Any = None) -> None:
        httpx = require("httpx", "server", "the Add/Search client")
        self.add_url, self.search_url = add_url, search_url
        self.retry = retry
        self._sleep = sleep
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._http = http if http is not None else httpx.Client(timeout=timeout)

    @classmethod
    def from_base_url(cls, base_url: str, **kw: Any) -> "ContractClient":
        """A client of `<base_url>/add` and `<base_url>/search`."""
        base = base_url.rstrip("/")
        return cls(f"{base}/add", f"{base}/search", **kw)

    def add(self, request_id: str, user_id: str, session_id: str, messages: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """One Add request (no chunking); returns the validated 200 body."""
        body = {"request_id": request_id, "user_id": user_id, "session_id": session_id,
                "messages": wire_messages(messages)}
        payload = self._post("Add", self.add_url, body, ADD_RETRY_STATUSES)
        problem = check_add_response(body, payload)
        if problem:
            raise ContractError(f"Add {request_id}: malformed 200 response: {problem}", 200, json.dumps(payload))
        return payload

    def add_session(self, user_id: str, session_id: str, messages: Sequence[dict[str, Any]]) -> list[str]:
        """Send a whole session in chunks; returns the request ids used, in order."""
        ids = []
        for index, chunk in enumerate(chunk_messages(messages)):
            request_id = request_id_for(user_id, session_id, index, chunk)
            self.add(request_id, user_id, session_id, chunk)
            ids.append(request_id)
        return ids

    def search(self, user_id: str, query: str, top_k: int, options: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Up to `top_k` memories, best first, as `{id (str), content, score, created_at (ms)}`."""
        body: dict[str, Any] = {"query": query, "user_id": user_id, "top_k": top_k}
        if options is not None:
            body["options"] = list(options)
        payload = self._post("Search", self.search_url, body, SEARCH_RETRY_STATUSES)
        problem = check_search_response(payload, top_k)
        if problem:
            raise ContractError(f"Search: malformed 200 response: {problem}", 200, json.dumps(payload)[:2000])
        return [{"id": str(item["id"]), "content": item["content"],
                 "score": None if item.get("score") is None else float(item["score"]),
                 "created_at": _created_at_ms(item.get("created_at"))} for item in payload["data"]]

    def _post(self, kind: str, url: str, body: dict[str, Any], retry_on: frozenset[int]) -> Any:
        import httpx

        try:
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: send it escaped and let the service refuse it
            content = json.dumps(body).encode("ascii")
        last = ""
        for attempt in range(1, self.retry.max_attempts + 1):
            retry_after = None
            try:
                response = self._http.post(url, content=content, headers=self._headers)
            except httpx.RequestError as exc:  # transport failures, and a body that cannot be decoded
                last, status, text = f"{type(exc).__name__}: {exc}", None, None
            else:
                status, text = response.status_code, response.text
                if 200 <= status < 300:
                    try:
                        return response.json()
                    except ValueError:
                        raise ContractError(f"{kind} {url}: malformed {status} response: not JSON", status,
                                            text[:2000]) from None
                if status not in retry_on:
                    raise ContractError(f"{kind} {url} failed with HTTP {status}: {_detail(text)}", status, text[:2000])
                last = f"HTTP {status}"
                retry_after = parse_retry_after(response.headers.get("retry-after"))
            if attempt == self.retry.max_attempts:
                raise ContractError(f"{kind} {url}: gave up after {attempt} attempts, last: {last}", status,
                                    None if text is None else text[:2000])
            self._sleep(self.retry.delay(attempt, retry_after))
        raise AssertionError("unreachable: the loop returns or raises")

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "ContractClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _detail(text: str) -> str:
    """The server's `detail`, compactly, for an error message."""
    try:
        detail = json.loads(text).get("detail", text)
    except (ValueError, AttributeError):
        detail = text
    out = detail if isinstance(detail, str) else json.dumps(detail, ensure_ascii=False)
    return out[:500] or "(empty body)"
