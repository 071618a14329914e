"""The fault matrix (issue 6.2): every sandbox fault switch against every command.

Each row runs the installed `svc` against the sandbox with one fault queued for the request the
command cares about (for submit and quote: the paid retry, the one that costs money), and
checks the contract: the exit code, exactly one `svc:` line on stderr (never a traceback), and
nothing lost (the books charge a submit at most once and a resume finds the task; a reply that
may have been applied is not re-sent blindly). The rows become the table in
docs/reliability.md.

Reads retry (bounded); writes retry only what cannot have been applied (503, 429, refused).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from tests.conftest import Cli, Result, Sandbox, unique_email
from tests.reliability_report import record

pytestmark = pytest.mark.e2e

TIMEOUT = "1"  # SVC_TIMEOUT for every row: the delay fault outlasts it
ENV = {"SVC_TIMEOUT": TIMEOUT, "SVC_MAX_RESPONSE_BYTES": str(4 * 1024 * 1024)}

FAULTS: dict[str, dict[str, Any]] = {
    "drop before": {"kind": "drop_before"},
    "drop after": {"kind": "drop_after"},
    "HTTP 500": {"kind": "status", "status": 500},
    "HTTP 500 x4 (persistent)": {"kind": "status", "status": 500, "count": 4},
    "HTTP 503": {"kind": "status", "status": 503},
    "HTTP 429 Retry-After 1": {"kind": "status", "status": 429, "retry_after": 1},
    "slow beyond timeout": {"kind": "delay", "seconds": 2.5},
    "truncated JSON": {"kind": "truncate"},
    "malformed JSON": {"kind": "malformed_json"},
    "wrong content type": {"kind": "wrong_content_type"},
    "oversized body": {"kind": "oversized", "size_bytes": 8 * 1024 * 1024},
    "unknown state/event": {"kind": "unknown_state"},
}

# Expected exit codes. Reads retry everything transient; the paid submit re-sends its proof
# and an unreadable answer to it is "outcome unknown" (10, resumable); a reply is not re-sent
# once it may have been applied (9, "may or may not have been applied").
READ = {
    "drop before": 0,
    "drop after": 0,
    "HTTP 500": 0,
    "HTTP 500 x4 (persistent)": 9,
    "HTTP 503": 0,
    "HTTP 429 Retry-After 1": 0,
    "slow beyond timeout": 0,
    "truncated JSON": 1,
    "malformed JSON": 1,
    "wrong content type": 1,
    "oversized body": 1,
    "unknown state/event": 0,
}
PAID = {
    **READ,
    "HTTP 500 x4 (persistent)": 10,
    "truncated JSON": 10,
    "malformed JSON": 10,
    "wrong content type": 10,
    "oversized body": 10,
}
GUIDE = {**READ, "wrong content type": 0}  # a non-JSON guide is shown as text, by design
# A 503 on the quote is the advisor unavailable: the wallet-free guide in its place, and exit
# 9 so that no script takes it for a quote (issue 52).
QUOTE = {**READ, "HTTP 503": 9}
WRITE = {**READ, "drop before": 9, "drop after": 9, "HTTP 500": 9, "slow beyond timeout": 9}


@dataclass
class Command:
    name: str
    target: dict[str, Any]  # method/path/header of the request the fault hits
    expected: dict[str, int]
    setup: Callable[[Cli, Sandbox], str]  # fault-free preparation; returns the argument
    args: Callable[[str], list[str]]
    input: str | None = None


def _none(cli: Cli, sandbox: Sandbox) -> str:
    return f"req_{uuid.uuid4().hex}"


def _task(cli: Cli, text: str) -> str:
    rid = f"req_{uuid.uuid4().hex}"
    return str(cli.ok("submit", text, "--email", unique_email(), "--request-id", rid).json()["id"])


def _live_task(cli: Cli, sandbox: Sandbox) -> str:
    return _task(cli, "Matrix poll #complete")


def _done_task(cli: Cli, sandbox: Sandbox) -> str:
    task_id = _task(cli, "Matrix watch #complete")
    sandbox.advance(25)
    return task_id


def _asking_task(cli: Cli, sandbox: Sandbox) -> str:
    task_id = _task(cli, "Matrix reply #2fa")
    sandbox.advance(11)
    return task_id


def submit_args(rid: str) -> list[str]:
    return [
        "submit",
        "Matrix #complete",
        "--email",
        f"m-{rid[-10:]}@example.com",
        "--request-id",
        rid,
    ]


COMMANDS = [
    Command(
        "submit (paid retry)",
        {"method": "POST", "path": "/svc/tasks", "header": "x-payment"},
        PAID,
        _none,
        submit_args,
    ),
    Command(
        "poll", {"method": "GET", "path": "/svc/tasks/"}, READ, _live_task, lambda t: ["poll", t]
    ),
    Command(
        "watch",
        {"method": "GET", "path": "/svc/tasks/"},
        READ,
        _done_task,
        lambda t: ["watch", t, "--interval", "1"],
    ),
    Command(
        "reply",
        {"method": "POST", "path": "/svc/tasks/"},
        WRITE,
        _asking_task,
        lambda t: ["reply", t, "--field", "sms_code", "--value-file", "-", "--sensitive"],
        input="123456\n",
    ),
    Command(
        "quote (paid retry)",
        {"method": "POST", "path": "/svc/agent/quote", "header": "payment-signature"},
        QUOTE,
        _none,
        lambda _: ["quote", "Book a table for two #ready"],
    ),
    Command(
        "guide",
        {"path": "/svc/agent/guide"},
        GUIDE,
        _none,
        lambda _: ["guide", "Book a table for two"],
    ),
    Command(
        "api search",
        {"method": "GET", "path": "/openapi.json"},
        READ,
        _none,
        lambda _: ["api", "search", "task"],
    ),
    Command(
        "identity register",
        {"method": "POST", "path": "/auth/agent/identity"},
        WRITE,
        _none,
        lambda _: ["identity", "register", "--anonymous"],
    ),
]
ROWS = [(f, c) for c in COMMANDS for f in FAULTS]


def _outcome(
    sandbox: Sandbox, cli: Cli, cmd: Command, fault: str, rid: str, result: Result, expected: int
) -> tuple[bool, str, int]:
    """Check 'nothing lost'; a short description and the number of charges beyond one."""
    if not cmd.name.startswith("submit"):
        if result.returncode == 0:
            return True, "retried" if expected == 0 and fault in _TRANSIENT else "served", 0
        return True, "one clear line", 0
    charges = len(sandbox.charges_for(rid))
    if result.returncode == 0:
        return charges == 1, f"{charges} charge", max(0, charges - 1)
    # Not done: a resume with the same request id reaches the one task, charged once.
    sandbox.clear_faults()
    resumed = cli(*submit_args(rid))
    charges = len(sandbox.charges_for(rid))
    ok = resumed.returncode == 0 and charges == 1
    return ok, f"resumed: exit {resumed.returncode}, {charges} charge", max(0, charges - 1)


_TRANSIENT = {
    "drop before",
    "drop after",
    "HTTP 500",
    "HTTP 503",
    "HTTP 429 Retry-After 1",
    "slow beyond timeout",
}


@pytest.mark.parametrize(("fault", "cmd"), ROWS, ids=[f"{c.name}-{f}" for f, c in ROWS])
def test_fault_against_command(cli: Cli, sandbox: Sandbox, fault: str, cmd: Command) -> None:
    arg = cmd.setup(cli, sandbox)
    rid = arg
    sandbox.faults({**cmd.target, **FAULTS[fault]})
    result = cli(*cmd.args(arg), input=cmd.input, env=ENV)
    sandbox.clear_faults()
    expected = cmd.expected[fault]
    errors = [line for line in result.stderr.splitlines() if line.startswith("svc:")]
    one_line = len(errors) == (0 if result.returncode == 0 else 1)
    ok, outcome, doubles = _outcome(sandbox, cli, cmd, fault, rid, result, expected)
    passed = result.returncode == expected and one_line and ok and "Traceback" not in result.stderr
    if result.returncode == 0 and fault == "unknown state/event" and cmd.name in ("poll", "watch"):
        outcome = "unknown state shown, kept watching" if cmd.name == "watch" else "shown as is"
    record(
        "fault_matrix",
        f"{COMMANDS.index(cmd):02d}.{list(FAULTS).index(fault):02d}",
        {
            "fault": fault,
            "command": cmd.name,
            "expected": expected,
            "observed": result.returncode,
            "outcome": outcome if passed else f"{outcome}; stderr: {errors[:1]}",
            "faults": int(FAULTS[fault].get("count", 1)),
            "double_charges": doubles,
            "passed": passed,
        },
        expected=len(ROWS),
    )
    assert result.returncode == expected, (result.returncode, result.stderr)
    assert one_line, result.stderr
    assert ok, outcome
