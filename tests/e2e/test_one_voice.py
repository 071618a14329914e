"""One voice for people (issue 30.10 and 30.12): money as `1.50 USD` everywhere, a server's
times as it wrote them, settings named once, and hints that say the next step for the
situation at hand (not a neighbouring one's)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pexpect
import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_tables import screen
from tests.person import spawn_person

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize("args", [["services"], ["services", "show", "tasks"], ["manifest"]])
def test_catalog_prices_read_as_money(cli: Cli, sandbox: Sandbox, args: list[str]) -> None:
    shown = screen(cli, *args, columns=80)
    assert "1.50 USD" in shown, shown
    assert "1.500000" not in shown and "1.50000" not in shown, shown
    assert cli.ok(*args, "--json").stdout.count("1.500000") >= 1  # JSON keeps the exact string


def test_claim_link_times_keep_their_case(cli: Cli) -> None:
    cli.ok("identity", "register", "--email", unique_email())
    child = spawn_person(cli, "identity", "claim", "--no-browser")
    child.expect("Code shown on the page")
    shown = " ".join((child.before or "").split())
    child.sendintr()
    child.expect(pexpect.EOF)
    found = re.search(
        r"This link expires at (\S+) \(in [^)]+\)", shown
    )  # the sandbox clock may run ahead
    assert found, shown
    assert "T" in found[1] and found[1].endswith("Z"), shown  # never `...t05:20:44.768z`


def test_doctor_names_where_the_notify_setting_comes_from(cli: Cli) -> None:
    detail = {c["check"]: c for c in cli.ok("doctor", "--json").json()["checks"]}["notify"]
    assert "(default)" not in detail["detail"], detail
    assert "--notify is off unless asked (built-in default)" in detail["detail"], detail
    cli.ok("config", "set", "notify", "true")
    detail = {c["check"]: c for c in cli.ok("doctor", "--json").json()["checks"]}["notify"]
    assert (
        "--notify is on unless --no-notify (the config file, profile default)" in detail["detail"]
    )


# --- hints that fit the situation (issue 30.12) ---------------------------------------------


def test_an_mpp_decline_names_the_token_not_a_wallet_and_the_second_payment_says_again(
    cli: Cli, sandbox: Sandbox
) -> None:
    env = {"SVC_SPT": f"spt_test_declined_{uuid.uuid4().hex[:8]}"}
    args = ["submit", "Declined #complete", "--email", unique_email(), "--pay", "mpp"]
    result = cli(*args, env=env)
    assert result.returncode == 5, result.stderr
    hint = [line for line in result.stderr.splitlines() if line.startswith("hint:")]
    assert hint and "wallet" not in hint[-1] and "SVC_SPT" in hint[-1], result.stderr
    paying = [line for line in result.stderr.splitlines() if line.startswith("paying")]
    assert len(paying) == 2 and "again" in paying[1], result.stderr  # never twice alike


def test_a_read_of_a_fleet_ledger_that_is_down_does_not_talk_of_payment(
    cli: Cli, tmp_path: Any
) -> None:
    url = f"postgresql:///svc?host={tmp_path}&user=nobody"  # no server listens there
    result = cli("tasks", env={"SVC_LEDGER_URL": url})
    assert result.returncode == 9, result.stderr
    assert "paid" not in result.stderr and "svc tasks" in result.stderr, result.stderr


def test_a_reply_to_an_expired_ask_says_what_to_do_next(cli: Cli, sandbox: Sandbox) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    task_id = cli.ok(
        "submit", "Answer me quickly #ask-expire", "--email", unique_email(), "--request-id", rid
    ).json()["id"]
    sandbox.advance(76)
    sets = ["--set", "shipping_address=x", "--set", "phone=1", "--set", "seat_preference=aisle"]
    result = cli("reply", task_id, *sets)
    assert result.returncode == 8, result.stderr
    assert f"hint: svc poll {task_id}" in result.stderr, result.stderr


def test_ctrl_c_in_watch_names_the_command_that_follows_again(cli: Cli) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    task_id = cli.ok(
        "submit", "Long one #slow", "--email", unique_email(), "--request-id", rid
    ).json()["id"]
    child = spawn_person(cli, "watch", task_id)
    child.expect("created")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert f"svc watch {task_id}" in " ".join((child.before or "").split()), child.before
