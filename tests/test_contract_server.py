"""The reference server as a real process on 127.0.0.1 with a real SQLite file: the
validation matrix (one case per row), the shape of results, idempotency, isolation, auth,
the body-size limit, logs without bodies, usage errors, and durability across `kill -9`."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from contract_procs import REPO, Running, start_reference
from system_deps import require
from memory_arena.contract.checker import VALIDATION_CASES, Case, apply_case

MAX_TOP_K = 10
SECRET = "zqsecretpayload"  # appears in request bodies; must never reach the server's log
_ids = itertools.count()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    running = start_reference(tmp_path_factory.mktemp("server"), "--max-top-k", str(MAX_TOP_K))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def http(server: Running):
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


def unique(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


def add(http: httpx.Client, user: str, contents: list[str], request_id: str | None = None,
        session: str = "s1", timestamps: list[int | None] | None = None) -> httpx.Response:
    messages = []
    for i, content in enumerate(contents):
        m: dict = {"role": "user", "content": content}
        if timestamps and timestamps[i] is not None:
            m["timestamp"] = timestamps[i]
        messages.append(m)
    body = {"request_id": request_id or unique("req"), "user_id": user, "session_id": session, "messages": messages}
    return http.post("/add", json=body)


def search(http: httpx.Client, user: str, query: str, top_k: int = 5) -> list[dict]:
    response = http.post("/search", json={"user_id": user, "query": query, "top_k": top_k})
    assert response.status_code == 200, response.text
    return response.json()["data"]


# -- validation matrix ---------------------------------------------------------------------------

def _valid(case: Case) -> dict:
    if case.endpoint == "add":
        return {"request_id": unique("matrix"), "user_id": "matrix-user", "session_id": "s",
                "messages": [{"role": "user", "content": "matrix row", "timestamp": 1_700_000_000_000}]}
    return {"user_id": "matrix-user", "query": "matrix row", "top_k": 3}


@pytest.mark.parametrize("case", VALIDATION_CASES, ids=[c.name for c in VALIDATION_CASES])
def test_validation_matrix(http: httpx.Client, case: Case) -> None:
    body = apply_case(_valid(case), case)
    content = case.raw if case.raw is not None else json.dumps(body).encode()
    response = http.post(f"/{case.endpoint}", content=content, headers={"Content-Type": "application/json"})
    # Our server's own choice where the contract allows two: not-JSON is a 400.
    expected = 400 if case.raw is not None else case.expect[0]
    assert response.status_code == expected, response.text
    payload = response.json()
    if expected == 422:
        locs = [err["loc"] for err in payload["detail"]]
        if case.field is None:
            assert locs == [["body"]]
        else:
            assert any(case.field in loc for loc in locs), locs
            # The error points at the field, never echoes the value sent.
            assert all("input" not in err for err in payload["detail"])
    elif expected == 400:
        assert isinstance(payload["detail"], str)
    elif case.endpoint == "add":
        assert payload == {"success": True, **{k: body[k] for k in ("request_id", "user_id", "session_id")}}
    else:
        assert isinstance(payload["data"], list)


def test_every_broken_field_is_reported_at_once(http: httpx.Client) -> None:
    body = {"request_id": "", "user_id": 5, "messages": [{"role": "user", "content": " ", "timestamp": "1"}]}
    detail = http.post("/add", json=body).json()["detail"]
    assert sorted(tuple(e["loc"]) for e in detail) == sorted([
        ("body", "request_id"), ("body", "user_id"), ("body", "session_id"),
        ("body", "messages", 0, "content"), ("body", "messages", 0, "timestamp")])


@pytest.mark.parametrize("field", ["request_id", "user_id", "session_id", "content"])
def test_nul_characters_are_refused(http: httpx.Client, field: str) -> None:
    # PostgreSQL's text cannot hold U+0000: refused on every database, so all keep the same data.
    body = {"request_id": unique("nul"), "user_id": unique("nul"), "session_id": "s",
            "messages": [{"role": "user", "content": "fine"}]}
    target = body["messages"][0] if field == "content" else body
    target[field] = "a\u0000b"
    response = http.post("/add", json=body)
    assert response.status_code == 422 and field in response.json()["detail"][0]["loc"], response.text
    search = http.post("/search", json={"user_id": "u\u0000", "query": "q", "top_k": 1})
    assert search.status_code == 422


def test_null_optional_fields_and_lone_surrogates(http: httpx.Client) -> None:
    user = unique("nulls")
    body = {"request_id": unique("r"), "user_id": user, "session_id": "s",
            "messages": [{"role": "user", "content": "tea with lemon", "timestamp": None}]}
    assert http.post("/add", json=body).status_code == 200
    response = http.post("/search", json={"user_id": user, "query": "lemon", "top_k": 2, "options": None})
    assert response.status_code == 200 and response.json()["data"][0]["created_at"] is None
    surrogate = b'{"request_id": "r-\\ud800", "user_id": "u", "session_id": "s", "messages": [{"role": "user", "content": "x"}]}'
    response = http.post("/add", content=surrogate)
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "request_id"]


# -- results -------------------------------------------------------------------------------------

def test_echo_is_byte_for_byte(http: httpx.Client) -> None:
    body = {"request_id": "Req-Ü ✓ 1", "user_id": unique("Üser"), "session_id": "Séance \u2003 x",
            "messages": [{"role": "user", "content": "hello"}]}
    response = http.post("/add", json=body)
    assert response.status_code == 200
    echoed = response.json()
    for key in ("request_id", "user_id", "session_id"):
        assert echoed[key] == body[key]
        assert json.dumps(body[key], ensure_ascii=False).encode() in response.content


def test_search_shape_ids_timestamps_order_and_top_k(http: httpx.Client) -> None:
    user = unique("shape")
    contents = [f"apple number {i}" + " apple" * (i % 3) for i in range(12)]
    stamps = [1_700_000_000_000 + i if i % 2 == 0 else None for i in range(12)]
    assert add(http, user, contents, timestamps=stamps).status_code == 200
    results = search(http, user, "apple", top_k=4)
    assert len(results) == 4
    for item in results:
        assert set(item) == {"id", "content", "score", "created_at"}
        assert isinstance(item["id"], str)
        assert item["created_at"] == stamps[contents.index(item["content"])]
    scores = [item["score"] for item in results]
    assert scores == sorted(scores, reverse=True)
    # Above the configured maximum, top_k is clamped, not refused.
    everything = search(http, user, "apple", top_k=1000)
    assert len(everything) == MAX_TOP_K
    assert len({item["id"] for item in everything}) == MAX_TOP_K
    assert search(http, user, "apple", top_k=0) == []
    assert search(http, user, "zqnothingmatchesthis", top_k=5) == []


def test_ids_are_the_servers_message_ids(http: httpx.Client) -> None:
    user = unique("ids")
    add(http, user, ["the red kite flies"])
    add(http, user, ["the blue kite sinks"])
    red, blue = search(http, user, "red kite")[0], search(http, user, "blue kite")[0]
    assert red["content"] == "the red kite flies" and blue["content"] == "the blue kite sinks"
    assert int(blue["id"]) > int(red["id"])


# -- idempotency and isolation -------------------------------------------------------------------

def test_first_write_wins(http: httpx.Client) -> None:
    user = unique("idem")
    first = add(http, user, ["my locker code is zqfirst"], request_id="same")
    second = add(http, user, ["my locker code is zqsecond"], request_id="same", session="other")
    assert first.status_code == second.status_code == 200
    assert second.json()["session_id"] == "other"  # the echo is of this request
    assert [r["content"] for r in search(http, user, "locker code zqfirst zqsecond")] == ["my locker code is zqfirst"]


def test_concurrent_duplicates_store_once(http: httpx.Client) -> None:
    user = unique("dupes")
    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(lambda i: add(http, user, [f"zqdupe copy {i}"], request_id="dup").status_code,
                                 range(32)))
    assert statuses == [200] * 32
    assert len(search(http, user, "zqdupe copy", top_k=10)) == 1


def test_same_request_id_under_another_user_is_a_separate_write(http: httpx.Client) -> None:
    a, b = unique("ua"), unique("ub")
    add(http, a, ["zqshared alpha"], request_id="shared-id")
    add(http, b, ["zqshared bravo"], request_id="shared-id")
    assert [r["content"] for r in search(http, a, "zqshared")] == ["zqshared alpha"]
    assert [r["content"] for r in search(http, b, "zqshared")] == ["zqshared bravo"]


def test_isolation_under_concurrency(http: httpx.Client) -> None:
    users = [unique("iso") for _ in range(8)]

    def work(user: str) -> list[str]:
        for i in range(5):
            assert add(http, user, [f"zqiso secret {user} {i}"]).status_code == 200
        return [r["content"] for r in search(http, user, "zqiso secret", top_k=10)]

    with ThreadPoolExecutor(8) as pool:
        for user, contents in zip(users, pool.map(work, users)):
            assert len(contents) == 5 and all(user in c for c in contents)


# -- errors, limits, logs ------------------------------------------------------------------------

def test_unknown_route_and_method_are_json_errors(http: httpx.Client) -> None:
    missing, wrong = http.get("/nope"), http.get("/add")
    assert (missing.status_code, wrong.status_code) == (404, 405)
    assert "detail" in missing.json() and "detail" in wrong.json()


def test_body_size_limit(http: httpx.Client) -> None:
    big = {"request_id": unique("big"), "user_id": "big", "session_id": "s",
           "messages": [{"role": "user", "content": "x" * (1 << 20)}]}
    response = http.post("/add", json=big)
    assert response.status_code == 413 and "detail" in response.json()

    def chunked():  # no Content-Length: the limit must hold while streaming
        yield b'{"request_id": "chunked", "user_id": "big", "session_id": "s", "messages": [{"role": "user", "content": "'
        for _ in range(20):
            yield b"y" * 65536
        yield b'"}]}'
    response = http.post("/add", content=chunked())
    assert response.status_code == 413
    assert search(http, "big", "x y") == []


@pytest.mark.parametrize("endpoint, body, status, field", [
    # Regression (#17.5): these raised RecursionError / ValueError past the handler: a 500.
    ("add", b"[" * 100_000 + b"]" * 100_000, 400, None),
    ("search", b'{"user_id": "deep", "query": "q", "top_k": 1, "x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
     400, None),
    ("search", b'{"user_id": "big", "query": "q", "top_k": ' + b"7" * 5000 + b"}", 200, None),
    ("search", b'{"user_id": "big", "query": "q", "top_k": -' + b"7" * 5000 + b"}", 422, "top_k"),
    ("add", b'{"request_id": "r", "user_id": "big", "session_id": "s", "messages": '
            b'[{"role": "user", "content": "c", "timestamp": ' + b"9" * 5000 + b"}]}", 422, "timestamp"),
    ("add", b'{"request_id": "r", "user_id": "big", "session_id": "s", "extra": ' + b"9" * 5000 + b", "
            b'"messages": [{"role": "user", "content": "huge number elsewhere"}]}', 200, None),
])
def test_deep_nesting_and_huge_numbers_are_client_errors(server: Running, http: httpx.Client, endpoint: str,
                                                          body: bytes, status: int, field: str | None) -> None:
    response = http.post(f"/{endpoint}", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status, response.text
    if status == 422:
        assert any(field in err["loc"] for err in response.json()["detail"])
    elif status == 400:
        assert isinstance(response.json()["detail"], str)
    assert "Traceback" not in server.log.read_text()


def test_a_user_without_content_words_is_searchable(http: httpx.Client) -> None:
    # Regression (#17.2): every Search of such a user was a 500 until a content word arrived.
    user = unique("emoji")
    assert add(http, user, ["👍", "ok!"]).status_code == 200
    assert search(http, user, "thumbs") == []
    assert add(http, user, ["thumbs up"]).status_code == 200
    assert [r["content"] for r in search(http, user, "thumbs")] == ["thumbs up"]


def test_bodies_never_reach_the_log(server: Running, http: httpx.Client) -> None:
    add(http, unique("log"), [f"{SECRET} in an Add"])
    http.post("/search", json={"user_id": "log", "query": f"{SECRET} in a search", "top_k": 1})
    http.post("/add", json={"request_id": "", "messages": [{"content": SECRET}]})
    http.post("/add", content=f"not json {SECRET}".encode())
    log = server.log.read_text()
    assert "listening on" in log and SECRET not in log


# -- auth ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory):
    running = start_reference(tmp_path_factory.mktemp("secured"), "--api-key-env", "MA_TEST_KEY",
                              env={"MA_TEST_KEY": "k3y-for-tests"})
    yield running
    running.stop()


# The AML contract: 401 when the key is missing or invalid or the scheme does not match; 403
# only for a valid key without the right to an endpoint or user, which this server never has.
@pytest.mark.parametrize("headers, status", [
    ({}, 401),
    ({"Authorization": "Bearer wrong"}, 401),
    ({"Authorization": "Bearer k3y-for-test"}, 401),
    ({"X-Api-Key": "k3y-for-tests-and-more"}, 401),
    ({"Authorization": "Basic k3y-for-tests"}, 401),
    ({"Authorization": "Bearer k3y-for-tests"}, 200),
    ({"Authorization": "bearer k3y-for-tests"}, 200),
    ({"Authorization": "Token k3y-for-tests"}, 200),
    ({"X-Api-Key": "k3y-for-tests"}, 200),
])
def test_auth(secured: Running, headers: dict, status: int) -> None:
    body = {"request_id": unique("auth"), "user_id": "auth", "session_id": "s",
            "messages": [{"role": "user", "content": "hi"}]}
    for endpoint, payload in (("add", body), ("search", {"user_id": "auth", "query": "hi", "top_k": 1})):
        response = httpx.post(f"{secured.url}/{endpoint}", json=payload, headers=headers)
        assert response.status_code == status, response.text
        if status != 200:
            assert "detail" in response.json() and response.headers["www-authenticate"] == "Bearer"


def test_health_needs_no_key(secured: Running) -> None:
    assert httpx.get(f"{secured.url}/health").status_code == 200


# -- command line -------------------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--backend", "nope"], "unknown backend 'nope'"),
    (["--api-key-env", "MA_SURELY_UNSET_VAR"], "MA_SURELY_UNSET_VAR"),
    (["--port", "70000"], "--port"),
    (["--workers", "0"], "--workers must be between 1 and 64"),
    (["--workers", "65"], "--workers must be between 1 and 64"),
    (["--db", "postgresql:/nohost"], "--db must be a file path or a postgresql://"),
])
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "memory_arena.cli", "serve", "--db", str(tmp_path / "x.db"), *args],
                          capture_output=True, text=True, cwd=REPO, timeout=60)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr


# -- durability --------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("backend", ["bm25", "timeline"])
def test_acknowledged_adds_survive_kill_9(tmp_path: Path, backend: str) -> None:
    if backend != "bm25":
        require(backend)
    db = tmp_path / "durable.sqlite3"
    running = start_reference(tmp_path, "--backend", backend, db=db)
    acknowledged: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()

    def writer(worker: int) -> None:
        with httpx.Client(base_url=running.url, timeout=10) as client:
            for i in itertools.count():
                if stop.is_set():
                    return
                n = worker * 100_000 + i
                try:
                    response = add(client, f"durable-{n % 7}", [f"zqdurable{n} kept"], request_id=f"d{n}")
                except httpx.TransportError:
                    return  # the server died mid-request: not acknowledged, nothing promised
                if response.status_code == 200:
                    with lock:
                        acknowledged.append(n)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    while True:  # kill while writes are in flight, once a good number was acknowledged
        with lock:
            if len(acknowledged) >= 150:
                break
        threads[0].join(0.01)
    running.kill9()
    stop.set()
    for t in threads:
        t.join()

    restarted = start_reference(tmp_path, "--backend", backend, db=db)
    try:
        with httpx.Client(base_url=restarted.url, timeout=10) as client:
            for n in acknowledged:
                found = [r["content"] for r in search(client, f"durable-{n % 7}", f"zqdurable{n}", top_k=3)]
                # A lexical backend returns only the match; a dense one ranks every memory, the match first.
                assert (found if backend == "bm25" else found[:1]) == [f"zqdurable{n} kept"], n
            # Idempotency survives the restart too.
            n = acknowledged[0]
            assert add(client, f"durable-{n % 7}", ["zqreplaced"], request_id=f"d{n}").status_code == 200
            assert "zqreplaced" not in [r["content"] for r in search(client, f"durable-{n % 7}", "zqreplaced")]
    finally:
        restarted.stop()
    assert "messages stored" in restarted.log.read_text()
