"""Hostile review of `svc mcp` after the session-mode, refresh and open-question changes.

Each test drives a real `svc mcp` process (stdio, or --http) against the sandbox: settings
changed under a running server, a person slower than a call, clients that go away while a form
is open, and the HTTP session surface.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import time
import uuid
from typing import Any

import anyio
import httpx
import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_mcp import Person, SlowPerson, run, served
from tests.e2e.test_mcp_http import HEADERS, _client, http_server, session_headers, token_of
from tests.forkserver import ForkServer
from tests.mcp_wire import tools_list

pytestmark = pytest.mark.e2e

TASK = "Renew my books #complete"  # the sandbox asks 1.50 USD for it


def _args(rid: str, email: str) -> dict[str, Any]:
    return {"task": TASK, "email": email, "request_id": rid}


def _text(result: Any) -> str:
    return str(result.content[0].text)


def _replace(path: os.PathLike[str], text: str) -> None:
    """An editor's save: a new file renamed over the old one."""
    tmp = f"{os.fspath(path)}.tmp-{uuid.uuid4().hex[:6]}"
    with open(tmp, "w") as out:
        out.write(text)
    os.replace(tmp, path)


def test_limits_lowered_in_the_file_mid_serve_hold_at_the_next_call(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The person lowers max_price_usd, then daily_cap_usd, by editing the file (an editor's
    atomic save) while the server runs: each next call is refused by the new limit, nothing
    paid, and no one is asked to pay past the lowered price."""
    person = Person(pay=True)
    cli.ok("config", "set", "max_price_usd", "1.50")
    config = cli.home / "config" / "config.toml"
    rids = [f"req_{uuid.uuid4().hex}" for _ in range(3)]

    async def body() -> None:
        async with served(cli, svc_mcp, person=person) as (session, _):
            paid = await session.call_tool("submit_task", _args(rids[0], unique_email()))
            assert not paid.is_error, paid.content
            _replace(config, '[profiles.default]\nmax_price_usd = "1.00"\n')
            over = await session.call_tool("submit_task", _args(rids[1], unique_email()))
            assert over.is_error and "above the limit" in _text(over), _text(over)
            _replace(config, '[profiles.default]\nmax_price_usd = "1.50"\ndaily_cap_usd = "2.00"\n')
            capped = await session.call_tool("submit_task", _args(rids[2], unique_email()))
            assert capped.is_error and "daily_cap" in _text(capped), _text(capped)

    run(body)
    assert len(sandbox.charges_for(rids[0])) == 1
    assert sandbox.charges_for(rids[1]) == [] and sandbox.charges_for(rids[2]) == []
    assert rids[1] not in " ".join(person.payment_questions())


def test_no_one_is_asked_to_pay_what_the_daily_cap_then_refuses(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """daily_cap_usd 1.00 and a 1.50 USD task: the call is refused (daily_cap_exceeded), yet
    the person was first shown "Pay 1.50 USD?" and ticked Pay for nothing. The policy asks
    before the cap's hold (policy.decide: judge, ready, approve, hold), the very thing the
    no-wallet fix (63bda3d) set out to end: no one asked to pay what could not be paid."""
    person = Person(pay=True)
    cli.ok("config", "set", "daily_cap_usd", "1.00")
    rid = f"req_{uuid.uuid4().hex}"

    async def body() -> None:
        async with served(cli, svc_mcp, person=person) as (session, _):
            capped = await session.call_tool("submit_task", _args(rid, unique_email()))
            assert capped.is_error and "daily_cap" in _text(capped), _text(capped)

    run(body)
    assert sandbox.charges_for(rid) == []
    assert person.payment_questions() == [], person.payment_questions()


def test_a_config_that_cannot_be_read_is_one_error_and_the_server_goes_on(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The config path becomes a directory (an unreadable file: the tests run as root, so
    chmod 000 would not stop a read): that call is one clear tool error, no traceback, and the
    server serves again once the file is back."""
    cli.ok("config", "set", "max_price_usd", "1.50")
    config = cli.home / "config" / "config.toml"
    kept = config.read_text()

    async def body() -> None:
        async with served(cli, svc_mcp) as (session, stderr):
            config.unlink()
            config.mkdir()
            broken = await session.call_tool("spend", {})
            assert broken.is_error and "cannot read config file" in _text(broken), _text(broken)
            again = await session.call_tool("list_tasks", {})
            assert again.is_error  # read again at each call: still the same one error
            config.rmdir()
            config.write_text(kept)
            mended = await session.call_tool("spend", {})
            assert not mended.is_error, mended.content
            assert "Traceback" not in stderr.read_text()

    run(body)


def test_a_config_file_gone_for_a_moment_does_not_lift_the_persons_limits(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """The person's file says at most 1.00 USD a call and 1.00 a day; the server pre-approves
    small calls from its environment. While the file is away (an editor's save that renames
    the old file first, a sync tool, a `mv` to edit it elsewhere), a call is served with the
    built-in defaults (1.50 USD a call, 15 a day): a task the person's limits refuse is paid.
    A running paying server should keep the last limits it read (or refuse), not drop them."""
    cli.ok("config", "set", "max_price_usd", "1.00")
    cli.ok("config", "set", "daily_cap_usd", "1.00")
    config = cli.home / "config" / "config.toml"
    rids = [f"req_{uuid.uuid4().hex}" for _ in range(2)]
    env = {"SVC_MCP_PREAPPROVED_USD": "5.00"}

    async def body() -> None:
        async with served(cli, svc_mcp, env=env) as (session, _):
            refused = await session.call_tool("submit_task", _args(rids[0], unique_email()))
            assert refused.is_error and "above the limit" in _text(refused), _text(refused)
            aside = config.with_suffix(".toml~")
            shutil.move(config, aside)  # the moment the file is away
            try:
                during = await session.call_tool("submit_task", _args(rids[1], unique_email()))
            finally:
                shutil.move(aside, config)
            assert during.is_error, "paid 1.50 USD past the person's 1.00 USD limit"

    run(body)
    assert sandbox.charges_for(rids[0]) == []
    assert sandbox.charges_for(rids[1]) == [], "charged while the config file was away"


def test_a_slow_payer_and_concurrent_same_request_calls_ask_once_and_pay_once(
    cli: Cli, sandbox: Sandbox, svc_mcp: list[str]
) -> None:
    """Two submit_task calls with one request id at once, the person slower than a call: both
    end awaiting_person (nothing signed, nothing held on the daily cap), the person sees one
    form, and the call after the answer pays once; a fourth is a replay, not a charge."""
    person = SlowPerson(7.0, pay=True)
    rid = f"req_{uuid.uuid4().hex}"
    args = _args(rid, unique_email())
    firsts: list[Any] = []

    async def body() -> None:
        scaled = {"SVC_TEST_MCP_TIME_SCALE": "0.1"}  # a call waits 4.5 s for the person
        async with served(cli, svc_mcp, person=person, env=scaled) as (session, stderr):

            async def one() -> None:
                firsts.append(await session.call_tool("submit_task", args))

            async with anyio.create_task_group() as group:
                group.start_soon(one)
                group.start_soon(one)
            for first in firsts:
                assert first.is_error and "awaiting_person" in _text(first), _text(first)
            assert sandbox.charges_for(rid) == []
            proc_cli = cli.as_process()  # beside the server: a process of its own
            rows = await anyio.to_thread.run_sync(lambda: proc_cli.ok("tasks", "--json").json())
            assert [(r["request_id"], r["has_proof"]) for r in rows] == [(rid, False)], rows
            spend = await anyio.to_thread.run_sync(lambda: proc_cli.ok("spend", "--json").json())
            assert spend["outstanding"] == [] and spend["paid_count"] == 0, spend
            await anyio.sleep(3.5)  # the person ticks Pay meanwhile
            paid = await session.call_tool("submit_task", args)
            assert not paid.is_error, paid.content
            replay = await session.call_tool("submit_task", args)
            assert not replay.is_error and "not charged again" in _text(replay), _text(replay)
            assert "Traceback" not in stderr.read_text()

    run(body)
    assert len(person.payment_questions()) == 1, person.payment_questions()
    assert len(sandbox.charges_for(rid)) == 1


def test_a_session_closed_with_its_form_open_leaves_nothing_to_the_next(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer
) -> None:
    """Over --http: host A's call ends awaiting_person with the form open, and host A goes away
    (DELETE). Host B, same token and the same request id, is asked by its own form (a "no"
    here) and nothing is paid; the server then stops promptly and cleanly with A's question
    never answered."""
    cli.env["SVC_TEST_MCP_TIME_SCALE"] = "0.1"
    never = SlowPerson(3600.0, pay=True)
    declines = Person(pay=False)
    rid = f"req_{uuid.uuid4().hex}"
    args = _args(rid, unique_email())
    with http_server(cli, fork_server) as served_http:
        token = served_http.token or token_of(cli)

        async def body() -> None:
            async with _client(served_http, token, mode="legacy", elicitation_callback=never) as a:
                first = await a.call_tool("submit_task", args)
                assert first.is_error and "awaiting_person" in _text(first), _text(first)
            async with _client(
                served_http, token, mode="legacy", elicitation_callback=declines
            ) as b:
                second = await b.call_tool("submit_task", args)
                assert second.is_error and "payment_not_approved" in _text(second), _text(second)

        run(body)
        began = time.monotonic()
        served_http.proc.send_signal(signal.SIGINT)
        served_http.proc.wait(timeout=30)
        stopped = time.monotonic() - began
    assert stopped < 5, stopped
    assert len(declines.payment_questions()) == 1
    assert sandbox.charges_for(rid) == []


def test_a_stop_with_a_form_open_in_a_live_session_is_prompt_and_clean(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer
) -> None:
    """A 2025 client still connected, its person's form open (the call already ended
    awaiting_person): Ctrl-C stops the server within a few seconds, with no traceback."""
    cli.env["SVC_TEST_MCP_TIME_SCALE"] = "0.1"
    never = SlowPerson(3600.0, pay=True)
    rid = f"req_{uuid.uuid4().hex}"
    stopped: list[float] = []
    with http_server(cli, fork_server) as served_http:
        token = served_http.token or token_of(cli)

        async def body() -> None:
            async with _client(served_http, token, mode="legacy", elicitation_callback=never) as a:
                first = await a.call_tool("submit_task", _args(rid, unique_email()))
                assert first.is_error and "awaiting_person" in _text(first), _text(first)
                began = time.monotonic()
                served_http.proc.send_signal(signal.SIGINT)
                await anyio.to_thread.run_sync(lambda: served_http.proc.wait(timeout=30))
                stopped.append(time.monotonic() - began)

        with contextlib.suppress(Exception):  # the client may see its server go
            run(body)
    assert stopped and stopped[0] < 5, stopped
    assert sandbox.charges_for(rid) == []


def test_the_session_surface_answers_strays_and_survives(cli: Cli, fork_server: ForkServer) -> None:
    """DELETE or GET of an unknown session, a request in no session, a GET event stream per
    session and a DELETE that ends it: plain HTTP answers, and the server serves on."""
    with http_server(cli, fork_server) as served_http:
        auth = {**HEADERS, "authorization": f"Bearer {served_http.token or token_of(cli)}"}
        unknown = {**auth, "mcp-session-id": uuid.uuid4().hex, "mcp-protocol-version": "2025-11-25"}
        assert httpx.delete(served_http.url, headers=unknown, timeout=10).status_code == 404
        assert httpx.post(served_http.url, json=tools_list(1), headers=unknown).status_code == 404
        no_session = {**auth, "mcp-protocol-version": "2025-11-25"}
        stray = httpx.post(served_http.url, json=tools_list(2), headers=no_session, timeout=10)
        assert stray.status_code == 400, stray.text
        headers = session_headers(served_http)
        get = {**headers, "accept": "text/event-stream"}
        with httpx.stream("GET", served_http.url, headers=get, timeout=10) as stream:
            assert stream.status_code == 200, stream.read()
            listed = httpx.post(served_http.url, json=tools_list(3), headers=headers, timeout=10)
            assert listed.status_code == 200, listed.text
            ended = httpx.delete(served_http.url, headers=headers, timeout=10)
            assert ended.status_code == 200, ended.text
        again = httpx.post(served_http.url, json=tools_list(4), headers=headers, timeout=10)
        assert again.status_code == 404
        fresh = session_headers(served_http)
        assert httpx.post(served_http.url, json=tools_list(5), headers=fresh).status_code == 200


def test_over_http_a_pay_given_in_a_closed_session_is_not_another_sessions(
    cli: Cli, sandbox: Sandbox, fork_server: ForkServer
) -> None:
    """Host A's person ticks Pay after A's call ended awaiting_person, and A goes away (DELETE)
    without calling again. Host B, same token and request id, is asked by its own form (a
    "no": nothing paid): A's answer died with A's session (before 7d11743 it was kept under
    id(connection), which a later session's connection can reuse). Then host C, slow as well,
    resumes in its own session and pays once, asked once."""
    cli.env["SVC_TEST_MCP_TIME_SCALE"] = "0.1"  # a call waits 4.5 s for the person
    host_a, host_b, host_c = SlowPerson(7.0, pay=True), Person(pay=False), SlowPerson(7.0)
    rid = f"req_{uuid.uuid4().hex}"
    args = _args(rid, unique_email())
    with http_server(cli, fork_server) as served_http:
        token = served_http.token or token_of(cli)

        async def body() -> None:
            async with _client(served_http, token, mode="legacy", elicitation_callback=host_a) as a:
                first = await a.call_tool("submit_task", args)
                assert first.is_error and "awaiting_person" in _text(first), _text(first)
                await anyio.sleep(4.0)  # A's person ticks Pay; A's agent never calls again
            async with _client(served_http, token, mode="legacy", elicitation_callback=host_b) as b:
                other = await b.call_tool("submit_task", args)
                assert other.is_error and "payment_not_approved" in _text(other), _text(other)
            assert sandbox.charges_for(rid) == []
            async with _client(served_http, token, mode="legacy", elicitation_callback=host_c) as c:
                slow = await c.call_tool("submit_task", args)
                assert slow.is_error and "awaiting_person" in _text(slow), _text(slow)
                await anyio.sleep(3.5)
                paid = await c.call_tool("submit_task", args)
                assert not paid.is_error, paid.content

        run(body)
    assert len(host_a.payment_questions()) == 1 and len(host_b.payment_questions()) == 1
    assert len(host_c.payment_questions()) == 1
    assert len(sandbox.charges_for(rid)) == 1


def test_a_stdio_host_that_hangs_up_with_a_form_open_ends_the_server_at_once(cli: Cli) -> None:
    """Raw stdio: the host declares forms, gets the "Pay?" request, never answers it; the
    call ends awaiting_person; the host closes the pipe. The server must end by itself within
    a couple of seconds (not after the question's 10 minutes), exit 0, with no traceback."""
    import json
    import subprocess

    from tests.conftest import SVC
    from tests.mcp_wire import INITIALIZED, initialize

    env = {**cli.env, "SVC_TEST_MCP_TIME_SCALE": "0.1"}
    err = cli.home / "stdio-hangup.txt"
    hello = initialize("hangs-up")
    hello["params"]["capabilities"] = {"elicitation": {"form": {}}}
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {
            "name": "submit_task",
            "arguments": _args(f"req_{uuid.uuid4().hex}", unique_email()),
        },
    }
    with err.open("w") as stderr:
        proc = subprocess.Popen(
            [SVC, "mcp"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for message in (hello, INITIALIZED, call):
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(json.loads(line))
            if seen[-1].get("id") == 2 and "result" in seen[-1]:
                break
        asked = [m for m in seen if m.get("method") == "elicitation/create"]
        assert len(asked) == 1, seen
        result = seen[-1]["result"]
        assert result.get("isError") and "awaiting_person" in json.dumps(result), seen[-1]
        began = time.monotonic()
        proc.stdin.close()  # the host hangs up with the form open
        code = proc.wait(timeout=30)
        took = time.monotonic() - began
    finally:
        if proc.poll() is None:
            proc.kill()
    said = err.read_text()
    assert code == 0 and took < 3, (code, took, said)
    assert "Traceback" not in said, said
