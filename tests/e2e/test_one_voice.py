"""One voice for people (issue 30.10 and 30.12): money as `1.50 USD` everywhere, a server's
times as it wrote them, settings named once, and hints that say the next step for the
situation at hand (not a neighbouring one's)."""

from __future__ import annotations

import re

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
    found = re.search(r"This link expires at (\S+) \(in \d+ min\)", shown)
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
