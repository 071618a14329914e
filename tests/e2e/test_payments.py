"""Payments end to end: x402, MPP and card, every payment error code row, the policy, the report.

The installed `svc` against the sandbox; every money claim is checked against the sandbox's books.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conftest import (
    Cli,
    Sandbox,
    _base_env,
    home_with_wallet,
    unique_email,
    unique_request_id,
)
from tests.ledger_reads import ledger_file, opened, submission_row

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]
rid = unique_request_id


def spt() -> str:
    return f"spt_test_{uuid.uuid4().hex}"


def pay_faults(sandbox: Sandbox, *faults: dict[str, Any]) -> None:
    sandbox.admin("POST", "/payment-faults", json={"faults": list(faults)})


def submit(cli: Cli, rail: str, request_id: str, task: str = "Pay me #complete", **kw: Any):
    env = {"SVC_SPT": spt()} if rail == "mpp" else None
    email = f"user-{request_id[-12:]}@example.com"  # the same request id: the same task
    args = ["submit", task, "--email", email, "--request-id", request_id, "--pay", rail]
    return cli(*args, *kw.get("extra", ()), env=kw.get("env", env))


def ledger_row(cli: Cli, request_id: str) -> dict[str, Any]:
    return submission_row(ledger_file(cli.home), request_id)


def card_link(cli: Cli, request_id: str) -> str:
    with opened(ledger_file(cli.home)) as ledger:
        payment = ledger.card_payment(request_id)
    assert payment is not None, request_id
    return str(payment["checkout_url"])


def press_pay(link: str, action: str = "pay") -> str:
    """What a person does in the browser: the hosted page's form post."""
    page = httpx.get(link)
    assert page.status_code == 200 and "<button" in page.text and "Pay" in page.text
    done = httpx.post(link, data={"action": action})
    assert done.status_code == 200
    return done.text


# --- each rail pays a submit --------------------------------------------------------------


def test_mpp_pays_once_with_a_credential_pympp_accepts(cli: Cli, sandbox: Sandbox) -> None:
    r, token = rid(), spt()
    result = submit(cli, "mpp", r, env={"SVC_SPT": token})
    assert result.returncode == 0, result.stderr
    charges = sandbox.charges_for(r)
    assert len(charges) == 1 and charges[0]["method"] == "mpp"
    # The payer shown by the ledger and `svc spend` is a fingerprint: no part of the token.
    fingerprint = "spt:" + hashlib.sha256(token.encode()).hexdigest()[:12]
    assert ledger_row(cli, r)["payer"] == fingerprint
    spent = cli.ok("spend").stdout
    assert fingerprint in spent and token[4:12] not in spent
    assert charges[0]["amount_atomic"] == 1_500_000 and charges[0]["reference"].startswith("pi_")
    assert "billing: charged 1.50 USD by mpp" in result.stderr
    row = ledger_row(cli, r)
    assert row["status"] == "accepted" and row["method"] == "mpp" and row["receipt"]
    # The credential carries the SPT: never in the ledger (only its fingerprint), and gone
    # from the secret store once the outcome is known.
    assert row["proof"] is None and row["proof_fp"]
    assert token not in (cli.home / "data" / "ledger.sqlite3").read_bytes().decode("latin-1")
    assert f"proof:{r}" not in cli.ok("config", "path").stdout
    # A retry re-sends the journaled credential: replayed, not charged again.
    again = cli("submit", "Pay me #complete", "--email", "x@example.com", "--request-id", r)
    assert again.returncode == 2  # a different e-mail is another task: refused before sending
    body = row["body"]
    import json

    doc = json.loads(body)
    again = cli.ok(
        "submit", doc["task"], "--email", doc["email"], "--request-id", r, "--pay", "mpp"
    )
    assert "not charged again" in again.stderr and again.json()["id"] == row["task_id"]
    assert len(sandbox.charges_for(r)) == 1


def test_card_noninteractive_exits_6_then_pay_card_resumes(cli: Cli, sandbox: Sandbox) -> None:
    r = rid()
    first = submit(cli, "card", r)
    assert first.returncode == 6
    assert "card" in first.stderr and "/checkout" in first.stderr and "svc pay card" in first.stderr
    assert first.json()["error"] == "card_payment_pending"
    assert sandbox.charges_for(r) == []
    link = card_link(cli, r)
    not_yet = cli("pay", "card", r)
    assert not_yet.returncode == 6 and link in not_yet.stderr
    assert "paid" in press_pay(link)
    done = cli.ok("pay", "card")
    task = done.json()
    charges = sandbox.charges_for(r)
    assert (
        len(charges) == 1 and charges[0]["method"] == "card" and charges[0]["task_id"] == task["id"]
    )
    again = cli.ok("pay", "card", r)
    assert "already accepted" in again.stderr
    assert len(sandbox.charges_for(r)) == 1
    spend = cli.ok("spend").json()
    assert spend["by_rail"]["card"]["paid_usd"] == "1.500000"


def test_a_card_payment_waiting_for_a_person_carries_its_link_as_data(
    cli: Cli, sandbox: Sandbox
) -> None:
    """Issue 30.14: the link was only inside `detail`; and the page's payment id and the
    billing line's payment id were two different ids."""
    r = rid()
    first = submit(cli, "card", r)
    assert first.returncode == 6
    doc = first.json()
    assert doc["request_id"] == r and doc["pay_url"] == card_link(cli, r)
    assert doc["status_url"].startswith(sandbox.url) and doc["status_url"].endswith("/status")
    payment_id = doc["payment_id"]
    assert payment_id in doc["pay_url"]  # the page names the same payment
    assert payment_id in httpx.get(doc["pay_url"]).text
    assert "paid" in press_pay(doc["pay_url"])
    done = cli.ok("pay", "card", r, "--json")
    assert f"by card (payment {payment_id})" in done.stderr, done.stderr  # the billing line
    assert sandbox.charges_for(r)[0]["id"] == payment_id  # one id for one payment


def test_card_is_not_offered_below_50_cents(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(price_atomic=400_000)
    r = rid()
    result = submit(cli, "card", r, extra=("--max-price", "1"))
    assert result.returncode == 5 and "0.50 USD" in result.stderr
    assert sandbox.charges_for(r) == []


def test_failed_delivery_refunds_the_card_in_full(cli: Cli, sandbox: Sandbox) -> None:
    r = rid()
    assert submit(cli, "card", r, task="Fragile #fail-delivery").returncode == 6
    press_pay(card_link(cli, r))
    result = cli("pay", "card", r)
    assert result.returncode == 9
    assert "refunded in full" in result.stderr and "billing: refunded" in result.stderr
    books = sandbox.books()
    charge = [c for c in books["charges"] if c["request_id"] == r]
    refund = [f for f in books["refunds"] if f["request_id"] == r]
    assert len(charge) == 1 and len(refund) == 1 and refund[0]["amount_atomic"] == 1_500_000
    spend = cli.ok("spend").json()
    assert spend["refunded_usd"] == "1.500000" and spend["total_usd"] == "0.000000"


def test_mpp_failed_delivery_is_refunded_too(cli: Cli, sandbox: Sandbox) -> None:
    r = rid()
    result = submit(cli, "mpp", r, task="Fragile #fail-delivery")
    assert result.returncode == 9 and "refunded in full" in result.stderr
    assert len([f for f in sandbox.books()["refunds"] if f["request_id"] == r]) == 1
    assert ledger_row(cli, r)["refunded_atomic"] == 1_500_000


def test_declined_token_is_settlement_failed_with_its_reason(cli: Cli, sandbox: Sandbox) -> None:
    r = rid()
    env = {"SVC_SPT": f"spt_test_declined_{uuid.uuid4().hex[:8]}"}
    result = submit(cli, "mpp", r, env=env)
    assert result.returncode == 5
    assert "settlement_failed" in result.stderr and "card_declined" in result.stderr
    assert "Paying a fresh challenge once" in result.stderr  # the spec's rule, bounded to once
    assert sandbox.charges_for(r) == []


def test_spt_from_a_command_and_from_a_file(cli: Cli, sandbox: Sandbox, tmp_path: Path) -> None:
    script = tmp_path / "mint.sh"
    script.write_text("#!/bin/sh\necho spt_test_$(date +%s%N)\n")
    script.chmod(0o755)
    cli.ok("config", "set", "spt_command", str(script))
    r = rid()
    assert submit(cli, "mpp", r, env={}).returncode == 0
    assert len(sandbox.charges_for(r)) == 1
    cli.ok("config", "unset", "spt_command")
    token = tmp_path / "spt.txt"
    token.write_text(spt() + "\n")
    token.chmod(0o644)
    cli.ok("config", "set", "spt_file", str(token))
    r2 = rid()
    refused = submit(cli, "mpp", r2, env={})
    assert refused.returncode == 5 and "chmod 600" in refused.stderr
    token.chmod(0o600)
    assert submit(cli, "mpp", r2, env={}).returncode == 0
    assert len(sandbox.charges_for(r2)) == 1


def test_no_token_says_where_to_get_one(cli: Cli, sandbox: Sandbox) -> None:
    r = rid()
    result = submit(cli, "mpp", r, env={})
    assert result.returncode == 5 and "SVC_SPT" in result.stderr
    assert sandbox.charges_for(r) == []


# --- the payment error table --------------------------------------------------------------

# (code, how many times the fault fires, rail, exit code, text on stderr, charges afterwards)
ROWS = [
    ("payment_provider_unavailable", 2, "x402", 0, "billing: charged", 1),
    ("payment_provider_unavailable", 20, "x402", 9, "payment_provider_unavailable", 0),
    ("settlement_failed", 1, "x402", 0, "Paying a fresh challenge once", 1),
    ("settlement_failed", 2, "mpp", 5, "insufficient_funds", 0),
    ("identity_invalid", 1, "mpp", 0, "Paying a fresh challenge once", 1),
    ("identity_invalid", 2, "x402", 5, "identity_invalid", 0),
    ("payment_refunded", 1, "x402", 0, "starting over", 1),
    ("payment_consumed", 1, "mpp", 0, "starting over", 1),
    ("payment_failed", 1, "x402", 0, "starting over", 1),
    ("payment_released", 2, "x402", 5, "can never be spent", 0),
    ("payment_unknown", 1, "x402", 5, "payment_unknown", 0),
    ("payment_request_mismatch", 1, "mpp", 5, "another request", 0),
    ("payment_amount_mismatch", 1, "x402", 5, "payment_amount_mismatch", 0),
    ("usage_not_priced", 1, "x402", 8, "could not be billed", 0),
    ("rate_limit_exceeded", 10, "mpp", 9, "retry after 0 s", 0),
]


@pytest.mark.parametrize(("code", "count", "rail", "exit_code", "needle", "charges"), ROWS)
def test_payment_error_rows(
    cli: Cli,
    sandbox: Sandbox,
    code: str,
    count: int,
    rail: str,
    exit_code: int,
    needle: str,
    charges: int,
) -> None:
    fault: dict[str, Any] = {"code": code, "count": count, "rail": rail}
    if code == "rate_limit_exceeded":
        fault["retry_after"] = 0
    pay_faults(sandbox, fault)
    r = rid()
    result = submit(cli, rail, r)
    assert result.returncode == exit_code, result.stderr
    assert needle in result.stderr
    assert len(sandbox.charges_for(r)) == charges
    if exit_code:
        assert result.json()["exit_code"] == exit_code
        assert "Traceback" not in result.stderr


def test_provider_unavailable_is_retried_with_the_same_proof(cli: Cli, sandbox: Sandbox) -> None:
    pay_faults(sandbox, {"code": "payment_provider_unavailable", "count": 1, "rail": "x402"})
    r = rid()
    assert submit(cli, "x402", r).returncode == 0
    books = sandbox.books()
    assert len(sandbox.charges_for(r)) == 1
    assert not [f for f in books["settlement_failures"] if f["request_id"] == r]


def test_payment_incomplete_finishes_via_status_url(cli: Cli, sandbox: Sandbox) -> None:
    r = rid()
    assert submit(cli, "card", r).returncode == 6
    press_pay(card_link(cli, r))
    # The spec: payment_incomplete means poll statusUrl, then retry. Once is followed at once;
    # a service that keeps saying it leaves the payment for a person (exit 6), and `svc pay
    # card` later sends the same payment id: one charge.
    pay_faults(sandbox, {"code": "payment_incomplete", "count": 2, "rail": "card"})
    waiting = cli("pay", "card", r)
    assert waiting.returncode == 6 and "not finished" in waiting.stderr
    assert sandbox.charges_for(r) == []
    cli.ok("pay", "card", r)
    assert len(sandbox.charges_for(r)) == 1


def test_dead_card_payment_starts_over_with_a_fresh_402(cli: Cli, sandbox: Sandbox) -> None:
    r = rid()
    assert submit(cli, "card", r).returncode == 6
    first = card_link(cli, r)
    press_pay(first)
    pay_faults(sandbox, {"code": "payment_released", "count": 1, "rail": "card"})
    again = cli("pay", "card", r)
    assert again.returncode == 6 and "starting over" in again.stderr
    second = card_link(cli, r)
    assert second != first  # a new payment, a new page
    press_pay(second)
    cli.ok("pay", "card", r)
    assert len(sandbox.charges_for(r)) == 1


def test_usage_error_header_is_shown_stored_and_not_retried(cli: Cli, sandbox: Sandbox) -> None:
    pay_faults(sandbox, {"code": "usage_error", "rail": "mpp"})
    r = rid()
    result = submit(cli, "mpp", r)
    assert result.returncode == 0
    assert "could not bill" in result.stderr and "not re-sent" in result.stderr
    assert ledger_row(cli, r)["usage_error"] == "invalid_usage_header"
    assert len(sandbox.charges_for(r)) == 1


def test_lost_answer_to_a_paid_mpp_call_is_reconciled(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.faults({"kind": "drop_after", "path": "/svc/tasks", "header": "authorization"})
    r = rid()
    result = submit(cli, "mpp", r)
    assert result.returncode == 0, result.stderr
    assert len(sandbox.charges_for(r)) == 1


def test_lost_answers_for_good_exit_10_and_reconcile_later(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.faults(
        {"kind": "drop_after", "path": "/svc/tasks", "header": "authorization", "count": 4}
    )
    r = rid()
    email = unique_email()
    env = {"SVC_SPT": spt()}
    lost = cli(
        "submit", "Lost #complete", "--email", email, "--request-id", r, "--pay", "mpp", env=env
    )
    assert lost.returncode == 10 and "may have been charged" in lost.stderr
    assert ledger_row(cli, r)["status"] == "unknown"
    # Later, with no token at all: the journaled credential is re-sent, never a new payment.
    later = cli.ok(
        "submit", "Lost #complete", "--email", email, "--request-id", r, "--pay", "mpp", env={}
    )
    assert "not charged again" in later.stderr
    assert len(sandbox.charges_for(r)) == 1


# --- policy: refusals sign nothing and spend nothing --------------------------------------


@pytest.mark.parametrize("rail", ["x402", "mpp", "card"])
def test_price_cap_refuses_every_rail_before_paying(
    cli: Cli, sandbox: Sandbox, rail: str, tmp_path: Path
) -> None:
    marker = tmp_path / "token-read"
    script = tmp_path / "mint.sh"
    script.write_text(f"#!/bin/sh\ntouch {marker}\necho spt_test_{uuid.uuid4().hex}\n")
    script.chmod(0o755)
    cli.ok("config", "set", "spt_command", str(script))
    before = sandbox.books()
    r = rid()
    result = submit(cli, rail, r, env={}, extra=("--max-price", "1.00"))
    assert result.returncode == 5 and "above the limit" in result.stderr
    assert not marker.exists()  # the token was never read
    assert sandbox.books() == before


def test_network_and_asset_refusals_sign_nothing(cli: Cli, sandbox: Sandbox) -> None:
    before = sandbox.books()
    sandbox.configure(network="eip155:1")
    assert submit(cli, "x402", rid()).returncode == 5
    # Half of the test pair beside a mainnet half: Base mainnet with Sepolia USDC's address.
    sandbox.configure(network="eip155:8453", asset="0x036CbD53842c5426634e7929541eC2318f3dCF7e")
    result = submit(cli, "x402", rid())
    assert result.returncode == 5 and "asset" in result.stderr
    assert sandbox.books() == before


def test_recipient_change_is_refused_until_confirmed_for_mpp(cli: Cli, sandbox: Sandbox) -> None:
    assert submit(cli, "mpp", rid()).returncode == 0  # pins the realm
    with sqlite3.connect(cli.home / "data" / "ledger.sqlite3") as db:
        db.execute("UPDATE recipients SET pay_to = 'evil.example:443' WHERE network = 'mpp:stripe'")
    before = sandbox.books()
    r = rid()
    result = submit(cli, "mpp", r)
    assert result.returncode == 5 and "recipient changed" in result.stderr
    assert sandbox.books() == before
    assert submit(cli, "mpp", r, extra=("--trust-recipient",)).returncode == 0


def test_daily_cap_across_processes(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("config", "set", "daily_cap_usd", "3.00")
    assert submit(cli, "x402", rid()).returncode == 0
    assert submit(cli, "mpp", rid()).returncode == 0
    before = sandbox.books()
    r = rid()
    result = submit(cli, "x402", r)
    assert (
        result.returncode == 5
        and "daily cap" in result.stderr
        and "3.00 USD spent" in result.stderr
    )
    assert sandbox.books() == before
    assert ledger_row(cli, r)["status"] == "rejected"


def test_rails_can_be_disallowed(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("config", "set", "allowed_rails", "x402")
    before = sandbox.books()
    result = submit(cli, "mpp", rid())
    assert result.returncode == 5 and "not allowed" in result.stderr
    assert sandbox.books() == before
    bad = cli("config", "set", "pay", "paypal")
    assert bad.returncode == 2


def test_probe_shows_the_challenge_and_pays_nothing(cli: Cli, sandbox: Sandbox) -> None:
    before = sandbox.books()
    doc = cli.ok(
        "submit",
        "Probe #complete",
        "--email",
        unique_email(),
        "--dry-run",
        "--probe",
        "--pay",
        "mpp",
    ).json()
    assert doc["would_pay"] == {
        "rail": "mpp",
        "amount_usd": "1.500000",
        "pay_to": doc["would_pay"]["pay_to"],
        "method": "stripe",
        "within_policy": True,
    }
    assert doc["challenges"]["x402"][0]["amount_usd"] == "1.500000"
    assert doc["challenges"]["card"]["pay_url"].endswith("/pay")
    refused = cli("submit", "Probe", "--email", unique_email(), "--probe", "--max-price", "1")
    assert refused.returncode == 5 and "above the limit" in refused.stdout + refused.stderr
    assert sandbox.books() == before


def test_spend_report_by_day_task_and_rail(cli: Cli, sandbox: Sandbox) -> None:
    for rail in ("x402", "mpp", "mpp"):
        assert submit(cli, rail, rid()).returncode == 0
    doc = cli.ok("spend").json()
    assert doc["by_rail"]["mpp"]["paid_usd"] == "3.000000"
    assert doc["by_rail"]["x402"]["net_usd"] == "1.500000"
    assert doc["paid_count"] == 3 and len(doc["tasks"]) == 3
    assert next(iter(doc["by_day"].values()))["paid_usd"] == "4.500000"
    bad = cli("spend", "--since", "yesterday")
    assert bad.returncode == 2 and "--since" in bad.stderr


def test_refused_authorizations_count_against_the_cap_until_they_expire(
    cli: Cli, sandbox: Sandbox
) -> None:
    """Exposure, not spend (issue 12.4): a server that answers every proof settlement_failed
    gets two signatures under a 3.00 USD cap, whatever it claims; `svc spend` lists them as
    outstanding until their validBefore, and only then does the cap have room again."""
    cli.ok("config", "set", "daily_cap_usd", "3.00")
    env = {"SVC_MAX_VALIDITY": "10"}  # the shortest window svc signs (verifiers want a margin)
    pay_faults(sandbox, {"code": "settlement_failed", "count": 50, "rail": "x402"})
    try:
        first = submit(cli, "x402", rid(), env=env)
        assert first.returncode == 5 and "insufficient_funds" in first.stderr  # signed twice
        capped = submit(cli, "x402", rid(), env=env)
        assert capped.returncode == 5 and "daily cap" in capped.stderr
    finally:
        sandbox.admin("DELETE", "/payment-faults")
    spend = cli.ok("spend", "--json").json()
    assert spend["outstanding_usd"] == "3.000000" and spend["total_usd"] == "0.000000"
    assert [o["status"] for o in spend["outstanding"]] == ["refused", "refused"]
    assert all(o["valid_until"] for o in spend["outstanding"])
    assert (
        cli("submit", "x", "--email", "a@example.com", env={"SVC_MAX_VALIDITY": "5"}).returncode
        == 2
    )
    time.sleep(11)  # past every validBefore: nothing can settle them any more
    assert cli.ok("spend", "--json").json()["outstanding"] == []
    assert submit(cli, "x402", rid(), env=env).returncode == 0


def test_a_card_page_on_a_terminal_without_a_display_opens_no_browser(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """`--pay card` on an SSH terminal: the link and QR code, a line saying no browser was
    opened, and no text browser started (a fake lynx on PATH records any call)."""
    import pexpect
    from tests.conftest import SVC
    from tests.person import TEXT_BROWSERS, fake_programs

    calls = tmp_path / "calls.txt"
    bin_dir = fake_programs(tmp_path, TEXT_BROWSERS, calls)
    env = {k: v for k, v in cli.env.items() if k not in ("CI", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    r = rid()
    args = ["submit", "Pay me #complete", "--email", unique_email(), "--request-id", r]
    child = pexpect.spawn(
        SVC, [*args, "--pay", "card"], env=env, encoding="utf-8", timeout=30, dimensions=(60, 160)
    )
    child.expect(r"by card on this page: (\S+)")
    link = child.match.group(1)
    child.expect("no graphical session here, so no browser was opened")
    assert "paid" in press_pay(link)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert not calls.exists(), calls.read_text()
    assert len(sandbox.charges_for(r)) == 1


@pytest.mark.parametrize("with_receipt", [True, False], ids=["receipt", "no-receipt"])
def test_a_server_replay_reads_as_already_paid_with_or_without_a_receipt(
    cli: Cli, sandbox: Sandbox, tmp_path: Path, wallet_home: Path, with_receipt: bool
) -> None:
    """Another machine with the same wallet re-sends a paid request id: the service replays.
    svc reads `status=replayed` alone: not charged again, exit 0, whether or not the replay
    carries the original receipt (the spec is silent; the sandbox sends it, issue 25.4)."""
    r = rid()
    assert submit(cli, "x402", r).returncode == 0
    sandbox.configure(replay_receipts=with_receipt)
    (tmp_path / "other").mkdir()
    home = home_with_wallet(tmp_path / "other", wallet_home)
    other = Cli(home, {**_base_env(home), "SVC_BASE_URL": sandbox.url})
    again = submit(other, "x402", r)
    assert again.returncode == 0, again.stderr
    assert "already paid, not charged again" in again.stderr
    assert again.json()["id"] == ledger_row(cli, r)["task_id"]
    assert len(sandbox.charges_for(r)) == 1
    row = ledger_row(other, r)
    assert row["status"] == "accepted"
    assert row["receipt"] == (ledger_row(cli, r)["receipt"] if with_receipt else None)
