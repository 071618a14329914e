"""The smaller items of issue 22.6, each through the `svc` executable."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def test_a_bad_wallet_key_in_the_environment_is_named_as_such(cli: Cli) -> None:
    result = cli("submit", "t #complete", "--email", unique_email(), env={"SVC_WALLET_KEY": "0xzz"})
    assert result.returncode == 5, result.stderr
    line, hint = result.stderr.splitlines()[:2]
    assert line.startswith("svc: SVC_WALLET_KEY is unusable") and "stored" not in line
    assert "unset SVC_WALLET_KEY" in hint


def test_config_set_echoes_the_value_as_it_is_written(bare_cli: Cli) -> None:
    assert (
        "max_price_usd = 1.5 in profile"
        in bare_cli.ok("config", "set", "max_price_usd", "1.5").stderr
    )
    assert (
        "poll_interval = 600 in profile"
        in bare_cli.ok("config", "set", "poll_interval", "600").stderr
    )
    assert "notify = true in profile" in bare_cli.ok("config", "set", "notify", "true").stderr


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["submt", "x"], "svc: No such command 'submt'; did you mean 'submit'?"),
        (
            ["config", "set", "max_price", "2"],
            "unknown config key 'max_price'; did you mean 'max_price_usd'?",
        ),
        (["config", "get", "emial"], "unknown config key 'emial'; did you mean 'email'?"),
    ],
)
def test_a_mistyped_command_or_config_key_gets_a_did_you_mean(
    bare_cli: Cli, args: list[str], line: str
) -> None:
    result = bare_cli(*args)
    assert result.returncode == 2
    assert line in result.stderr.splitlines()[0]


def test_the_dry_run_says_money_as_people_write_it(cli: Cli, sandbox: Sandbox) -> None:
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    args = ["submit", "t", "--email", unique_email(), "--dry-run", "--max-price", "2"]
    child = pexpect.spawn(SVC, args, env=env, encoding="utf-8", timeout=30, dimensions=(50, 200))
    child.expect(pexpect.EOF)
    child.close()
    screen = " ".join((child.before or "").split())
    assert "pay 1.50 USD by x402 (within your limit of 2.00 USD" in screen, screen
    assert "1.500000" not in screen
    doc = cli.ok("submit", "t", "--email", unique_email(), "--dry-run").json()
    assert doc["price_usd"] == "1.500000"  # the JSON keeps the exact value


def test_a_quote_without_a_wallet_says_it_is_free(bare_cli: Cli, sandbox: Sandbox) -> None:
    result = bare_cli("quote", "Book a table", env={"SVC_BASE_URL": sandbox.url})
    assert result.returncode == 5, result.stderr
    line, hint = result.stderr.splitlines()[:2]
    assert "the quote is free" in line and "nothing is paid" in line
    assert "no wallet to pay with" not in line
    assert "svc guide GOAL" in hint


def test_identity_tables_say_yes_and_no_to_people(cli: Cli, sandbox: Sandbox) -> None:
    from tests.person import finish, spawn_person

    cli.ok("identity", "register", "--anonymous")
    child = spawn_person(cli, "identity", "status")
    assert finish(child) == 0
    screen = re.sub(r"\x1b\[[0-9;]*m", "", child.before or "")  # our own styles
    assert "True" not in screen and "False" not in screen, screen
    assert any(line.split()[:2] == ["claimed", "no"] for line in screen.splitlines()), screen
    assert cli.ok("identity", "status").json()["claimed"] is False  # JSON keeps the boolean


def test_the_sandbox_says_what_a_test_spt_looks_like(cli: Cli, sandbox: Sandbox) -> None:
    args = ["submit", "t #complete", "--email", unique_email(), "--pay", "mpp"]
    result = cli(*args, env={"SVC_SPT": "spt_test_"})  # too short to be one
    assert result.returncode == 5, result.stderr
    assert "invalid_token" in result.stderr
    assert "spt_test_ followed by at least 3 characters" in result.stderr


def test_the_sandbox_presses_pay_on_a_card_page_and_svc_pay_card_finishes(
    cli: Cli, sandbox: Sandbox
) -> None:
    request_id = f"req_{unique_email()[:12].replace('@', '').replace('.', '')}card"
    args = ["submit", "Card it #complete", "--email", unique_email(), "--request-id", request_id]
    assert cli(*args, "--pay", "card").returncode == 6  # stopped at its payment page
    assert cli("sandbox", "pay-card", "--json").json() == {
        "request_id": request_id,
        "pressed": "pay",
    }
    paid = cli("pay", "card", request_id)
    assert paid.returncode == 0, paid.stderr
    [charge] = sandbox.charges_for(request_id)
    assert charge["method"] == "card"
    none_left = cli("sandbox", "pay-card", "req_nothing_waiting")
    assert none_left.returncode == 7 and "no card payment page is waiting" in none_left.stderr


def test_a_press_the_page_refuses_is_one_line_and_exit_2(cli: Cli, sandbox: Sandbox) -> None:
    """The page answering an error (not a sandbox: here its host maps to no seller) is a usage
    error naming the base URL, never a traceback or a raw HTTP error."""
    args = ["submit", "Card it #complete", "--email", unique_email(), "--pay", "card"]
    assert cli(*args).returncode == 6
    fault = {"kind": "code", "code": "seller_not_found", "method": "POST", "path": "/svc/payments/"}
    sandbox.faults(fault)
    refused = cli("sandbox", "pay-card")
    sandbox.clear_faults()
    assert refused.returncode == 2, refused.stderr
    assert f"{sandbox.url} refused the press: is it a sandbox?" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_register_and_claim_name_the_link_and_the_claim_expiry_apart(cli: Cli) -> None:
    """Issue 22.6: register showed the claim's expiry, claim the link's, both as "expires"."""
    from tests.person import finish, spawn_person

    registered = cli.ok("identity", "register", "--email", unique_email()).json()
    claim = cli("identity", "claim", "--no-input")
    assert claim.returncode == 6
    doc = claim.json()
    assert doc["claim_expires_at"] == registered["claim_expires_at"]
    assert doc["link_expires_at"] == doc["expires_at"]
    child = spawn_person(cli, "identity", "claim", "--no-input")
    assert finish(child) == 6
    screen = " ".join((child.before or "").split())
    # Each claim mints a fresh link, so this one expires a moment after the first (a loaded
    # machine can push it over a minute boundary): named as the link's, within a minute.
    # Issue 30.10: the times keep their case (`T`, `Z`), with how long is left beside them.
    # "(in N min)" on a fresh sandbox; its clock may run ahead of ours after other tests
    shown = re.search(r"[Tt]his link expires at (\S+?) \(in [^)]+\);", screen)
    assert shown, screen
    later = datetime.fromisoformat(shown[1]) - datetime.fromisoformat(doc["link_expires_at"])
    assert timedelta(0) <= later < timedelta(minutes=1), screen
    assert f"a new link can be asked until {registered['claim_expires_at']} (in " in screen, screen
