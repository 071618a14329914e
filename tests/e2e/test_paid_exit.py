"""Once a request is paid, no exit code says "nothing was charged" (issue 29.1).

Codes 2, 5 and 9 promise a script that nothing was sent or charged; a script that trusts them
pays again. Each paying path (submit, --wait, a batch, svc pay card, MCP's submit_task) is
driven into a failure after its payment, and the exit code must be one that cannot be read
that way: 1 with the paid task named, or 10 when the outcome is unknown.
"""

from __future__ import annotations

import signal

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_payments import card_link, press_pay

pytestmark = pytest.mark.e2e

NOTHING_CHARGED = (2, 5, 9)


def test_submit_wait_whose_polls_then_fail_is_not_exit_2(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    sandbox.faults({"kind": "status", "status": 400, "method": "GET", "path": "/svc/tasks/"})
    result = cli(
        "submit", "Slow one #slow", "--email", unique_email(), "--request-id", rid, "--wait"
    )
    assert len(sandbox.charges_for(rid)) == 1
    assert result.returncode == 1, result.stderr
    task_id = sandbox.charges_for(rid)[0]["task_id"]
    assert f"this run paid for task {task_id}" in result.stderr
    assert f"svc watch {task_id}" in result.stderr and "exit 1, not 2" in result.stderr
    error = result.lines()[-1]
    assert error["exit_code"] == 1
    assert error["paid"] == [{"request_id": rid, "task_id": task_id}]


def test_a_resumed_paid_request_that_then_fails_says_an_earlier_run_paid(
    cli: Cli, sandbox: Sandbox
) -> None:
    """A resume finds the request accepted: nothing is paid now, yet the task is money, so a
    later failure is still not 'nothing charged', and the words say which run paid."""
    rid, email = unique_request_id(), unique_email()
    cli.ok("submit", "Slow one #slow", "--email", email, "--request-id", rid)
    task_id = sandbox.charges_for(rid)[0]["task_id"]
    sandbox.faults({"kind": "status", "status": 400, "method": "GET", "path": "/svc/tasks/"})
    result = cli("submit", "Slow one #slow", "--email", email, "--request-id", rid, "--wait")
    assert len(sandbox.charges_for(rid)) == 1
    assert result.returncode == 1, result.stderr
    assert f"task {task_id} was paid for by an earlier run" in result.stderr
    assert "this run paid" not in result.stderr and "exit 1, not 2" in result.stderr
    error = result.lines()[-1]
    assert error["paid"] == [{"request_id": rid, "task_id": task_id, "earlier": True}]


def test_a_bad_interval_is_refused_before_anything_is_paid(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    result = cli(
        "submit", "Any #complete", "--email", unique_email(), "--request-id", rid,
        "--wait", "--interval", "0",
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "--interval must be a number of seconds from 1 to 3600" in result.stderr
    assert sandbox.charges_for(rid) == []


def test_pay_card_then_a_failing_jq_is_not_exit_2(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    email = unique_email()
    waiting = cli(
        "submit", "Card #complete", "--email", email, "--pay", "card", "--request-id", rid
    )
    assert waiting.returncode == 6, waiting.stderr
    press_pay(card_link(cli, rid))
    result = cli("pay", "card", rid, "--jq", 'error("boom")')
    assert len(sandbox.charges_for(rid)) == 1
    assert result.returncode not in NOTHING_CHARGED, result.stderr
    assert result.stdout == ""


def test_cancelling_the_review_inside_submit_wait_is_not_exit_2(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    args = ["submit", "Form please #questions", "--email", unique_email(), "--request-id", rid]
    child = pexpect.spawn(
        SVC,
        [*args, "--wait", "--interval", "1"],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 160),
    )
    sandbox.advance(11)
    # Each of the form's own prompts, in order, then the review. (A loose `\)\s*$` once matched
    # the `billing: ... (payment pay_...)` line: a "1" typed before the form opened answered
    # the first question and the last "n" edited a row instead of cancelling.)
    for prompt in (r"shipping_address: $", r"phone: $", r"\(window/aisle\): $"):
        child.expect(prompt, timeout=30)
        child.sendline("1")
    child.expect(r"Send this answer\? \(Y: send, e: edit, n: cancel\): $", timeout=30)
    child.sendline("n")
    child.expect(pexpect.EOF, timeout=30)
    child.close()
    screen = child.before or ""
    assert len(sandbox.charges_for(rid)) == 1
    assert child.exitstatus == 1, screen
    assert "reply not sent: cancelled at the review" in screen
    assert "this run paid for task" in screen


def test_sigterm_in_a_paid_wait_is_143_and_names_the_task(cli: Cli, sandbox: Sandbox) -> None:
    rid = unique_request_id()
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(
        SVC,
        ["submit", "Slow #slow", "--email", unique_email(), "--request-id", rid, "--wait"],
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 160),
    )
    child.expect("created")  # paid and followed: the watch is drawing
    child.kill(signal.SIGTERM)
    child.expect(pexpect.EOF, timeout=15)
    child.close()
    assert child.exitstatus == 143, (child.exitstatus, child.signalstatus, child.before)
    task_id = sandbox.charges_for(rid)[0]["task_id"]
    assert f"svc watch {task_id}" in (child.before or "")
