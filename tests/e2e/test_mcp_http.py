"""`svc mcp --http` (issue 31.4): Streamable HTTP on loopback behind a bearer token.

The attacks first, as a web page in the person's browser or a rebinding name would make them,
against the real `svc mcp --http` process: no token, a token in the URL, a foreign Origin, a
wrong Host, a non-loopback bind. Then the SDK's own client, pinned to 2026-07-28, pays over
HTTP after the person approves in an input-required round; a 2025 client, in a session, is
asked by elicitation as over stdio.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from tests.conftest import SVC, Cli, Sandbox, _base_env, unique_email
from tests.e2e.test_mcp import Person, run
from tests.forkserver import Forked, ForkServer
from tests.mcp_wire import INITIALIZED, initialize, tools_list

from svc.mcp.guard import MAX_BODY_BYTES

pytestmark = pytest.mark.e2e

LIST = tools_list(1)
INIT = initialize("probe")
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


@dataclass
class Served:
    url: str
    token: str | None  # printed only by the run that made it
    proc: subprocess.Popen[str] | Forked
    stdout: list[str]
    stderr: Path

    def post(self, body: Any = INIT, **headers: str) -> httpx.Response:
        return httpx.post(self.url, json=body, headers={**HEADERS, **headers}, timeout=10)


@contextmanager
def http_server(cli: Cli, fork_server: ForkServer | None, *extra: str) -> Iterator[Served]:
    """`svc mcp --http`, forked from `fork_server` (it imports the MCP SDK and uvicorn at each
    start), or exec'd without one, for a test of what the kernel shows of the process (its
    argv, its environment block)."""
    stderr = cli.home / f"http-stderr-{uuid.uuid4().hex[:8]}.txt"
    args = ["mcp", "--http", "--port", "0", *extra]
    with stderr.open("w") as err:
        proc: subprocess.Popen[str] | Forked = (
            subprocess.Popen(
                [SVC, *args], env=cli.env, stdout=subprocess.PIPE, stderr=err, text=True
            )
            if fork_server is None
            else fork_server.popen(args, env=cli.env, stdin=None, stderr=err)
        )
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline().strip()]
        if not lines[0].startswith("MCP_URL="):
            pytest.fail(f"no URL: {lines} {stderr.read_text()}")
        url = lines[0].split("=", 1)[1]
        token = None
        if "a new bearer token" in _wait_for(stderr, "serving MCP over HTTP"):
            lines.append(proc.stdout.readline().strip())
            token = lines[1].split("=", 1)[1]
        yield Served(url, token, proc, lines, stderr)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # Ctrl-C
        code = proc.wait(timeout=15)
    assert code in (0, 130, 143), code  # 128 + the signal, as every command ends on one
    assert "Traceback" not in stderr.read_text()


def _wait_for(path: Path, text: str) -> str:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        found = path.read_text()
        if text in found:
            return found
        time.sleep(0.05)
    pytest.fail(f"server did not start: {path.read_text()}")


def token_of(cli: Cli) -> str:
    return cli.ok("mcp", "token").stdout.strip()


@pytest.fixture(scope="module")
def attacked(
    tmp_path_factory: pytest.TempPathFactory, sandbox_server: Sandbox, fork_server: ForkServer
) -> Iterator[Served]:
    """One `svc mcp --http` (a fresh home: its token made and printed) for the attack tests,
    instead of one each (a start-up is seconds on a loaded machine). Each test ends on a
    request the server must still serve, so one attack cannot hide another's effect; the
    server must also stop cleanly after all of them (http_server's exit checks)."""
    home = tmp_path_factory.mktemp("attacked")
    with http_server(
        Cli(home, {**_base_env(home), "SVC_BASE_URL": sandbox_server.url}), fork_server
    ) as served:
        yield served


def test_a_non_loopback_address_is_refused_before_anything_listens(cli: Cli) -> None:
    for host in ("0.0.0.0", "::", "192.168.1.10", "example.com", "127.0.0.1.nip.io"):
        result = cli("mcp", "--http", "--host", host, "--port", "0")
        assert result.returncode == 2, (host, result.stderr)
        assert "loopback only" in result.stderr
    assert "mcp_http_token" not in _secret_file(cli)  # refused before a token was made


def _secret_file(cli: Cli) -> str:
    path = cli.home / "config" / "secrets.json"
    return path.read_text() if path.exists() else ""


def test_a_request_without_the_right_token_gets_401(attacked: Served) -> None:
    served = attacked
    assert served.token is not None
    for headers in (
        {},
        {"authorization": "Bearer wrong"},
        {"authorization": f"Basic {served.token}"},
        {"authorization": f"Bearer {served.token[:-1]}"},
        {"authorization": "Bearer"},
    ):
        answer = served.post(**headers)
        assert answer.status_code == 401, (headers, answer.text)
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert "mcp" not in answer.text.lower() or "jsonrpc" not in answer.text
    twice = httpx.post(
        served.url,
        json=INIT,
        headers=[
            *HEADERS.items(),
            ("authorization", f"Bearer {served.token}"),
            ("authorization", "Bearer other"),
        ],
        timeout=10,
    )
    assert twice.status_code == 401  # two Authorization headers: neither is believed
    assert served.post(authorization=f"Bearer {served.token}").status_code == 200


def test_a_body_past_the_cap_gets_413_declared_or_chunked(attacked: Served) -> None:
    """Even the token's holder cannot make the server buffer without end: a declared length
    over the cap is refused unread, a chunked body is cut where it passes it; the server
    answers the next request as before."""
    huge = b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": "' + b"a" * (
        MAX_BODY_BYTES + 1
    )

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(huge), 65536):
            yield huge[start : start + 65536]

    served = attacked
    auth = {**HEADERS, "authorization": f"Bearer {served.token}"}
    declared = httpx.post(served.url, content=huge, headers=auth, timeout=30)
    assert declared.status_code == 413 and declared.json()["error"] == "body_too_large"
    chunked = httpx.post(served.url, content=chunks(), headers=auth, timeout=30)
    assert chunked.status_code == 413 and chunked.json()["error"] == "body_too_large"
    assert served.post(authorization=f"Bearer {served.token}").status_code == 200


def test_a_token_in_the_query_string_is_refused_and_the_person_told(attacked: Served) -> None:
    served = attacked
    token = served.token
    assert token is not None
    for query in (f"?token={token}", f"?access_token={token}", "?x=1"):
        answer = httpx.post(served.url + query, json=INIT, headers=HEADERS, timeout=10)
        assert answer.status_code == 400, answer.text
    authorized = httpx.post(
        served.url + "?x=1",
        json=INIT,
        headers={**HEADERS, "authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert authorized.status_code == 400  # a URL never carries anything we accept
    log = served.stderr.read_text()
    assert "svc mcp token --rotate" in log
    assert token not in log  # the warning does not repeat it
    assert served.post(authorization=f"Bearer {token}").status_code == 200  # served as before


def test_a_web_page_of_another_origin_gets_403(attacked: Served) -> None:
    served = attacked
    auth = f"Bearer {served.token}"
    port = served.url.split(":")[2].split("/")[0]
    for origin in (
        "http://evil.example",
        "null",
        "http://127.0.0.1:1",
        f"https://127.0.0.1:{port}",
        f"http://127.0.0.1.evil.example:{port}",
    ):
        answer = served.post(origin=origin, authorization=auth)
        assert answer.status_code == 403, (origin, answer.text)
    preflight = httpx.options(
        served.url,
        headers={"origin": "http://evil.example", "access-control-request-method": "POST"},
    )
    assert preflight.status_code == 403
    assert "access-control-allow-origin" not in preflight.headers
    # Without a token, a foreign page learns nothing more than 403 either.
    assert served.post(origin="http://evil.example").status_code == 403
    assert served.post(origin=f"http://127.0.0.1:{port}", authorization=auth).is_success


def test_a_rebound_host_name_gets_421(attacked: Served) -> None:
    served = attacked
    auth = f"Bearer {served.token}"
    port = served.url.split(":")[2].split("/")[0]
    for host in ("evil.example", f"evil.example:{port}", "127.0.0.1", "127.0.0.1:1"):
        answer = served.post(host=host, authorization=auth)
        assert answer.status_code == 421, (host, answer.text)
    assert served.post(host=f"localhost:{port}", authorization=auth).is_success


def test_the_token_is_printed_once_and_never_in_argv_or_logs(cli: Cli) -> None:
    with http_server(cli, None) as first:  # exec'd: /proc shows its own argv and environment
        token = first.token
        assert token is not None and token.startswith("svcmcp_") and len(token) > 40
        cmdline = Path(f"/proc/{first.proc.pid}/cmdline").read_bytes()
        environ = Path(f"/proc/{first.proc.pid}/environ").read_bytes()
        assert token.encode() not in cmdline and token.encode() not in environ
        assert first.post(authorization=f"Bearer {token}").status_code == 200
        assert first.post().status_code == 401
        assert token not in first.stderr.read_text()
    with http_server(cli, None) as second:
        assert second.token is None  # not printed again
        assert all(token not in line for line in second.stdout)
        assert token_of(cli) == token  # shown on request
        rotated = cli.ok("mcp", "token", "--rotate").stdout.strip()
        assert rotated != token
        deadline = time.monotonic() + 10
        while second.post(authorization=f"Bearer {token}").status_code != 401:
            assert time.monotonic() < deadline, "the rotated-out token still works"
            time.sleep(0.2)
        assert second.post(authorization=f"Bearer {rotated}").status_code == 200
    assert token not in second.stderr.read_text() and rotated not in second.stderr.read_text()


def _client(served: Served, token: str, **kwargs: Any) -> Client:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30)
    return Client(streamable_http_client(served.url, http_client=http), **kwargs)


def test_the_sdk_client_pays_over_http_after_the_person_approves(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer
) -> None:
    person = Person(pay=True)
    with http_server(cli, fork_server) as served:
        assert served.token is not None

        async def body() -> None:
            async with _client(
                served, served.token or "", mode="2026-07-28", elicitation_callback=person
            ) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                assert "submit_task" in tools
                paid = await client.call_tool(
                    "submit_task", {"task": "Renew my books #complete", "email": unique_email()}
                )
                assert not paid.is_error, paid.content
                doc = paid.structured_content
                assert isinstance(doc, dict)
                assert len(sandbox.charges_for(doc["request_id"])) == 1
                assert len(person.payment_questions()) == 1

        run(body)


def test_a_2025_client_over_http_is_asked_as_over_stdio(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer
) -> None:
    """The SDK's client in legacy mode (2025-11-25, a session with its back channel): the
    person is asked to pay and pays once; a person who declines pays nothing; a client that
    declares no forms is told it cannot ask the person, and nothing is paid either."""
    rids = [f"req_{uuid.uuid4().hex}" for _ in range(3)]
    payer, decliner = Person(pay=True), Person(pay=False)

    def submit(rid: str) -> dict[str, Any]:
        return {"task": "Renew my books #complete", "email": unique_email(), "request_id": rid}

    with http_server(cli, fork_server) as served:
        token = served.token or token_of(cli)

        async def body() -> None:
            async with _client(served, token, mode="legacy", elicitation_callback=payer) as c:
                paid = await c.call_tool("submit_task", submit(rids[0]))
                assert not paid.is_error, paid.content
            async with _client(served, token, mode="legacy", elicitation_callback=decliner) as c:
                declined = await c.call_tool("submit_task", submit(rids[1]))
                assert declined.is_error
                assert "payment_not_approved" in declined.content[0].text  # type: ignore[union-attr]
            async with _client(served, token, mode="legacy") as c:  # no elicitation capability
                refused = await c.call_tool("submit_task", submit(rids[2]))
                text = refused.content[0].text  # type: ignore[union-attr]
                assert refused.is_error and "cannot ask the person" in text, text

        run(body)
    assert len(sandbox.charges_for(rids[0])) == 1 and len(payer.payment_questions()) == 1
    assert sandbox.charges_for(rids[1]) == [] and len(decliner.payment_questions()) == 1
    assert sandbox.charges_for(rids[2]) == []


def session_headers(served: Served) -> dict[str, str]:
    """A 2025-11-25 session opened by hand (initialize, then initialized): the headers of
    every later request in it."""
    headers = {**HEADERS, "authorization": f"Bearer {served.token}"}
    opened = httpx.post(served.url, json=initialize("raw"), headers=headers, timeout=10)
    assert opened.status_code == 200, opened.text
    headers["mcp-session-id"] = opened.headers["mcp-session-id"]
    headers["mcp-protocol-version"] = "2025-11-25"
    done = httpx.post(served.url, json=INITIALIZED, headers=headers, timeout=10)
    assert done.status_code == 202, done.text
    return headers


def test_sigterm_stops_the_server_and_frees_the_port(cli: Cli) -> None:
    with http_server(cli, None) as served:  # a signal to the process: exec'd
        served.proc.send_signal(signal.SIGTERM)
        assert served.proc.wait(timeout=15) == 143
    with pytest.raises(httpx.TransportError):
        served.post()


def test_a_signal_ends_a_waiting_call_promptly_not_after_its_budget(
    cli: Cli, sandbox: Sandbox
) -> None:
    """uvicorn's graceful stop waits for open requests; a `wait_for_task` call is one, for up
    to its whole budget (50 s here, unscaled): a SIGTERM took 39 s. The server must stop
    within a few seconds all the same, and exit as a Ctrl-C does. The call's event stream ends
    with the server (sse-starlette closes every stream on a server's exit), so the host mostly
    sees the request cut and calls again; when the wait ends first, its answer is a spent
    budget's. The person's terminal sees no error for an ordered stop."""
    submitted = cli.ok("submit", "Slow errand #slow", "--email", unique_email(), "--json")
    task_id = submitted.json()["id"]
    cli.env["SVC_TEST_MCP_TIME_SCALE"] = "1"
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "wait_for_task",
            "arguments": {"task_id": task_id, "timeout_seconds": 50},
            "_meta": {"progressToken": "p"},
        },
    }
    with http_server(cli, None) as served:  # signalled: exec'd
        signalled = 0.0
        events: list[dict[str, Any]] = []
        headers = session_headers(served)
        with (
            contextlib.suppress(httpx.RemoteProtocolError),  # cut by the stop: see above
            httpx.stream("POST", served.url, json=call, headers=headers, timeout=60) as reply,
        ):
            for line in reply.iter_lines():
                if not line.startswith("data:"):
                    continue
                events.append(json.loads(line[5:]))
                if not signalled:  # the call is under way: its first progress
                    signalled = time.monotonic()
                    served.proc.send_signal(signal.SIGTERM)
        code = served.proc.wait(timeout=60)
        seconds = time.monotonic() - signalled
        said = served.stderr.read_text()
    assert signalled and events[0]["method"] == "notifications/progress", events
    assert code == 143 and seconds < 5, (code, seconds)
    # Either cut, or (when the wait ended before the stream was closed) answered as a spent
    # budget: never an error, never the call's whole budget.
    last = events[-1]
    if "result" in last:
        assert not last["result"].get("isError"), last
        assert "call wait_for_task again" in last["result"]["content"][0]["text"], last
    assert "ERROR" not in said and said.rstrip().endswith("svc: interrupted (SIGTERM)"), said


def test_a_setting_changed_while_serving_counts_at_the_next_call(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer
) -> None:
    """`svc config set mcp_preapproved_usd 1.50` while `svc mcp --http` runs: the next call
    of a client that cannot show forms pays without a restart (before it, it was refused with
    nothing paid); a config file broken meanwhile is that call's one-line error, and the
    server goes on once it is mended."""
    rids = [f"req_{uuid.uuid4().hex}" for _ in range(3)]

    def submit(rid: str) -> dict[str, Any]:
        return {"task": "Renew my books #complete", "email": unique_email(), "request_id": rid}

    with http_server(cli, fork_server) as served:
        token = served.token or token_of(cli)
        config = cli.home / "config" / "config.toml"

        async def body() -> None:
            async with _client(served, token, mode="legacy") as client:
                refused = await client.call_tool("submit_task", submit(rids[0]))
                assert refused.is_error
                cli.ok("config", "set", "mcp_preapproved_usd", "1.50")
                paid = await client.call_tool("submit_task", submit(rids[1]))
                assert not paid.is_error, paid.content
                kept = config.read_text()
                config.write_text(kept + "\n[broken\n")
                broken = await client.call_tool("spend", {})
                text = broken.content[0].text  # type: ignore[union-attr]
                assert broken.is_error and "not valid TOML" in text, text
                config.write_text(kept)
                again = await client.call_tool("submit_task", submit(rids[2]))
                assert not again.is_error, again.content

        run(body)
    assert sandbox.charges_for(rids[0]) == []
    assert len(sandbox.charges_for(rids[1])) == 1 and len(sandbox.charges_for(rids[2])) == 1


def test_sessions_are_bounded_and_a_closed_one_frees_its_place(
    cli: Cli, fork_server: ForkServer
) -> None:
    """A 2025 client's session is state the server keeps: even a holder of the token cannot
    open them without end (503 past the bound), and one the client closes (DELETE) is
    forgotten at once (404 after) and frees its place."""
    from svc.mcp.http import MAX_SESSIONS

    with http_server(cli, fork_server) as served:
        opened = [session_headers(served) for _ in range(MAX_SESSIONS)]
        headers = {**HEADERS, "authorization": f"Bearer {served.token}"}
        over = httpx.post(served.url, json=initialize("one-too-many"), headers=headers)
        assert over.status_code == 503, over.text
        closed = httpx.delete(served.url, headers=opened[0], timeout=10)
        assert closed.status_code == 200, closed.text
        gone = httpx.post(served.url, json=tools_list(2), headers=opened[0], timeout=10)
        assert gone.status_code == 404
        again = httpx.post(served.url, json=initialize("in-its-place"), headers=headers)
        assert again.status_code == 200, again.text
