"""Property tests of the reference server's Add and Search handlers (hypothesis), run on the
ASGI app in process: whatever the body (any JSON value, any nesting, any size up to the
limit, any bytes, any encoding), the answer is a 2xx or a 4xx with a JSON `detail`, never a
5xx; and what is accepted behaves (ids echoed, results well-formed and of the asking user)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

pytest.importorskip("starlette", reason="the reference server needs the server extra")
pytest.importorskip("bm25s", reason="the reference server's default backend needs bm25s")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from memory_arena.contract.client import check_add_response, check_search_response  # noqa: E402
from memory_arena.contract.server import ServerConfig, create_app  # noqa: E402

MAX_BODY = 64 * 1024
MAX_TOP_K = 20
PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory):
    db = Path(tmp_path_factory.mktemp("properties")) / "server.sqlite3"
    app = create_app(ServerConfig(db, "bm25", None, MAX_TOP_K, MAX_BODY))
    # raise_server_exceptions=False: a handler that raises must show up as the 500 a real
    # client would get, so that the property below can see it.
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


# Integers of every size (Python refuses to print or parse more than 4,300 digits by default,
# so the huge ones are written as digit strings below), floats with NaN and infinities (the
# json module writes and reads them), text with lone surrogates, NUL and astral characters.
scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text(max_size=40))
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                           | st.dictionaries(st.text(max_size=12), inner, max_size=5), max_leaves=30)
texts = st.text(max_size=60) | st.sampled_from(["", " ", "\u2003", "\ud800", "a\x00b", "👍", "the of and"])
contract_values = json_values | texts | st.integers(min_value=-(2**70), max_value=2**70)


def messages_of(values: st.SearchStrategy) -> st.SearchStrategy:
    message = st.fixed_dictionaries({}, optional={"role": values, "content": values, "timestamp": values,
                                                 "extra": values})
    return st.lists(message | values, max_size=4) | values


add_bodies = st.fixed_dictionaries({}, optional={
    "request_id": contract_values, "user_id": contract_values, "session_id": contract_values,
    "messages": messages_of(contract_values), "unknown": json_values})
search_bodies = st.fixed_dictionaries({}, optional={
    "query": contract_values, "user_id": contract_values, "top_k": contract_values,
    "options": contract_values | st.lists(texts, max_size=3), "unknown": json_values})


def post(client: TestClient, endpoint: str, content: bytes):
    response = client.post(f"/{endpoint}", content=content, headers={"Content-Type": "application/json"})
    assert response.status_code < 500, (endpoint, content[:300], response.status_code, response.text[:300])
    if response.status_code >= 400:
        assert "detail" in response.json()
    return response


def encode(body: object) -> bytes:
    # ensure_ascii keeps lone surrogates as \ud800 escapes, as a client in another language may send them.
    return json.dumps(body).encode("ascii")


@PROPERTY
@given(body=add_bodies | json_values)
def test_any_add_body_is_answered_without_a_server_error(client: TestClient, body: object) -> None:
    response = post(client, "add", encode(body))
    if response.status_code == 200:
        assert check_add_response(body, response.json()) is None


@PROPERTY
@given(body=search_bodies | json_values)
def test_any_search_body_is_answered_without_a_server_error(client: TestClient, body: object) -> None:
    response = post(client, "search", encode(body))
    if response.status_code == 200:
        assert check_search_response(response.json(), MAX_TOP_K) is None


@PROPERTY
@given(raw=st.binary(max_size=300))
def test_any_bytes_are_answered_without_a_server_error(client: TestClient, raw: bytes) -> None:
    for endpoint in ("add", "search"):
        post(client, endpoint, raw)


@PROPERTY
@given(depth=st.integers(min_value=1, max_value=30_000), opener=st.sampled_from(["[", '{"k":']),
       field=st.sampled_from(["messages", "top_k", "unknown", None]))
def test_any_nesting_is_answered_without_a_server_error(client: TestClient, depth: int, opener: str,
                                                        field: str | None) -> None:
    closer = "]" if opener == "[" else "}"
    nested = opener * depth + "1" + closer * depth
    body = nested if field is None else '{"user_id": "u", "query": "q", "request_id": "r", "session_id": "s", ' \
                                         f'"top_k": 1, "messages": [{{"role": "u", "content": "c"}}], "{field}": {nested}}}'
    for endpoint in ("add", "search"):
        post(client, endpoint, body.encode("ascii"))


@PROPERTY
@given(digits=st.integers(min_value=1, max_value=20_000), sign=st.sampled_from(["", "-"]),
       where=st.sampled_from(["top_k", "timestamp", "unknown"]), fraction=st.booleans())
def test_any_number_length_is_answered_without_a_server_error(client: TestClient, digits: int, sign: str,
                                                              where: str, fraction: bool) -> None:
    number = sign + "9" * digits + (".5" if fraction else "")
    if where == "top_k":
        post(client, "search", f'{{"user_id": "n", "query": "q", "top_k": {number}}}'.encode())
    else:
        stamp = number if where == "timestamp" else "1"
        body = ('{"request_id": "n%d", "user_id": "n", "session_id": "s", "unknown": %s, '
                '"messages": [{"role": "user", "content": "c", "timestamp": %s}]}' % (digits, number, stamp))
        post(client, "add", body.encode())


@PROPERTY
@given(text=st.text(min_size=1, max_size=200), codec=st.sampled_from(["utf-16", "utf-32", "latin-1", "utf-8-sig"]))
def test_other_encodings_are_a_400_or_understood(client: TestClient, text: str, codec: str) -> None:
    body = json.dumps({"user_id": "enc", "query": text, "top_k": 3}, ensure_ascii=False)
    try:
        raw = body.encode(codec)
    except UnicodeEncodeError:
        return  # latin-1 cannot hold this text at all
    response = post(client, "search", raw)
    try:
        as_utf8 = raw.decode("utf-8")
    except UnicodeDecodeError:
        as_utf8 = None
    if as_utf8 is None or as_utf8.startswith("\ufeff"):
        # Only UTF-8 without a byte-order mark is JSON text (RFC 8259); bytes that happen to be
        # UTF-8 too (latin-1 of ASCII, or of "Â\x80") are read as such.
        assert response.status_code == 400


@PROPERTY
@given(size=st.integers(min_value=0, max_value=2 * MAX_BODY))
def test_any_size_is_accepted_below_the_limit_and_a_413_above(client: TestClient, size: int) -> None:
    head = b'{"request_id": "size", "user_id": "size", "session_id": "s", "messages": [{"role": "user", "content": "'
    tail = b'"}]}'
    body = head + b"x" * max(1, size - len(head) - len(tail)) + tail
    response = post(client, "add", body)
    assert response.status_code == (413 if len(body) > MAX_BODY else 200)


@PROPERTY
@given(contents=st.lists(texts.filter(lambda t: t.strip() and t.isprintable() and "\ud800" not in t),
                         min_size=1, max_size=6),
       query=texts.filter(lambda t: t.strip() and "\ud800" not in t and "\x00" not in t), top_k=st.integers(0, 50))
def test_what_is_accepted_is_searchable_only_by_its_user(client: TestClient, contents: list[str], query: str,
                                                         top_k: int) -> None:
    user = "prop-" + str(abs(hash((tuple(contents), query))))
    body = {"request_id": "r", "user_id": user, "session_id": "s",
            "messages": [{"role": "user", "content": c, "timestamp": i} for i, c in enumerate(contents)]}
    assert post(client, "add", encode(body)).status_code == 200
    found = post(client, "search", encode({"user_id": user, "query": query, "top_k": top_k})).json()["data"]
    assert len(found) <= min(top_k, MAX_TOP_K)
    assert all(item["content"] in contents and item["created_at"] in range(len(contents)) for item in found)
    scores = [item["score"] for item in found]
    assert all(not math.isnan(s) for s in scores) and scores == sorted(scores, reverse=True)
    other = post(client, "search", encode({"user_id": user + "-other", "query": query, "top_k": 5})).json()
    assert other == {"data": []}
