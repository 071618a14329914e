"""One decimal for every amount (issue 29.6), against the hostile peer with the real `svc`.

A peer states its price in digits a person reads as money but that are not ASCII (fullwidth,
Arabic-Indic, superscript), with an underscore Python's `Decimal` skips (`1_0.5` is 10.5), with a sign, an
exponent or a NaN. Each rail must refuse it before anything is signed or started: the payment
exit code, one error line naming the field, and the peer's books show no proof and no card
checkout.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from tests.conftest import Cli, Result, _base_env, home_with_wallet
from tests.hostile_peer import HostilePeer

pytestmark = pytest.mark.e2e

PAYMENT_EXIT = 5


@pytest.fixture
def peer_cli(tmp_path: Path, hostile_peer: HostilePeer, wallet_home: Path) -> Cli:
    """`svc` pointed at the hostile peer, with the public test key as its wallet."""
    home = home_with_wallet(tmp_path, wallet_home)
    env = {**_base_env(home), "SVC_BASE_URL": hostile_peer.url, "SVC_TIMEOUT": "10"}
    env["SVC_SPT"] = f"spt_test_{uuid.uuid4().hex}"
    return Cli(home, env)


def submit(cli: Cli, rail: str, *extra: str) -> Result:
    """A submit with a fresh request id; a probe, which sends none, with none."""
    rid = f"req_{uuid.uuid4().hex}"
    email = f"m-{rid[-10:]}@example.com"
    args = ["submit", "Renew my books", "--email", email, "--pay", rail]
    if "--probe" not in extra:
        args += ["--request-id", rid]
    return cli(*args, "--no-input", *extra)


def error_lines(result: Result) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("svc:")]


def nothing_paid(peer: HostilePeer) -> bool:
    """No proof of any rail reached the peer and no card checkout was started."""
    started = [r for r in peer.requests() if r.path.endswith("/pay")]
    return not peer.proofs_received() and not started


CASES = [
    # (rail, the peer's knob, the wire text, the field the refusal names)
    ("mpp", "mpp_amount", "１５０", "amount"),  # fullwidth: paid as 1.50 USD before
    ("mpp", "mpp_amount", "١٥٠", "amount"),  # Arabic-Indic: paid as 1.50 USD before
    ("mpp", "mpp_amount", "¹⁵⁰", "amount"),  # superscript: an internal error before
    ("mpp", "mpp_amount", "1_50", "amount"),
    ("card", "card_amount", "1_0.5", "amountUsd"),  # shown and paid as 10.50 USD before
    ("card", "card_amount", "１.５０", "amountUsd"),
    ("card", "card_amount", "¹.⁵", "amountUsd"),
    ("card", "card_amount", "1e0", "amountUsd"),
    ("card", "card_amount", "NaN", "amountUsd"),
    ("x402", "x402_amount", "１５００００", "amount"),
    ("x402", "x402_amount", "¹⁵⁰⁰⁰⁰⁰", "amount"),
    ("x402", "x402_amount", "1_500_000", "amount"),
]


@pytest.mark.parametrize(("rail", "knob", "amount", "field"), CASES)
def test_a_hostile_amount_is_refused_by_every_rail_and_nothing_is_paid(
    peer_cli: Cli, hostile_peer: HostilePeer, rail: str, knob: str, amount: str, field: str
) -> None:
    setattr(hostile_peer.config, knob, amount)
    result = submit(peer_cli, rail)
    assert result.returncode == PAYMENT_EXIT, result.stderr
    lines = error_lines(result)
    assert len(lines) == 1, result.stderr
    assert field in lines[0] and "nothing was paid" in lines[0], lines[0]
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert nothing_paid(hostile_peer), [(r.path, r.proofs) for r in hostile_peer.requests()]


def test_the_json_error_names_the_field_too(peer_cli: Cli, hostile_peer: HostilePeer) -> None:
    hostile_peer.config.card_amount = "1_0.5"
    result = submit(peer_cli, "card", "--json")
    assert result.returncode == PAYMENT_EXIT, result.stderr
    doc = result.json()
    assert doc["exit_code"] == PAYMENT_EXIT and "amountUsd" in doc["detail"], doc
    assert "10.5" not in result.stdout + result.stderr  # never read as ten and a half
    assert nothing_paid(hostile_peer)


def test_the_probe_shows_hostile_amounts_as_unusable_and_the_other_offers(
    peer_cli: Cli, hostile_peer: HostilePeer
) -> None:
    hostile_peer.config.mpp_amount = "¹⁵⁰"  # was an internal error
    hostile_peer.config.card_amount = "1_0.5"
    for rail, field in (("mpp", "request.amount"), ("card", "payment.amountUsd")):
        result = submit(peer_cli, rail, "--probe", "--json")
        assert result.returncode == PAYMENT_EXIT, result.stderr
        doc = result.json()
        [offered] = doc["challenges"]["mpp"]
        assert offered["amount_usd"] is None and "request.amount" in offered["why_not"]
        assert doc["challenges"]["card"] is None and "amountUsd" in doc["challenges"]["card_error"]
        assert doc["challenges"]["x402"][0]["amount_usd"] == "1.500000"  # still shown
        assert field in doc["would_pay"]["refusal"]
        assert len(error_lines(result)) == 1 and field in error_lines(result)[0]
    assert nothing_paid(hostile_peer)


def test_an_honest_price_is_still_paid(peer_cli: Cli, hostile_peer: HostilePeer) -> None:
    result = submit(peer_cli, "mpp")
    assert result.returncode == 0, result.stderr
    assert hostile_peer.credentials()
