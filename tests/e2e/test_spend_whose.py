"""Whose spending (issue 49.5): two profiles with two wallets pay through one ledger; `svc
spend` and `client.spend()` keep one profile's or one wallet's share when asked and every
payment when not, in the report and in the exports alike. A profile in effect only by default
filters nothing: `svc spend` alone is the machine's (or the fleet's) whole spending."""

from __future__ import annotations

import csv
import io

import pytest
from tests.conftest import TEST_ADDRESS, Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_wallet_profiles import OTHER_ADDRESS, OTHER_KEY, new_profile
from tests.inproc import library_home

from svc import Client, UsageError

pytestmark = pytest.mark.e2e


def paid(cli: Cli, *profile: str) -> str:
    rid = unique_request_id()
    cli.ok("submit", "Pay #complete", "--email", unique_email(), "--request-id", rid, *profile)
    return rid


@pytest.fixture
def two_payers(cli: Cli, sandbox: Sandbox) -> tuple[str, str]:
    """A request paid by the default profile's wallet and one paid by profile ci's."""
    new_profile(cli, "ci")
    cli.ok("wallet", "import", "--profile", "ci", input=OTHER_KEY + "\n")
    return paid(cli), paid(cli, "--profile", "ci")


def listed(cli: Cli, *args: str, env: dict[str, str] | None = None) -> set[str]:
    doc = cli.ok("spend", "--tasks", "--json", *args, env=env).json()
    return {row["request_id"] for row in doc["tasks"]}


def test_a_named_profile_or_wallet_keeps_its_own_share(
    cli: Cli, two_payers: tuple[str, str]
) -> None:
    mine, ci = two_payers
    assert listed(cli) >= {mine, ci}  # no profile named: everyone's
    assert ci in listed(cli, "--profile", "ci") and mine not in listed(cli, "--profile", "ci")
    assert listed(cli, env={"SVC_PROFILE": "ci"}) == listed(cli, "--profile", "ci")
    assert mine in listed(cli, "--profile", "default")
    assert ci not in listed(cli, "--profile", "default")
    by_wallet = listed(cli, "--wallet", OTHER_ADDRESS.lower())  # an address's case is not it
    assert ci in by_wallet and mine not in by_wallet
    both = listed(cli, "--profile", "ci", "--wallet", TEST_ADDRESS)
    assert both == set()  # the filters add up: ci never paid from the default's wallet


def test_an_export_keeps_the_same_share(cli: Cli, two_payers: tuple[str, str]) -> None:
    mine, ci = two_payers
    text = cli.ok("spend", "--format", "csv", "--profile", "ci").stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert {r["request_id"] for r in rows} == {ci} and {r["profile"] for r in rows} == {"ci"}
    text = cli.ok("spend", "--format", "csv", "--wallet", TEST_ADDRESS).stdout
    assert mine in text and ci not in text


def test_a_wallet_that_is_no_address_is_one_line_and_exit_2(cli: Cli) -> None:
    result = cli("spend", "--wallet", "my-wallet")
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == (
        "svc: --wallet must be a 0x address of 40 hex digits, got 'my-wallet'"
    )


def test_the_library_filters_as_the_cli_does(
    cli: Cli, sandbox: Sandbox, two_payers: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    mine, ci = two_payers
    library_home(cli.home, sandbox.url, monkeypatch)
    with Client() as client:
        ids = {t.request_id for t in client.spend(profile="ci").tasks}
        assert ci in ids and mine not in ids
        ids = {t.request_id for t in client.spend(wallet=TEST_ADDRESS).tasks}
        assert mine in ids and ci not in ids
        everyone = {t.request_id for t in client.spend().tasks}
        assert everyone >= {mine, ci}
        with pytest.raises(UsageError):
            client.spend(wallet="my-wallet")  # refused before the ledger is read


def test_the_filters_are_in_the_help(cli: Cli) -> None:
    text = " ".join(cli.ok("spend", "--help").stdout.split())
    assert "--wallet ADDRESS" in text and "SVC_PROFILE keeps what that profile" in text
