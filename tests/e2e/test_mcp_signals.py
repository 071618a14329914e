"""Every terminating signal is a Ctrl-C, for a serving `svc mcp` too (issue 29.3).

A host keeps the server's stdin open for as long as it uses it, so a server that answered
`initialize` sits in a read of stdin when the signal comes. It must still end promptly: the
interrupt line on stderr, 128 + the signal, no traceback. These tests talk to the installed
script (exec'd, never forked: the reader thread must be the real one) and signal it only
after a full exchange (`initialize`, `notifications/initialized`, `tools/list`), so the
stdin reader is running; they keep stdin open throughout.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import uuid
from typing import Any

import httpx
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_mcp_http import HEADERS, INIT, LIST, _wait_for
from tests.ledger_reads import ledger_file, submission_row
from tests.mcp_wire import INITIALIZED, initialize, tools_list

pytestmark = pytest.mark.e2e

SIGNALS = ("TERM", "HUP", "INT")
PROMPTLY = 15  # seconds: bounded, but generous for a loaded machine

HELLO = initialize("signals")
TOOLS_LIST = tools_list(2)


def _stdio_server(cli: Cli) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [SVC, "mcp"],
        env=cli.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stopped(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    assert proc.stdin is not None
    proc.stdin.close()


def _exchange(proc: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any] | None:
    """Send one message; read the answer of a request (a notification has none)."""
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    if "id" not in message:
        return None
    answer = json.loads(proc.stdout.readline())
    assert answer.get("id") == message["id"], answer
    assert "result" in answer, answer
    return dict(answer)


def _ended(proc: subprocess.Popen[str], signum: int) -> tuple[int, str]:
    """Exit code and stderr, or the test fails (and the server is killed) past PROMPTLY."""
    try:
        code = proc.wait(timeout=PROMPTLY)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"svc mcp still running {PROMPTLY} s after {signal.Signals(signum).name}")
    assert proc.stderr is not None
    return code, proc.stderr.read()


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_ends_a_stdio_server_that_is_reading_stdin(cli: Cli, name: str) -> None:
    signum = getattr(signal, f"SIG{name}")
    proc = _stdio_server(cli)
    try:
        hello = _exchange(proc, HELLO)
        assert hello is not None and hello["result"]["serverInfo"]["name"] == "svc"
        _exchange(proc, INITIALIZED)
        tools = _exchange(proc, TOOLS_LIST)
        assert tools is not None and tools["result"]["tools"]
        proc.send_signal(signum)  # stdin stays open, as a host keeps it
        code, err = _ended(proc, signum)
    finally:
        _stopped(proc)
    assert code == 128 + signum, (code, err)
    assert "interrupted" in err, err
    assert "Traceback" not in err, err


def test_sigterm_during_a_paid_call_keeps_its_record_and_it_is_never_paid_twice(
    cli: Cli, sandbox: Sandbox
) -> None:
    """The paid call runs in a worker thread: the signal stops the server, which waits for
    that call to end, so a payment made is in the ledger; the same request id, submitted again
    to a new server, is not charged again."""
    cli.ok("config", "set", "mcp_preapproved_usd", "1.50")  # no elicitation on raw JSON-RPC
    # Both POSTs (the challenge and the paid one) answer 3 s late: the signal lands while the
    # proof is out (`_until_sent`), however loaded the machine.
    delayed = {"kind": "delay", "seconds": 3, "method": "POST", "path": "/svc/tasks", "count": 2}
    sandbox.faults(delayed)
    rid = unique_request_id()
    submit = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {
            "name": "submit_task",
            "arguments": {
                "task": "Signal mid-call #complete",
                "email": unique_email(),
                "request_id": rid,
            },
        },
    }
    proc = _stdio_server(cli)
    try:
        _exchange(proc, HELLO)
        _exchange(proc, INITIALIZED)
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(submit) + "\n")
        proc.stdin.flush()
        _until_sent(cli, rid)  # the proof has left; its answer is delayed by the sandbox
        proc.send_signal(signal.SIGTERM)
        code, err = _ended(proc, signal.SIGTERM)
    finally:
        _stopped(proc)
    sandbox.clear_faults()
    assert code == 143, (code, err)
    assert "interrupted" in err and "Traceback" not in err, err
    charged = len(sandbox.charges_for(rid))
    recorded = rid in json.dumps(cli.ok("tasks", "--json").json())
    assert charged == 1 and recorded, (charged, recorded, err)  # paid, and its record kept
    again = _stdio_server(cli)  # the same request id again: at most the one charge
    try:
        _exchange(again, HELLO)
        _exchange(again, INITIALIZED)
        answer = _exchange(again, submit)
        assert answer is not None and not answer["result"].get("isError"), answer
    finally:
        assert again.stdin is not None
        again.stdin.close()
        again.wait(timeout=PROMPTLY)
    assert len(sandbox.charges_for(rid)) == 1


@pytest.mark.parametrize("name", SIGNALS)
def test_a_signal_ends_an_http_server_after_a_session(cli: Cli, name: str) -> None:
    """Its own start (not test_mcp_http's `http_server`, whose exit check knows no SIGHUP):
    a fresh home, so the token is made and printed; one keep-alive connection stays open."""
    signum = getattr(signal, f"SIG{name}")
    stderr = cli.home / f"http-stderr-{uuid.uuid4().hex[:8]}.txt"
    with stderr.open("w") as errlog:
        proc = subprocess.Popen(
            [SVC, "mcp", "--http", "--port", "0"],
            env=cli.env,
            stdout=subprocess.PIPE,
            stderr=errlog,
            text=True,
        )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip().removeprefix("MCP_URL=")
        token = proc.stdout.readline().strip().removeprefix("MCP_TOKEN=")
        _wait_for(stderr, "serving MCP over HTTP")
        auth = {**HEADERS, "authorization": f"Bearer {token}"}
        with httpx.Client(timeout=10) as client:
            hello = client.post(url, json=INIT, headers=auth)
            assert hello.status_code == 200, hello.text
            auth["mcp-session-id"] = hello.headers["mcp-session-id"]  # a 2025 client's session
            listed = client.post(url, json=LIST, headers=auth)
            assert listed.status_code == 200, listed.text
            proc.send_signal(signum)
            try:
                code = proc.wait(timeout=PROMPTLY)
            except subprocess.TimeoutExpired:
                pytest.fail(f"svc mcp --http still running {PROMPTLY} s after SIG{name}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = stderr.read_text()
    assert code == 128 + signum, (code, err)
    assert "interrupted" in err, err
    assert "Traceback" not in err, err


def _until_sent(cli: Cli, request_id: str) -> None:
    """The ready marker of a signal mid-payment: the journal says the proof was sent."""
    deadline = time.monotonic() + 30
    while submission_row(ledger_file(cli.home), request_id).get("status") != "sent":
        assert time.monotonic() < deadline, submission_row(ledger_file(cli.home), request_id)
        time.sleep(0.02)


def test_sigterm_while_the_person_is_asked_for_a_secret_ends_the_server_promptly(
    cli: Cli, sandbox: Sandbox
) -> None:
    """reply_to_task waits on the person's 2FA code (an elicitation the host never answers):
    the engine asks from its worker thread, and a signal must still end the server at once,
    with nothing sent."""
    task_id = cli.ok("submit", "Signal mid-ask #2fa", "--email", unique_email()).json()["id"]
    sandbox.advance(11)  # the sandbox asks for the code 10 s after creation
    hello = initialize("signals")
    hello["params"]["capabilities"] = {"elicitation": {"form": {}}}
    reply = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": "reply_to_task", "arguments": {"task_id": task_id, "field": "sms_code"}},
    }
    proc = _stdio_server(cli)
    try:
        _exchange(proc, hello)
        _exchange(proc, INITIALIZED)
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(reply) + "\n")
        proc.stdin.flush()
        asked = json.loads(proc.stdout.readline())  # the server's elicitation, left unanswered
        assert asked.get("method") == "elicitation/create", asked
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code, err = _ended(proc, signal.SIGTERM)
    finally:
        _stopped(proc)
    assert code == 143, (code, err)
    assert time.monotonic() - started < 10, err
    assert "Traceback" not in err, err
    events = cli.ok("poll", task_id, "--json").json()["events"]
    assert not [e for e in events if e["type"] == "reply_received"]  # nothing was sent
