"""The sandbox never asks for live money (issue 29.7): by default its 402 offers Base Sepolia
(`eip155:84532`) and Sepolia USDC, so nothing signed against it can move mainnet funds, and
svc pays it with no setting because it is on loopback. `--network mainnet` keeps the exact
production offer for fidelity tests."""

from __future__ import annotations

import base64
import json
import subprocess
import uuid
from typing import Any

import httpx
import pytest
from tests.conftest import SVC, Cli, Sandbox, _base_env, unique_email, unique_request_id

pytestmark = pytest.mark.e2e

SEPOLIA = "eip155:84532"
SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


def offer_of(url: str) -> dict[str, Any]:
    """The first x402 entry of an unpaid submit's 402, as the wire carries it."""
    body = {"task": "What do you offer? #complete", "email": unique_email()}
    headers = {"svc-request-id": f"req_{uuid.uuid4().hex}"}
    answer = httpx.post(f"{url}/svc/tasks", json=body, headers=headers, timeout=10)
    assert answer.status_code == 402, answer.text
    required = json.loads(base64.b64decode(answer.headers["PAYMENT-REQUIRED"]))
    return dict(required["accepts"][0])


def test_the_sandbox_offers_the_test_network_by_default(sandbox: Sandbox) -> None:
    entry = offer_of(sandbox.url)
    assert entry["network"] == SEPOLIA
    assert entry["asset"].lower() == SEPOLIA_USDC.lower()
    assert entry["extra"] == {"name": "USDC", "version": "2"}  # Sepolia USDC's own domain


def test_svc_pays_the_sandbox_on_the_test_network_with_no_setting(
    cli: Cli, sandbox: Sandbox
) -> None:
    rid = unique_request_id()
    cli.ok("submit", "Test money #complete", "--email", unique_email(), "--request-id", rid)
    [charge] = sandbox.charges_for(rid)
    assert charge["amount_atomic"] == 1_500_000
    assert cli.ok("spend", "--json").json()["paid_count"] == 1
    probe = cli.ok("submit", "Probe", "--email", unique_email(), "--probe", "--json").json()
    assert SEPOLIA in json.dumps(probe)


def test_a_mainnet_sandbox_keeps_the_production_offer(tmp_path: Any, wallet_home: Any) -> None:
    """`svc sandbox serve --network mainnet`: Base and Base USDC, which svc allows anywhere."""
    env = _base_env(tmp_path)
    serve = subprocess.Popen(
        [SVC, "sandbox", "serve", "--port", "0", "--quiet", "--network", "mainnet"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serve.stdout is not None
        url = serve.stdout.readline().strip().removeprefix("SANDBOX_URL=")
        entry = offer_of(url)
        assert entry["network"] == "eip155:8453" and entry["asset"] == BASE_USDC
        assert entry["extra"] == {"name": "USD Coin", "version": "2"}
        home = tmp_path / "payer"
        subprocess.run(["cp", "-a", str(wallet_home), str(home)], check=True)
        payer = Cli(home, {**_base_env(home), "SVC_BASE_URL": url})
        payer.ok("submit", "Mainnet terms #complete", "--email", unique_email())
    finally:
        serve.terminate()
        serve.wait(timeout=10)


def test_sandbox_serve_refuses_an_unknown_network(bare_cli: Cli) -> None:
    result = bare_cli("sandbox", "serve", "--port", "0", "--network", "ethereum")
    assert result.returncode == 2
    assert "mainnet" in result.stderr and "testnet" in result.stderr
