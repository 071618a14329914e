"""Every code of the spec's "Payment and access codes" and "Identity flow codes" tables, served
by the sandbox, drives the `svc` executable to the contract's exit code and an actionable hint
(issue 25, item 1).

Codes a real sandbox flow reaches are driven that way where one exists (the payment codes by a
payment fault on the paid path; most identity codes by the real refusals in test_identity.py,
named for them in tests/fidelity_registry.py). The rest no real flow brings `svc` to (a plan
purchase the sandbox does not sell, a malformed header `svc` never sends, a token exchange
`svc` always words right), so a `code` fault answers them as the real route would. Each hint
needle is the spec's handling column in a few words, not a copy of svc's table: a row fails
when the hint stops saying what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from tests.conftest import Cli, Result, Sandbox, unique_email, unique_request_id
from tests.ledger_reads import ledger_file, opened

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]
rid = unique_request_id


def one_error(result: Result, exit_code: int, code: str) -> str:
    """The error line names the code, the next line is the hint; the JSON says the same."""
    assert result.returncode == exit_code, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("svc: "))
    assert code in lines[at], result.stderr
    assert lines[at + 1 :] and lines[at + 1].startswith("hint: "), result.stderr
    doc = result.json()
    assert doc["error"] == code and doc["exit_code"] == exit_code
    assert doc["hint"] == lines[at + 1].removeprefix("hint: ")
    return lines[at + 1]


def submit(cli: Cli, request_id: str, task: str = "Book it #complete") -> Result:
    email = f"user-{request_id[-12:]}@example.com"
    return cli("submit", task, "--email", email, "--request-id", request_id, "--pay", "x402")


# --- access codes no sandbox flow reaches: a `code` fault on the route ---------------------


@dataclass
class Row:
    code: str
    path: str  # the route the fault answers on
    exit_code: int
    needle: str | None  # what the hint must say; None: only that there is one
    reason: str | None = None
    registered: bool = False  # an agent credential first, so a bearer goes with the call
    args: list[str] = field(default_factory=list)  # the command (default: a paid submit)


ACCESS = [
    Row("invalid_request", "/svc/tasks", 2, "could not be read"),
    Row("payg_not_purchasable", "/svc/tasks", 2, "no plan"),
    Row("seller_not_found", "/svc/tasks", 7, "--base-url"),
    Row("plan_not_found", "/svc/tasks", 7, "svc manifest"),
    Row("signing_secret_required", "/svc/tasks", 8, "setup is unfinished"),
    Row("bearer_required", "/svc/tasks", 4, "svc identity register"),
    # A credential the service keeps refusing: both ways out, as doctor says (issue 52).
    Row("invalid_token", "/svc/tasks", 4, "or svc identity logout", registered=True),
    *(
        # Each reason its own fix (issue 21.6; errors.INVALID_TOKEN_HINTS). The stale-token
        # reasons are healed first (re-exchange, refresh), then the bearer step gives up.
        Row("invalid_token", "/svc/tasks", 4, needle, reason=reason, registered=True)
        for reason, needle in (
            ("token_expired", "or svc identity logout"),
            ("token_invalid", "or svc identity logout"),
            ("malformed_agent_authorization", "exactly one `Bearer <token>`"),
            ("unrecognized_agent_credential", "--auth-base"),
            ("conflicting_agent_credentials", "two different agent tokens"),
            ("combined_authorization_unsupported", "combined in one Authorization header"),
        )
    ),
    Row(
        "entitlements_not_available",
        "/auth/agent/entitlements",
        1,  # not a failure of the service (no retry, not exit 9): it sells no plans
        "pay as you go",
        registered=True,
        args=["entitlements"],
    ),
    # The identity platform's answers svc's own checks or wording never provoke.
    Row(
        "invalid_request",
        "/auth/oauth2/token",
        4,
        "unreadable; svc identity register --force",
        args=["entitlements"],
    ),
    Row("unsupported_grant_type", "/auth/oauth2/token", 4, "grant", args=["entitlements"]),
    Row(
        "missing_verified_email",
        "/auth/agent/identity",
        4,
        "email_verified",
        args=["identity", "register", "--assertion-file", "-"],
    ),
]


def _access_id(row: Row) -> str:
    return f"{row.code}-{row.reason}" if row.reason else f"{row.code}@{row.path}"


@pytest.mark.parametrize("row", ACCESS, ids=_access_id)
def test_access_code(cli: Cli, sandbox: Sandbox, row: Row) -> None:
    stdin = None
    if row.registered or row.args[:1] == ["entitlements"]:
        cli.ok("identity", "register", "--anonymous")
    if row.args[:2] == ["identity", "register"]:
        stdin = sandbox.admin("POST", "/identity/id-jag", json={"email": unique_email()})
        stdin = stdin["assertion"]
    fault: dict[str, Any] = {"kind": "code", "code": row.code, "path": row.path, "count": 1}
    if row.reason:
        fault["reason"] = row.reason
    if row.exit_code == 4:
        fault["count"] = 5  # svc re-exchanges a refused token once: refuse the retry too
    sandbox.faults(fault)
    request_id = rid()
    result = cli(*row.args, input=stdin) if row.args else submit(cli, request_id)
    hint = one_error(result, row.exit_code, row.code)
    if row.needle:
        assert row.needle in hint, hint
    if row.reason:
        assert row.reason in result.stderr and result.json()["reason"] == row.reason
    assert sandbox.charges_for(request_id) == []  # none of them costs anything


def test_entitlements_not_available_is_not_retried(cli: Cli, sandbox: Sandbox) -> None:
    """A 501 is an answer, not an outage: one request, then the hint (a retry could only
    hear it again; the spec's 'back off and retry' is for failures that may pass)."""
    cli.ok("identity", "register", "--anonymous")
    path = "/auth/agent/entitlements"
    fault = {"kind": "code", "code": "entitlements_not_available", "path": path, "count": 3}
    sandbox.faults(fault)
    one_error(cli("entitlements"), 1, "entitlements_not_available")
    # Each request the fault answers uses it up once: 2 of 3 left means one request. (The
    # request log holds only the newest 200, so counting it shifts as old entries fall out.)
    [left] = sandbox.admin("GET", "/faults")["faults"]
    sandbox.clear_faults()
    assert left["count"] == 2, left


# --- payment codes: a payment fault on the paid path ----------------------------------------

# (code, how many paid requests it answers, exit code, hint needle, from the spec's handling)
PAYMENT = [
    ("identity_invalid", 2, 5, "fresh challenge"),
    ("settlement_failed", 2, 5, "fund the wallet"),
    ("payment_refunded", 2, 5, "fresh 402"),
    ("payment_consumed", 2, 5, "fresh 402"),
    ("payment_failed", 2, 5, "fresh 402"),
    ("payment_released", 2, 5, "fresh 402"),
    ("payment_unknown", 1, 5, "new --request-id"),
    ("payment_provider_unavailable", 20, 9, "the same command re-sends it"),
    ("rate_limit_exceeded", 10, 9, "the same command re-sends it"),
    ("payment_request_mismatch", 1, 5, "new --request-id"),
    ("payment_amount_mismatch", 1, 5, "run the submit again"),
    ("usage_not_priced", 1, 8, "report it"),
]


@pytest.mark.parametrize(("code", "count", "exit_code", "needle"), PAYMENT)
def test_payment_code(
    cli: Cli, sandbox: Sandbox, code: str, count: int, exit_code: int, needle: str
) -> None:
    fault: dict[str, Any] = {"code": code, "count": count, "rail": "x402", "retry_after": 0}
    sandbox.admin("POST", "/payment-faults", json={"faults": [fault]})
    request_id = rid()
    hint = one_error(submit(cli, request_id), exit_code, code)
    assert needle in hint, hint
    assert sandbox.charges_for(request_id) == []


def test_payment_incomplete_says_finish_the_page_then_pay_card(cli: Cli, sandbox: Sandbox) -> None:
    request_id = rid()
    args = ("--email", unique_email(), "--request-id", request_id, "--pay", "card")
    assert cli("submit", "Card it #complete", *args).returncode == 6  # the page is waiting
    assert httpx.post(_checkout_link(cli, request_id), data={"action": "pay"}).status_code == 200
    fault = {"code": "payment_incomplete", "count": 2, "rail": "card"}
    sandbox.admin("POST", "/payment-faults", json={"faults": [fault]})
    hint = one_error(cli("pay", "card", request_id), 6, "payment_incomplete")
    assert "svc pay card" in hint, hint
    assert sandbox.charges_for(request_id) == []


def _checkout_link(cli: Cli, request_id: str) -> str:
    with opened(ledger_file(cli.home)) as ledger:
        payment = ledger.card_payment(request_id)
    assert payment is not None, request_id
    return str(payment["checkout_url"])


def test_the_normal_charge_is_paid_once(cli: Cli, sandbox: Sandbox) -> None:
    """The 402 without a reason is the per-call charge: paid, retried once, charged once."""
    request_id = rid()
    result = submit(cli, request_id)
    assert result.returncode == 0, result.stderr
    assert "billing: charged 1.50 USD by x402" in result.stderr
    assert [c["amount_atomic"] for c in sandbox.charges_for(request_id)] == [1_500_000]


def test_svc_sandbox_tags_says_how_to_reach_the_codes(cli: Cli, sandbox: Sandbox) -> None:
    """Each way `svc sandbox tags` offers is one the sandbox accepts, and it serves the code."""
    text = cli.ok("sandbox", "tags").stdout
    ways = cli.ok("--json", "sandbox", "tags").json()["code_faults"]
    assert {w["post"] for w in ways} == {"/_sandbox/faults", "/_sandbox/payment-faults"}
    for way in ways:
        assert way["post"] in text and way["body"] in text
        response = sandbox.client.post(
            sandbox.url + way["post"],
            content=way["body"],
            headers={"Content-Type": "application/json"},
        )
        assert response.status_code == 200, response.text
    hint = one_error(submit(cli, rid()), 7, "plan_not_found")  # the code fault's example
    assert "svc manifest" in hint
    sandbox.admin("DELETE", "/payment-faults")


# --- task statuses no other test brings svc to ------------------------------------------------


def _blocked_task(cli: Cli, sandbox: Sandbox) -> str:
    """A paid task waiting on a plain ask (the #2fa scenario asks after 10 s)."""
    task = submit(cli, rid(), "Log me in #2fa")
    assert task.returncode == 0, task.stderr
    sandbox.advance(11)
    task_id = str(task.json()["id"])
    assert cli.ok("poll", task_id).json()["state"] == "blocked_on_user"
    return task_id


def test_a_reply_answers_the_zero_amount_402_itself(cli: Cli, sandbox: Sandbox) -> None:
    """Reply is free but may ask for a zero-amount proof (402): signed, re-sent, not charged."""
    task_id = _blocked_task(cli, sandbox)
    sandbox.configure(require_agent=True)
    before = len(sandbox.books()["charges"])
    result = cli("reply", task_id, "--field", "sms_code", "--value-file", "-", input="123456\n")
    assert result.returncode == 0, result.stderr
    assert len(sandbox.books()["charges"]) == before
    path = f"/svc/tasks/{task_id}/reply"  # the log is the whole sandbox's, other tests too
    sent = [r for r in sandbox.admin("GET", "/requests")["requests"] if r["path"] == path]
    assert [r["proofs"] for r in sent] == [[], ["x-payment"]]  # the 402, then the signed retry


@pytest.mark.parametrize(("method", "status", "exit_code"), [("GET", 422, 2), ("POST", 401, 4)])
def test_a_poll_422_and_a_reply_401_are_the_contracts_exit(
    cli: Cli, sandbox: Sandbox, method: str, status: int, exit_code: int
) -> None:
    """A 422 on poll is bad input (exit 2); a 401 on reply is an identity failure (exit 4),
    one line each, whatever the body says."""
    task_id = _blocked_task(cli, sandbox)
    sandbox.faults(
        {"kind": "status", "status": status, "method": method, "path": "/svc/tasks/", "count": 5}
    )
    args = ["poll", task_id] if method == "GET" else ["reply", task_id, "--message", "hi"]
    result = cli(*args)
    assert result.returncode == exit_code, result.stderr
    assert str(status) in result.stderr and "Traceback" not in result.stderr
    assert len([line for line in result.stderr.splitlines() if line.startswith("svc: ")]) == 1
