"""`svc request` against a real peer: an app protected by the official x402 SDK's own FastAPI
middleware (tests/x402_sdk_peer.py: its resource server and facilitator in-process, the chain
stubbed). svc pays its 402 once, in `PAYMENT-SIGNATURE`, and the SDK's facilitator verifies
the signature with its own code before the app answers."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from tests.conftest import Cli
from tests.x402_sdk_peer import PAY_TO, SdkPeer, serving

pytestmark = [pytest.mark.e2e]


@pytest.fixture
def sdk_peer() -> Iterator[SdkPeer]:
    with serving() as peer:
        yield peer


def test_svc_request_pays_an_x402_sdk_protected_app_once(cli: Cli, sdk_peer: SdkPeer) -> None:
    result = cli("request", f"{sdk_peer.url}/paid", "-X", "POST", "-d", "{}")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"paid": True, "body": "{}"}
    [transfer] = sdk_peer.settled.transfers  # settled once, for the price the route asks
    assert transfer["value"] == "10000"
    [paid] = cli.ok("spend", "--json").json()["tasks"]
    assert paid["amount_usd"] == "0.010000" and paid["pay_to"] == PAY_TO
    receipt = cli.ok("receipt", paid["request_id"], "--json").json()
    assert receipt["origin"] == sdk_peer.url and receipt["rail"] == "x402"
    # The SDK's settlement receipt (PAYMENT-RESPONSE), as its middleware wrote it.
    assert receipt["settlement"]["reference"] == transfer["tx"]
    assert receipt["settlement"]["receipt"]["success"] is True
    # The books name the origin that was paid as the payee.
    books = cli.ok("spend", "--format", "ledger").stdout
    assert f"* 127.0.0.1:{sdk_peer.url.rsplit(':', 1)[1]}" in books and "0.01" in books


def test_a_dry_run_and_a_probe_send_no_proof_to_the_sdk_app(cli: Cli, sdk_peer: SdkPeer) -> None:
    url = f"{sdk_peer.url}/paid"
    assert cli("request", "--dry-run", "-X", "POST", "-d", "{}", url).returncode == 0
    probe = cli("request", "--probe", "-X", "POST", "-d", "{}", url, "--json")
    assert probe.returncode == 0, probe.stderr
    assert probe.json()["would_pay"]["amount_usd"] == "0.010000"
    assert sdk_peer.settled.transfers == []
    assert cli.ok("spend", "--json").json()["tasks"] == []
