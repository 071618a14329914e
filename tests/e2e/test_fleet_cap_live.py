"""A long-lived runner obeys the fleet's daily cap as it is now, not as it was when the runner
started (cli-contract, "Payment behaviour": every runner obeys one value). One library Client
pays, another process lowers the fleet's cap, and the same Client's next paid request is
refused before anything is signed; raising or removing the value lets it pay again."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_mcp import Person, error_of, run, served, submitted, task_of
from tests.inproc import library_home

import svc
from svc import Client

pytestmark = pytest.mark.e2e


@pytest.fixture
def home(cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Path:
    return library_home(cli.home, sandbox.url, monkeypatch)


def set_fleet_cap(cli: Cli, pg_url: str, value: str | None) -> None:
    """The operator, from another process: `svc config set|unset daily_cap_usd --fleet`."""
    env = {"SVC_LEDGER_URL": pg_url}
    if value is None:
        cli.ok("config", "unset", "daily_cap_usd", "--fleet", env=env)
    else:
        cli.ok("config", "set", "daily_cap_usd", value, "--fleet", env=env)


def paid(client: Client, sandbox: Sandbox) -> str:
    rid = unique_request_id()
    client.submit("Fleet cap live #complete", unique_email(), request_id=rid)
    assert len(sandbox.charges_for(rid)) == 1
    return rid


def refused(client: Client, sandbox: Sandbox) -> svc.PolicyRefused:
    rid = unique_request_id()
    with pytest.raises(svc.PolicyRefused) as caught:
        client.submit("Fleet cap live #complete", unique_email(), request_id=rid)
    assert sandbox.charges_for(rid) == []  # nothing signed, nothing sent to pay
    return caught.value


@pytest.mark.timeout(180)
def test_a_long_lived_runner_obeys_the_fleet_cap_as_it_is_now(
    home: Path, cli: Cli, sandbox: Sandbox, pg_url: str
) -> None:
    set_fleet_cap(cli, pg_url, "30")
    with Client(ledger_url=pg_url, daily_cap="100") as client:  # its own value: 100.00 USD
        paid(client, sandbox)  # a first payment under the fleet's 30.00 USD
        set_fleet_cap(cli, pg_url, "1")  # below the day's exposure already
        lowered = refused(client, sandbox)
        assert lowered.exit_code == 5 and lowered.code == "daily_cap_exceeded"
        set_fleet_cap(cli, pg_url, "30")
        paid(client, sandbox)
        set_fleet_cap(cli, pg_url, "1")
        refused(client, sandbox)
        set_fleet_cap(cli, pg_url, None)  # removed: the runner's own 100.00 USD applies
        paid(client, sandbox)


@pytest.mark.timeout(180)
def test_the_refusal_names_the_value_applied_and_where_it_came_from(
    home: Path, cli: Cli, sandbox: Sandbox, pg_url: str
) -> None:
    with Client(ledger_url=pg_url, daily_cap="100") as client:
        paid(client, sandbox)
        set_fleet_cap(cli, pg_url, "1")
        message = refused(client, sandbox).message
    assert "daily cap of 1.00 USD" in message and "fleet ledger" in message, message
    assert "100.00" not in message, message  # not the runner's own, unused value


@pytest.mark.timeout(180)
def test_a_runners_own_cap_is_named_as_its_own(
    home: Path, cli: Cli, sandbox: Sandbox, pg_url: str
) -> None:
    with Client(ledger_url=pg_url, daily_cap="1") as client:
        message = refused(client, sandbox).message
    assert "daily cap of 1.00 USD" in message and "this runner's" in message, message
    assert "fleet ledger" not in message, message


@pytest.mark.timeout(180)
def test_a_long_lived_mcp_server_obeys_the_fleet_cap_as_it_is_now(
    cli: Cli, sandbox: Sandbox, pg_url: str, svc_mcp: list[str]
) -> None:
    fleet = {"SVC_LEDGER_URL": pg_url, "SVC_RUNNER": "agent-1", "SVC_DAILY_CAP": "100"}

    async def body() -> None:
        async with served(cli, svc_mcp, person=Person(pay=True), env=fleet) as (session, _):
            rid, first = await submitted(session, "Fleet cap mcp #complete")
            assert task_of(first) and len(sandbox.charges_for(rid)) == 1
            set_fleet_cap(cli, pg_url, "1")
            rid, second = await submitted(session, "Fleet cap mcp #complete")
            error = error_of(second)
            assert error["error"] == "daily_cap_exceeded" and error["exit_code"] == 5
            assert "daily cap of 1.00 USD" in error["detail"] and "fleet" in error["detail"]
            assert sandbox.charges_for(rid) == []
            set_fleet_cap(cli, pg_url, None)
            rid, third = await submitted(session, "Fleet cap mcp #complete")
            assert task_of(third) and len(sandbox.charges_for(rid)) == 1

    run(body)
