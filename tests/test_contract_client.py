"""The contract client: chunking, stable request ids, retries with backoff and Retry-After,
fail-fast on refusals and malformed 200s (against a scripted server on 127.0.0.1), and a
round trip against the real reference server."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from contract_procs import Running, start_reference, start_script
from memory_arena.contract.client import (ADD_RETRY_STATUSES, SEARCH_RETRY_STATUSES, ContractClient, ContractError,
                                          RetryPolicy, chunk_messages, parse_retry_after, request_id_for)

FAIL_FAST = [400, 401, 403, 404, 422]


# -- pure parts ---------------------------------------------------------------------------------

def msgs(*word_counts: int) -> list[dict]:
    return [{"role": "user", "content": " ".join(["w"] * n)} for n in word_counts]


def test_chunks_at_20_messages() -> None:
    chunks = chunk_messages(msgs(*[1] * 45))
    assert [len(c) for c in chunks] == [20, 20, 5]


def test_chunks_at_2000_words_on_message_boundaries() -> None:
    chunks = chunk_messages(msgs(900, 900, 300, 1700, 10))
    assert [[len(m["content"].split()) for m in c] for c in chunks] == [[900, 900], [300, 1700], [10]]
    # A single message longer than the limit travels alone, never split.
    assert [len(c) for c in chunk_messages(msgs(10, 2500, 10))] == [1, 1, 1]
    assert [len(c) for c in chunk_messages(msgs(1000, 1000, 1))] == [2, 1]
    assert chunk_messages([]) == []


def test_request_ids_are_stable_and_distinct() -> None:
    hello = [{"role": "user", "content": "hello", "timestamp": 1}]
    assert request_id_for("u", "s", 0, hello) == request_id_for("u", "s", 0, [dict(hello[0])])
    ids = {request_id_for(u, s, i, hello) for u in ("u", "v") for s in ("s", "t") for i in range(3)}
    assert len(ids) == 12
    assert request_id_for("a:b", "c", 0, hello) != request_id_for("a", "b:c", 0, hello)
    # Regression: other messages under the same (user, session, chunk) are another write, or a
    # service that saw an earlier dataset answers "already done" and keeps the old text.
    for other in ([{**hello[0], "content": "hullo"}], [{**hello[0], "timestamp": 2}], [{**hello[0], "role": "assistant"}]):
        assert request_id_for("u", "s", 0, other) != request_id_for("u", "s", 0, hello)
    # Only what an Add sends counts.
    assert request_id_for("u", "s", 0, [{**hello[0], "session": 4}]) == request_id_for("u", "s", 0, hello)


def test_retry_after_parsing_and_bounded_delays() -> None:
    assert parse_retry_after("3") == 3.0
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:10 GMT", now=1445412480.0) == 10.0
    policy = RetryPolicy(max_attempts=6, base_delay=0.5, max_delay=3.0, max_retry_after=20.0)
    assert [policy.delay(n, None) for n in range(1, 6)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.delay(1, 7.0) == 7.0 and policy.delay(3, 0.1) == 2.0 and policy.delay(1, 999) == 20.0
    with pytest.raises(ValueError, match="max_attempts"):
        RetryPolicy(max_attempts=0)


# -- against the scripted server ----------------------------------------------------------------

@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory):
    running = start_script(tmp_path_factory.mktemp("status"), "status_server.py")
    # One connection pool for the whole module: building an httpx.Client costs ~0.1 s.
    running.http = httpx.Client(base_url=running.url, timeout=10)
    yield running
    running.http.close()
    running.stop()


class Recorder:
    """Replaces time.sleep: the waits are recorded, not slept, so the tests stay fast."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def client_for(scripted: Running, sleep: Recorder, attempts: int = 4) -> ContractClient:
    return ContractClient.from_base_url(scripted.url, sleep=sleep, http=scripted.http,
                                        retry=RetryPolicy(max_attempts=attempts, base_delay=0.1, max_delay=1.0))


def script(scripted: Running, add: list | None = None, search: list | None = None) -> None:
    scripted.http.post("/_script", json={"add": add or [], "search": search or []}).raise_for_status()


def requests_seen(scripted: Running) -> list[dict]:
    return scripted.http.get("/_log").json()


def do_add(client: ContractClient) -> dict:
    return client.add("rid-1", "user-1", "sess-1", [{"role": "user", "content": "hi", "timestamp": 5, "extra": 1}])


@pytest.mark.parametrize("status", sorted(ADD_RETRY_STATUSES))
def test_add_retries(scripted: Running, status: int) -> None:
    script(scripted, add=[{"status": status}, {"status": status}])
    sleep = Recorder()
    assert do_add(client_for(scripted, sleep))["success"] is True
    seen = requests_seen(scripted)
    assert len(seen) == 3 and len({s["body"]["request_id"] for s in seen}) == 1
    assert seen[0]["body"]["messages"] == [{"role": "user", "content": "hi", "timestamp": 5}]
    assert sleep.waits == [0.1, 0.2]


@pytest.mark.parametrize("status", sorted(SEARCH_RETRY_STATUSES))
def test_search_retries(scripted: Running, status: int) -> None:
    script(scripted, search=[{"status": status}])
    sleep = Recorder()
    assert client_for(scripted, sleep).search("user-1", "q", 3)[0]["content"] == "scripted memory"
    assert len(requests_seen(scripted)) == 2 and sleep.waits == [0.1]


@pytest.mark.parametrize("endpoint, status", [("add", s) for s in FAIL_FAST] + [("search", s) for s in FAIL_FAST + [409]])
def test_fail_fast(scripted: Running, endpoint: str, status: int) -> None:
    script(scripted, **{endpoint: [{"status": status, "body": {"detail": f"refused with {status}"}}]})
    sleep = Recorder()
    client = client_for(scripted, sleep)
    with pytest.raises(ContractError, match=f"HTTP {status}: refused with {status}") as err:
        do_add(client) if endpoint == "add" else client.search("user-1", "q", 3)
    assert err.value.status == status
    assert len(requests_seen(scripted)) == 1 and sleep.waits == []


def test_retry_after_is_honoured(scripted: Running) -> None:
    script(scripted, add=[{"status": 429, "headers": {"Retry-After": "0.75"}}, {"status": 503}])
    sleep = Recorder()
    do_add(client_for(scripted, sleep))
    assert sleep.waits == [0.75, 0.2]


def test_gives_up_after_the_last_attempt(scripted: Running) -> None:
    script(scripted, search=[{"status": 503}] * 10)
    sleep = Recorder()
    with pytest.raises(ContractError, match="gave up after 4 attempts, last: HTTP 503") as err:
        client_for(scripted, sleep).search("u", "q", 3)
    assert err.value.status == 503 and len(requests_seen(scripted)) == 4 and sleep.waits == [0.1, 0.2, 0.4]


def test_transport_errors_are_retried(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleep = Recorder()
    client = ContractClient.from_base_url(f"http://127.0.0.1:{port}", sleep=sleep, retry=RetryPolicy(max_attempts=3))
    with pytest.raises(ContractError, match="gave up after 3 attempts, last: ConnectError") as err:
        client.search("u", "q", 1)
    assert err.value.status is None and len(sleep.waits) == 2


ECHO = {"success": True, "request_id": "rid-1", "user_id": "user-1", "session_id": "sess-1"}


@pytest.mark.parametrize("body, problem", [
    ({**ECHO, "success": False}, "success: true"),
    ({k: v for k, v in ECHO.items() if k != "success"}, "success: true"),
    ({**ECHO, "request_id": "RID-1"}, "`request_id` is not echoed"),
    ({**ECHO, "user_id": "other"}, "`user_id` is not echoed"),
    ({**ECHO, "session_id": None}, "`session_id` is not echoed"),
    ([ECHO], "not an object"),
])
def test_malformed_add_200_fails_fast(scripted: Running, body: object, problem: str) -> None:
    script(scripted, add=[{"status": 200, "body": body}])
    with pytest.raises(ContractError, match="malformed 200") as err:
        do_add(client_for(scripted, Recorder()))
    assert problem in str(err.value) and len(requests_seen(scripted)) == 1


ITEM = {"id": "1", "content": "c", "score": 1.0}


@pytest.mark.parametrize("body, problem", [
    ([ITEM], "not an object with a `data` list"),
    ({"results": [ITEM]}, "no `data` list"),
    ({"data": {"0": ITEM}}, "no `data` list"),
    ({"data": [{"content": "c"}]}, "has no `id`"),
    ({"data": [{"id": "1"}]}, "no `content`"),
    ({"data": [{"id": True, "content": "c"}]}, "has no `id`"),
    ({"data": [ITEM, ITEM, ITEM, ITEM]}, "4 items returned for top_k=3"),
    ({"data": [{**ITEM, "score": "high"}]}, "score is not a number"),
])
def test_malformed_search_200_fails_fast(scripted: Running, body: object, problem: str) -> None:
    script(scripted, search=[{"status": 200, "body": body}])
    with pytest.raises(ContractError, match="malformed 200") as err:
        client_for(scripted, Recorder()).search("user-1", "q", 3)
    assert problem in str(err.value) and len(requests_seen(scripted)) == 1


def test_search_results_are_normalised(scripted: Running) -> None:
    body = {"data": [{"id": 7, "content": "a", "created_at": "2024-01-01T00:00:00Z"},
                     {"id": "x", "content": "b", "score": 2, "created_at": 1_700_000_000_000, "extra": 1}]}
    script(scripted, search=[{"status": 200, "body": body}])
    assert client_for(scripted, Recorder()).search("u", "q", 2) == [
        {"id": "7", "content": "a", "score": None, "created_at": 1_704_067_200_000},
        {"id": "x", "content": "b", "score": 2.0, "created_at": 1_700_000_000_000}]


def test_add_session_sends_each_chunk_with_its_own_stable_id(scripted: Running) -> None:
    script(scripted)
    client = client_for(scripted, Recorder())
    messages = [{"role": "user", "content": f"message {i}"} for i in range(45)]
    ids = client.add_session("user-1", "sess-1", messages)
    seen = requests_seen(scripted)
    assert [len(s["body"]["messages"]) for s in seen] == [20, 20, 5]
    chunks = [messages[:20], messages[20:40], messages[40:]]
    assert [s["body"]["request_id"] for s in seen] == ids == [request_id_for("user-1", "sess-1", i, c)
                                                               for i, c in enumerate(chunks)]
    assert [m["content"] for s in seen for m in s["body"]["messages"]] == [m["content"] for m in messages]


# -- against the reference server ----------------------------------------------------------------

def test_round_trip_and_idempotent_reingestion(tmp_path: Path) -> None:
    running = start_reference(tmp_path, "--api-key-env", "MA_CLIENT_KEY", env={"MA_CLIENT_KEY": "s3cret"})
    try:
        with ContractClient.from_base_url(running.url, api_key="s3cret") as client:
            messages = [{"role": "user", "content": f"note {i} about zqclient{i}", "timestamp": 1000 + i} for i in range(25)]
            client.add_session("client-user", "s1", messages)
            client.add_session("client-user", "s1", messages)  # a re-run: same ids, nothing doubled
            found = client.search("client-user", "zqclient7", 5)
            assert [(m["content"], m["created_at"]) for m in found] == [("note 7 about zqclient7", 1007)]
            assert len(client.search("client-user", "note about", 100)) == 25
            assert client.search("someone-else", "zqclient7", 5) == []
        with ContractClient.from_base_url(running.url, api_key="wrong") as client:
            with pytest.raises(ContractError, match="HTTP 401"):
                client.search("client-user", "note", 1)
    finally:
        running.stop()
