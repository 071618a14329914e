"""Hints that name only what applies (issue 52): a refusal names the one setting that refused
(a price limit is not a network), a credential the platform no longer knows offers both ways
out as `svc doctor` does (a new credential, or logging out), and a lost receipt speaks of the
ledger in effect (this machine's file, or the fleet's shared one)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.conftest import Cli, Sandbox, _base_env, home_with_wallet, unique_email

from svc_sandbox.server import SandboxProcess

pytestmark = pytest.mark.e2e

OTHER_ASSET = "0x1111111111111111111111111111111111111111"
NOTHING_PAID = "nothing was signed or paid; "


def _refused(cli: Cli) -> dict[str, Any]:
    result = cli("submit", "Refused #complete", "--email", unique_email(), "--json")
    assert result.returncode == 5, result.stderr
    doc = result.json()
    assert doc["error"] == "policy_refused" and f"hint: {doc['hint']}" in result.stderr
    return dict(doc)


@pytest.mark.parametrize(
    ("terms", "action", "setting", "others"),
    [
        ({"network": "eip155:1"}, "allow_network", "allowed_networks", ("max_price", "assets")),
        (  # on an allowed network (refused before anything is signed)
            {"network": "eip155:8453", "asset": OTHER_ASSET},
            "allow_asset",
            "allowed_assets",
            ("max_price", "networks"),
        ),
        ({"price_atomic": 1_510_000}, "raise_max_price", "max_price_usd", ("allowed_",)),
    ],
)
def test_a_refusal_names_only_the_setting_that_refused(
    cli: Cli,
    sandbox: Sandbox,
    terms: dict[str, Any],
    action: str,
    setting: str,
    others: tuple[str, ...],
) -> None:
    sandbox.configure(**terms)
    doc = _refused(cli)
    assert doc["next"] == {"action": action}
    assert doc["hint"].startswith(NOTHING_PAID) and f"svc config set {setting}`" in doc["hint"]
    assert not [word for word in others if word in doc["hint"]], doc["hint"]


def test_a_credential_the_platform_forgot_offers_both_ways_out(
    tmp_path: Path, wallet_home: Path
) -> None:
    """Anonymous (no refresh token) and ID-JAG (a refresh token the platform forgot too): the
    hint is the one `svc doctor` gives, a new credential or logging out to pay as you go."""
    home = home_with_wallet(tmp_path, wallet_home)
    with SandboxProcess() as proc:
        cli = Cli(home, {**_base_env(home), "SVC_BASE_URL": proc.url})
        for register in (("--anonymous",), ("--assertion-file", "-")):
            minted = cli.ok("sandbox", "mint-id-jag", "--email", unique_email()).stdout
            cli.ok("identity", "register", "--force", *register, input=minted)
            httpx.post(f"{proc.url}/_sandbox/reset", timeout=10).raise_for_status()
            result = cli("entitlements", "--json")
            assert result.returncode == 4, result.stderr
            doc = result.json()
            assert doc["next"] == {"action": "replace_identity"}, doc
            fix = _identity_fix(cli)
            assert doc["hint"] == fix, (doc["hint"], fix)
            assert "svc identity register --force" in fix and "svc identity logout" in fix


def _identity_fix(cli: Cli) -> str:
    shown = cli("doctor", "--json").json()
    identity = next(c for c in shown["checks"] if c["check"] == "identity")
    assert identity["status"] == "fail", identity
    return str(identity["fix"])


def test_a_lost_receipt_speaks_of_the_local_ledger(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("submit", "Kept #complete", "--email", unique_email())  # a ledger with a row
    result = cli("receipt", "task_nope")
    assert result.returncode == 7
    assert "shared" not in result.stderr and "every runner" not in result.stderr
    assert "hint: see `svc tasks` (the local ledger: only what this machine submitted)" in (
        result.stderr
    )


def test_a_lost_receipt_on_a_fleet_speaks_of_the_shared_ledger(
    cli: Cli, sandbox: Sandbox, pg_url: str
) -> None:
    result = cli("receipt", "task_nope", env={"SVC_LEDGER_URL": pg_url, "SVC_RUNNER": "ci-1"})
    assert result.returncode == 7, result.stderr
    assert "hint: see `svc tasks` (the fleet's shared ledger: every runner's requests)" in (
        result.stderr
    )
