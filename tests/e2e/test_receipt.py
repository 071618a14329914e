"""`svc receipt ID` (issue 35.4): each rail's payment against the sandbox, its settlement
reference checked against the sandbox's own books, a refund, and an id the ledger lacks."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox, unique_request_id
from tests.e2e.test_payments import card_link, press_pay, submit
from tests.e2e.test_tables import screen

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]


def receipt(cli: Cli, some_id: str) -> dict[str, Any]:
    doc = cli.ok("receipt", some_id, "--json").json()
    assert isinstance(doc, dict)
    return doc


def test_an_x402_receipt_names_the_settlement_transaction(cli: Cli, sandbox: Sandbox) -> None:
    r = unique_request_id()
    task_id = submit(cli, "x402", r, extra=("--json",)).json()["id"]
    charge = sandbox.charges_for(r)[0]
    doc = receipt(cli, task_id)
    assert doc["request_id"] == r and doc["task_id"] == task_id and doc["rail"] == "x402"
    assert doc["amount_usd"] == "1.500000" and doc["refund"] is None
    payer = doc["payer"].lower()
    assert payer == "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"  # the test key's address
    # The sandbox names a settlement by the hash of payer and nonce (its x402 receipt).
    expected = "0x" + hashlib.sha256(f"{payer}:{charge['nonce'].lower()}".encode()).hexdigest()
    assert doc["settlement"]["reference"] == expected
    assert doc["settlement"]["kind"] == "x402 payment-response transaction"
    assert doc["network"] == "eip155:84532" and doc["asset"].startswith("0x")
    assert doc["recipient"].startswith("0x") and doc["paid_at"].endswith("Z")
    assert receipt(cli, r) == doc  # by request id: the same receipt


def test_an_mpp_receipt_and_its_refund(cli: Cli, sandbox: Sandbox) -> None:
    r = unique_request_id()
    assert submit(cli, "mpp", r).returncode == 0
    doc = receipt(cli, r)
    assert doc["settlement"]["reference"] == sandbox.charges_for(r)[0]["reference"]
    assert doc["settlement"]["reference"].startswith("pi_") and doc["rail"] == "mpp"
    assert doc["payer"].startswith("spt:") and doc["network"] == "mpp:stripe"

    back = unique_request_id()
    assert submit(cli, "mpp", back, task="Fragile #fail-delivery").returncode != 0
    refunded = receipt(cli, back)
    assert refunded["status"] == "refunded" and refunded["task_id"] is None
    assert refunded["refund"]["amount_usd"] == "1.500000" and refunded["net_usd"] == "0.000000"
    shown = screen(cli, "receipt", back, columns=100)
    assert "refunded" in shown and "1.50 USD at" in shown and "net" in shown


def test_a_card_receipt_names_the_card_payment(cli: Cli, sandbox: Sandbox) -> None:
    r = unique_request_id()
    assert submit(cli, "card", r).returncode == 6  # a person pays the hosted page
    press_pay(card_link(cli, r))
    cli.ok("pay", "card", r)
    charge = sandbox.charges_for(r)[0]
    doc = receipt(cli, r)
    assert doc["rail"] == "card" and doc["settlement"]["kind"] == "card payment id"
    assert doc["settlement"]["reference"] == charge["reference"] == doc["settlement"]["payment_id"]
    shown = screen(cli, "receipt", r, columns=100)
    assert "card payment id" in shown and charge["reference"] in shown


def test_an_id_the_ledger_lacks_is_exit_7(cli: Cli, sandbox: Sandbox) -> None:
    missing = cli("receipt", "task_0000000000000000")
    assert missing.returncode == 7 and "the ledger has no request or task" in missing.stderr
    doc = cli("receipt", "req_nothing", "--json")
    assert doc.returncode == 7 and doc.json()["error"] == "not_in_ledger"
    assert doc.json()["exit_code"] == 7
