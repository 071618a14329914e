"""A budget's words match its share (issue 52): past 100 % it is "over its limit" in `svc
budget`, `svc spend` and `svc doctor`; and `svc budget set` warns when the new budget is already
exceeded by what its window has used (the budget is set all the same)."""

from __future__ import annotations

import pytest
from tests.conftest import Cli, Sandbox
from tests.e2e.test_budgets import pay

pytestmark = pytest.mark.e2e


def paid_three(cli: Cli) -> None:
    """4.50 USD used this week, before any budget."""
    assert [pay(cli).returncode for _ in range(3)] == [0, 0, 0]


def test_a_budget_set_below_what_its_window_used_warns_and_is_set(
    cli: Cli, sandbox: Sandbox
) -> None:
    paid_three(cli)
    result = cli("budget", "set", "3", "--per", "week")
    assert result.returncode == 0, result.stderr
    warned = [line for line in result.stderr.splitlines() if "already exceeded" in line]
    assert len(warned) == 1, result.stderr
    assert "4.50 USD used of 3.00 USD this week" in warned[0]
    assert "payments in its scope are refused until Mon " in warned[0]
    doc = result.json()  # the budget as set, and that it is already exceeded
    assert doc["already_exceeded"] is True and doc["warning"] == warned[0].removeprefix("warning: ")
    assert (doc["used_usd"], doc["limit_usd"], doc["percent"]) == ("4.500000", "3.000000", 150)
    [week] = cli.ok("budget", "--json").json()["budgets"]
    assert week["limit_usd"] == "3.000000"  # set, whatever was used


def test_a_budget_set_above_what_its_window_used_says_nothing_more(
    cli: Cli, sandbox: Sandbox
) -> None:
    assert pay(cli).returncode == 0
    result = cli.ok("budget", "set", "3", "--per", "week")
    assert "already" not in result.stderr, result.stderr
    doc = result.json()
    assert doc["already_exceeded"] is False and doc["warning"] is None


def test_a_budget_past_its_limit_is_over_it_in_budget_spend_and_doctor(
    cli: Cli, sandbox: Sandbox
) -> None:
    from tests.e2e.test_eighty_columns import drawn

    paid_three(cli)
    cli.ok("budget", "set", "3", "--per", "week")
    for command in ("budget", "spend"):
        screen = drawn(cli, command, columns=80)
        lines = screen.splitlines()
        at = next(n for n, line in enumerate(lines) if "budget week, profile default" in line)
        assert "4.50 of 3.00 USD (150 %)" in lines[at], screen
        assert lines[at + 1].endswith("; over its limit"), screen
        assert "near its limit" not in screen
    checks = {c["check"]: c for c in cli.ok("doctor", "--json").json()["checks"]}
    detail = checks["budgets"]["detail"]
    assert checks["budgets"]["status"] == "warn" and "(150 %), over its limit" in detail
