"""`memory-arena check-endpoint`: does a service honour the Add/Search contract (docs/design.md,
"The Add/Search contract")?

It sends the whole validation matrix (`VALIDATION_CASES`: one malformed or edge-case body
per row, each expected to be refused with a 422 that names the field, or accepted), then
the behavioural checks: the echo of ids, the round trip, `top_k`, best-first order, an
unknown user, isolation between users, idempotency, and, when a key is given, auth. Every
row of the printed table is PASS or FAIL; each failure is followed by the offending request
and response. The exit code is 1 if anything failed.

Everything a run writes lives under user ids drawn from a seeded generator (`--seed`, or a
fresh seed that is printed), so the check can run against a live service again and again
without meeting its own earlier data, and any run can be reproduced.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
from dataclasses import dataclass, field
from typing import Any

from memory_arena.contract.client import check_add_response, check_search_response
from memory_arena.systems import url_problem
from memory_arena.systems.extras import MissingExtra, require


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()
"""A case value meaning: delete this field."""

_TS = 1_700_000_000_000


@dataclass(frozen=True)
class Case:
    """One row of the validation matrix: a valid body with one place changed."""

    name: str
    endpoint: str
    """`add` or `search`."""
    path: tuple[Any, ...]
    """Where the valid body is changed; () replaces the whole body."""
    value: Any
    """The new value there (MISSING deletes the field)."""
    expect: tuple[int, ...]
    """Acceptable statuses: (422,) for a refusal, (200,) for an acceptance."""
    raw: bytes | None = None
    """Send these bytes instead of a JSON body (for a body that is not JSON at all)."""

    @property
    def field(self) -> str | None:
        """The field a 422's detail must name (None for a whole-body case)."""
        names = [p for p in self.path if isinstance(p, str)]
        return names[-1] if names else None


def _cases() -> list[Case]:
    bad, ok = (422,), (200,)
    rows: list[Case] = []

    def refuse(endpoint: str, path: tuple[Any, ...], values: dict[str, Any]) -> None:
        where = ".".join(map(str, path))
        rows.extend(Case(f"{endpoint} {where} {label}", endpoint, path, v, bad) for label, v in values.items())

    blank = {"missing": MISSING, "null": None, "empty": "", "whitespace": " \t "}
    for key in ("request_id", "user_id", "session_id"):
        refuse("add", (key,), {**blank, "integer": 123, "list": ["x"]})
    refuse("add", ("messages",), {"missing": MISSING, "null": None, "empty list": [], "string": "hello",
                                  "object": {"role": "user", "content": "hi"}})
    refuse("add", ("messages", 0), {"string item": "hi", "null item": None})
    for key in ("role", "content"):
        refuse("add", ("messages", 0, key), {**blank, "integer": 42, "list": ["x"]})
    refuse("add", ("messages", 0, "timestamp"), {
        "string": str(_TS), "boolean": True, "fractional": _TS + 0.5, "NaN": float("nan"),
        "Infinity": float("inf"), "-Infinity": float("-inf"), "list": [_TS]})
    rows += [
        Case("add messages.0.timestamp integer", "add", ("messages", 0, "timestamp"), _TS, ok),
        Case("add messages.0.timestamp integral float", "add", ("messages", 0, "timestamp"), float(_TS), ok),
        Case("add messages.0.timestamp absent", "add", ("messages", 0, "timestamp"), MISSING, ok),
        Case("add unknown top-level field", "add", ("extra_field",), {"any": ["thing"]}, ok),
        Case("add unknown message field", "add", ("messages", 0, "metadata"), {"mood": "calm"}, ok),
        Case("add body is a list", "add", (), [], bad),
        Case("add body is not JSON", "add", (), MISSING, (400, 422), raw=b"{not json"),
    ]
    refuse("search", ("query",), {**blank, "integer": 5})
    refuse("search", ("user_id",), {**blank, "integer": 5})
    refuse("search", ("top_k",), {"missing": MISSING, "null": None, "string": "5", "float": 5.0,
                                  "fractional": 2.5, "boolean": True, "list": [5], "negative": -1})
    refuse("search", ("options",), {"string": "fast", "list of integers": [1], "object": {"a": 1}})
    rows += [
        Case("search top_k zero", "search", ("top_k",), 0, ok),
        Case("search top_k huge (clamped)", "search", ("top_k",), 10**9, ok),
        Case("search options list of strings", "search", ("options",), ["fast"], ok),
        Case("search unknown field", "search", ("extra_field",), 1, ok),
        Case("search body is a list", "search", (), [], bad),
        Case("search body is not JSON", "search", (), MISSING, (400, 422), raw=b"{not json"),
    ]
    return rows


VALIDATION_CASES: tuple[Case, ...] = tuple(_cases())


def apply_case(body: dict[str, Any], case: Case) -> Any:
    """A deep copy of `body` with the case's change applied."""
    if not case.path:
        return case.value
    out = json.loads(json.dumps(body))
    target = out
    for step in case.path[:-1]:
        target = target[step]
    if case.value is MISSING:
        target.pop(case.path[-1], None)
    else:
        target[case.path[-1]] = case.value
    return out


@dataclass(frozen=True)
class RunIds:
    """The ids of one run, drawn from its seed; every write of the run stays under them."""

    tag: str

    @classmethod
    def from_seed(cls, seed: int) -> "RunIds":
        return cls(f"{random.Random(seed).getrandbits(48):012x}")

    def user(self, name: str) -> str:
        return f"check-{self.tag}-{name}"

    def word(self, name: str) -> str:
        """A token no other text contains, for lexical and semantic backends alike."""
        return f"zq{name}{self.tag}"


@dataclass
class Exchange:
    """One request and what came back (status None: no response at all)."""

    method: str
    url: str
    request: str
    status: int | None = None
    text: str = ""
    payload: Any = None

    def describe(self) -> str:
        got = f"{self.status} {self.text[:800]}" if self.status is not None else self.text
        return f"  request:  {self.method} {self.url} {self.request[:800]}\n  response: {got}"


@dataclass
class Result:
    name: str
    passed: bool
    note: str = ""
    exchanges: list[Exchange] = field(default_factory=list)


class Unreachable(Exception):
    """A URL refused the connection (or never accepted it): no check can say anything more."""


class Prober:
    """Sends raw requests and keeps each exchange for the failure report."""

    def __init__(self, add_url: str, search_url: str, health_url: str | None, api_key: str | None,
                 timeout: float) -> None:
        httpx = require("httpx", "server", "check-endpoint")
        self.add_url, self.search_url, self.health_url = add_url, search_url, health_url
        self.api_key = api_key
        self.answered = 0
        self._http = httpx.Client(timeout=timeout)

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def send(self, method: str, url: str, body: Any = MISSING, raw: bytes | None = None,
             headers: dict[str, str] | None = None) -> Exchange:
        import httpx

        if raw is None and body is not MISSING:
            raw = json.dumps(body, ensure_ascii=False).encode("utf-8")
        ex = Exchange(method, url, "" if raw is None else raw.decode("utf-8", "replace"))
        hdrs = {"Content-Type": "application/json", **(self.auth_headers() if headers is None else headers)}
        try:
            response = self._http.request(method, url, content=raw, headers=hdrs)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            # Nothing listens there: one line says it better than a FAIL row for every check.
            answered = f" (after {self.answered} answered requests)" if self.answered else ""
            raise Unreachable(f"cannot connect to {url}: {exc or type(exc).__name__}{answered}") from None
        except httpx.HTTPError as exc:
            ex.text = f"no response: {type(exc).__name__}: {exc}"
            return ex
        self.answered += 1
        ex.status, ex.text = response.status_code, response.text
        try:
            ex.payload = response.json()
        except ValueError:
            ex.payload = MISSING
        return ex

    def add(self, body: Any, **kw: Any) -> Exchange:
        return self.send("POST", self.add_url, body, **kw)

    def search(self, body: Any, **kw: Any) -> Exchange:
        return self.send("POST", self.search_url, body, **kw)

    def close(self) -> None:
        self._http.close()


def add_body(ids: RunIds, user: str, request: str, contents: list[str]) -> dict[str, Any]:
    # Non-ASCII and upper case in the ids: an echo must return them byte for byte.
    return {"request_id": f"Req-{ids.tag}-{request}-Ü", "user_id": ids.user(user),
            "session_id": f"Sess-{ids.tag}-é✓",
            "messages": [{"role": "user" if i % 2 == 0 else "assistant", "content": c, "timestamp": _TS + i}
                         for i, c in enumerate(contents)]}


def search_body(ids: RunIds, user: str, query: str, top_k: int = 5) -> dict[str, Any]:
    return {"query": query, "user_id": ids.user(user), "top_k": top_k}


def _status_is(ex: Exchange, expected: tuple[int, ...]) -> str | None:
    if ex.status is None:
        return ex.text
    if ex.status not in expected:
        return f"HTTP {ex.status}, expected {' or '.join(map(str, expected))}"
    return None


def _ok_add(ex: Exchange, sent: dict[str, Any]) -> str | None:
    return _status_is(ex, (200,)) or check_add_response(sent, ex.payload)


def _ok_search(ex: Exchange, top_k: int) -> str | None:
    return _status_is(ex, (200,)) or check_search_response(ex.payload, top_k)


def _items(ex: Exchange) -> list[dict[str, Any]]:
    """The result objects of a Search exchange, whatever shape the body had."""
    data = ex.payload.get("data") if isinstance(ex.payload, dict) else None
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def _contents(ex: Exchange) -> list[str]:
    return [item["content"] for item in _items(ex) if isinstance(item.get("content"), str)]


def _error_detail(ex: Exchange, case: Case) -> str | None:
    """A refusal must be `{"detail": ...}`, and a 422 must name the field it is about."""
    if not isinstance(ex.payload, dict) or "detail" not in ex.payload:
        return "the error body is not {\"detail\": ...}"
    if ex.status == 422 and case.field and case.field not in json.dumps(ex.payload["detail"]):
        return f"the 422 detail does not name the field `{case.field}`"
    return None


def check_validation(p: Prober, ids: RunIds, case: Case, index: int) -> Result:
    """One matrix row. Accepted Adds go to a user of their own, so they disturb no other check."""
    ex: Exchange
    if case.endpoint == "add":
        valid = add_body(ids, "validation", f"v{index}", [f"validation row {index} {ids.word('v')}"])
        body = apply_case(valid, case)
        ex = p.add(body, raw=case.raw)
        problem = _status_is(ex, case.expect)
        if not problem:
            problem = _ok_add(ex, body) if ex.status == 200 else _error_detail(ex, case)
    else:
        valid = search_body(ids, "validation", ids.word("v"))
        body = apply_case(valid, case)
        ex = p.search(body, raw=case.raw)
        problem = _status_is(ex, case.expect)
        if not problem:
            problem = _ok_search(ex, body["top_k"]) if ex.status == 200 else _error_detail(ex, case)
    return Result(f"validation: {case.name}", problem is None, problem or "", [ex])


def behaviour_checks(p: Prober, ids: RunIds) -> list[Result]:
    """Echo, round trip, top_k, order, unknown user, isolation, idempotency, in that order."""
    results: list[Result] = []

    def record(name: str, problem: str | None, *exchanges: Exchange) -> None:
        results.append(Result(name, problem is None, problem or "", list(exchanges)))

    fact_a, fact_b = ids.word("alpha"), ids.word("bravo")
    shared = ids.word("shared")
    sent_a = add_body(ids, "a", "1", [f"My locker code is {fact_a}.", "Noted, I will remember it.",
                                      *(f"Reminder {i} about {shared} for later." for i in range(5))])
    ex = p.add(sent_a)
    record("add.accepted", _status_is(ex, (200,)), ex)
    record("add.echo", check_add_response(sent_a, ex.payload) if ex.status == 200 else "the Add was not accepted", ex)

    sent_b = add_body(ids, "b", "2", [f"The spare key is under {fact_b}.", "Got it."])
    ex_b = p.add(sent_b)
    record("add.second-user", _ok_add(ex_b, sent_b), ex_b)

    ex = p.search(search_body(ids, "a", f"What is my locker code {fact_a}?"))
    record("search.shape", _ok_search(ex, 5), ex)
    found = any(fact_a in c for c in _contents(ex))
    record("search.round-trip", None if found else f"no result contains {fact_a!r}, which was added", ex)
    numeric = [s for s in (item.get("score") for item in _items(ex))
               if isinstance(s, (int, float)) and not isinstance(s, bool)]
    ordered = all(x >= y for x, y in zip(numeric, numeric[1:]))
    record("search.best-first", _ok_search(ex, 5) or (None if ordered else f"scores are not in decreasing order: {numeric}"), ex)

    ex = p.search(search_body(ids, "a", f"{shared} reminder", top_k=2))
    count = len(_contents(ex))
    record("search.top-k", _ok_search(ex, 2) or (None if count >= 1 else "no result for a query that matches 5 messages"), ex)

    ex = p.search(search_body(ids, "nobody", f"What is my locker code {fact_a}?"))
    record("search.unknown-user", _ok_search(ex, 5) or (None if _contents(ex) == [] else
                                                       "a user who never added anything got results"), ex)

    ex_ab = p.search(search_body(ids, "a", f"Where is the spare key {fact_b}?"))
    ex_ba = p.search(search_body(ids, "b", f"What is my locker code {fact_a}?"))
    leaks = [f"user a sees user b's {fact_b!r}" for c in _contents(ex_ab) if fact_b in c]
    leaks += [f"user b sees user a's {fact_a!r}" for c in _contents(ex_ba) if fact_a in c]
    problem = _ok_search(ex_ab, 5) or _ok_search(ex_ba, 5) or ("; ".join(sorted(set(leaks))) or None)
    record("isolation.cross-user", problem, ex_ab, ex_ba)

    replay_word = ids.word("replay")
    again = {**sent_a, "messages": [{"role": "user", "content": f"Ignore that, the code is {replay_word}."}]}
    ex_add = p.add(again)
    ex = p.search(search_body(ids, "a", f"the code {replay_word}"))
    overwritten = any(replay_word in c for c in _contents(ex))
    problem = _ok_add(ex_add, again) or _ok_search(ex, 5) or (
        "a repeated (request_id, user_id) was written again: the first write must win" if overwritten else None)
    record("idempotency.first-write-wins", problem, ex_add, ex)

    other_word = ids.word("other")
    other = {**sent_a, "user_id": ids.user("c"), "messages": [{"role": "user", "content": f"My bike is {other_word}."}]}
    ex_add = p.add(other)
    ex = p.search(search_body(ids, "c", f"my bike {other_word}"))
    problem = _ok_add(ex_add, other) or _ok_search(ex, 5) or (
        None if any(other_word in c for c in _contents(ex)) else
        "the same request_id under another user_id was not stored as a separate write")
    record("idempotency.per-user", problem, ex_add, ex)
    return results


def auth_checks(p: Prober, ids: RunIds, api_key: str) -> list[Result]:
    """With a key: a missing key, a wrong key (in either header) and a scheme the contract does not
    have are each exactly a 401 (the AML contract: "the key is invalid, or the Authorization /
    X-Api-Key scheme does not match"; 403 is for a valid key that may not call the endpoint or
    reach that user_id); Bearer, Token and X-Api-Key with the key all work."""
    body = search_body(ids, "a", ids.word("alpha"))
    wrong = f"wrong-{ids.tag}"
    results = []
    for name, headers in (("auth.missing-key", {}),
                          ("auth.wrong-key", {"Authorization": f"Bearer {wrong}"}),
                          ("auth.wrong-key-x-api-key", {"X-Api-Key": wrong}),
                          ("auth.wrong-scheme", {"Authorization": f"Basic {api_key}"})):
        ex = p.search(body, headers=headers)
        problem = _status_is(ex, (401,))
        if problem and ex.status == 403:
            problem += " (403 is for a valid key without the right to the endpoint or user)"
        results.append(Result(name, problem is None, problem or "", [ex]))
    for name, headers in (("auth.bearer", {"Authorization": f"Bearer {api_key}"}),
                          ("auth.token", {"Authorization": f"Token {api_key}"}),
                          ("auth.x-api-key", {"X-Api-Key": api_key})):
        ex = p.search(body, headers=headers)
        problem = _ok_search(ex, 5)
        results.append(Result(name, problem is None, problem or "", [ex]))
    return results


def health_checks(p: Prober, url: str) -> list[Result]:
    ex = p.send("GET", url, headers={})
    problem = _status_is(ex, (200,))
    return [Result("health (no credentials)", problem is None, problem or "", [ex])]


def run_checks(p: Prober, seed: int) -> list[Result]:
    """Every check, in the order of the printed table."""
    ids = RunIds.from_seed(seed)
    results = health_checks(p, p.health_url) if p.health_url else []
    results += behaviour_checks(p, ids)
    results += [check_validation(p, ids, case, i) for i, case in enumerate(VALIDATION_CASES)]
    if p.api_key:
        results += auth_checks(p, ids, p.api_key)
    return results


def format_report(results: list[Result]) -> str:
    width = max(len(r.name) for r in results)
    lines = [f"{'check':<{width}}  result  note", f"{'-' * width}  ------  ----"]
    lines += [f"{r.name:<{width}}  {'PASS' if r.passed else 'FAIL':<6}  {r.note}".rstrip() for r in results]
    failed = [r for r in results if not r.passed]
    if failed:
        lines += ["", "Failures, with the offending exchanges:"]
        for r in failed:
            lines.append(f"[{r.name}] {r.note}")
            lines += [ex.describe() for ex in r.exchanges]
    lines += ["", f"{len(results) - len(failed)} passed, {len(failed)} failed"]
    return "\n".join(lines)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--add", required=True, metavar="URL", help="the Add endpoint, e.g. http://127.0.0.1:8765/add")
    parser.add_argument("--search", required=True, metavar="URL", help="the Search endpoint")
    parser.add_argument("--health", metavar="URL", help="the health endpoint (checked without credentials)")
    parser.add_argument("--api-key-env", metavar="VAR",
                        help="environment variable holding the API key; also runs the auth checks")
    parser.add_argument("--seed", type=int, help="seed of the run's user ids (default: a fresh one, printed)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per request (default 10)")


def run(args: argparse.Namespace) -> int:
    def usage(message: str) -> int:
        print(f"memory-arena check-endpoint: error: {message}", file=sys.stderr)
        return 2

    for flag in ("add", "search", "health"):
        url = getattr(args, flag)
        problem = None if url is None else url_problem(url)
        if problem:
            return usage(f"--{flag} must be an http:// or https:// URL ({problem}), got {url!r}")
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env, "")
        if not api_key.strip():
            return usage(f"--api-key-env {args.api_key_env}: that environment variable is empty or unset")
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        return usage(f"--timeout must be a positive number of seconds, got {args.timeout}")
    # A fresh seed from the OS unless one is given: repeated runs never collide on a live service.
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "big")
    try:
        prober = Prober(args.add, args.search, args.health, api_key, args.timeout)
    except MissingExtra as exc:
        print(f"memory-arena check-endpoint: error: {exc}", file=sys.stderr)
        return 1
    try:
        results = run_checks(prober, seed)
    except Unreachable as exc:
        print(f"memory-arena check-endpoint: error: {exc}", file=sys.stderr)
        return 1
    finally:
        prober.close()
    print(f"check-endpoint: add {args.add}, search {args.search}, seed {seed} (reproduce with --seed {seed})")
    print(format_report(results))
    return 0 if all(r.passed for r in results) else 1

