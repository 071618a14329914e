"""Budgets, the hourly rate and the breaker (issue 35.1-35.3), as a user meets them: `svc
budget set`, paid submits against the sandbox, the refusal's exit 5 and its words, `svc
budget` and its JSON, and nothing signed for a refused request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Result, Sandbox, unique_email, unique_request_id
from tests.person import fake_notify_send

from svc.store.ledger import Ledger
from svc.store.ledger.budgets import Budget

pytestmark = pytest.mark.e2e


def pay(cli: Cli, task: str = "Budgeted #complete", env: dict[str, str] | None = None) -> Result:
    rid = unique_request_id()
    return cli("submit", task, "--email", unique_email(), "--request-id", rid, "--json", env=env)


def mpp(**extra: str) -> dict[str, str]:
    """Pay by MPP with a fresh shared payment token (one token pays once)."""
    return {"SVC_SPT": f"spt_test_{uuid.uuid4().hex}", "SVC_PAY": "mpp", **extra}


def signed(cli: Cli, request_id: str) -> list[Any]:
    ledger = Ledger(cli.home / "data" / "ledger.sqlite3")
    try:
        return ledger.authorizations_of(request_id)
    finally:
        ledger.close()


def test_a_weekly_budget_lets_two_tasks_through_and_refuses_the_third(
    cli: Cli, sandbox: Sandbox
) -> None:
    cli.ok("budget", "set", "3.00", "--per", "week")
    first, second = pay(cli), pay(cli)
    assert (first.returncode, second.returncode) == (0, 0), second.stderr
    assert "weekly (Monday to Sunday) budget of profile default is 100 % used" in second.stderr
    third = pay(cli)
    assert third.returncode == 5, third.stderr
    doc = third.json()
    assert doc["error"] == "budget_exceeded" and doc["exit_code"] == 5
    assert "weekly (Monday to Sunday) budget of profile default of 3.00 USD" in third.stderr
    assert "resets at Mon " in third.stderr and "00:00" in third.stderr
    assert "svc budget" in third.stderr  # the next step, in the CLI's words
    rid = third.args[third.args.index("--request-id") + 1]
    assert sandbox.charges_for(rid) == [] and signed(cli, rid) == []  # nothing signed
    shown = cli.ok("budget", "--json").json()
    [week] = shown["budgets"]
    assert (week["used_usd"], week["left_usd"], week["percent"]) == ("3.000000", "0.000000", 100)
    assert week["applies"] and week["resets_at"] and week["per"] == "week"


def test_the_warning_comes_once_a_window(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("budget", "set", "7.50", "--per", "day")  # 80 % is the fourth task
    told = [pay(cli).stderr for _ in range(5)]
    warned = ["budget of profile default is" in err for err in told]
    assert warned == [False, False, False, True, False], told


def test_a_runner_budget_refuses_one_runner_while_another_keeps_paying(
    cli: Cli, sandbox: Sandbox
) -> None:
    cli.ok("budget", "set", "1.50", "--per", "rolling:24h", "--runner", "ci-7")
    seven, eight = {"SVC_RUNNER": "ci-7"}, {"SVC_RUNNER": "ci-8"}
    assert pay(cli, env=seven).returncode == 0
    refused = pay(cli, env=seven)
    assert refused.returncode == 5 and refused.json()["error"] == "budget_exceeded"
    assert "rolling 24h budget of runner ci-7" in refused.stderr
    assert [pay(cli, env=eight).returncode for _ in range(2)] == [0, 0]


def test_the_tightest_of_several_budgets_decides(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("budget", "set", "100", "--per", "month")
    cli.ok("budget", "set", "1.50", "--per", "day")
    assert pay(cli).returncode == 0
    refused = pay(cli)
    assert refused.returncode == 5 and "daily budget of profile default" in refused.stderr
    cli.ok("budget", "unset", "--per", "day")
    assert pay(cli).returncode == 0


def test_five_refunded_paid_requests_stop_the_sixth_before_it_is_signed(
    cli: Cli, sandbox: Sandbox
) -> None:
    for _ in range(5):  # the service charges, fails the delivery and refunds it in full
        assert pay(cli, "Fragile #fail-delivery", mpp()).returncode == 9
    sixth = pay(cli, "Fine #complete", mpp())
    assert sixth.returncode == 5, sixth.stderr
    assert sixth.json()["error"] == "breaker_open"
    assert "the last 5 paid requests failed or were refunded" in sixth.stderr
    assert "svc budget reset-breaker" in sixth.stderr
    rid = sixth.args[sixth.args.index("--request-id") + 1]
    assert sandbox.charges_for(rid) == [] and signed(cli, rid) == []
    assert cli.ok("budget", "--json").json()["breaker"]["open"] is True
    cli.ok("budget", "reset-breaker")
    assert pay(cli, "Fine #complete", mpp()).returncode == 0


def test_a_success_between_failures_keeps_the_breaker_closed(cli: Cli, sandbox: Sandbox) -> None:
    outcomes = [
        pay(cli, task, mpp(SVC_BREAKER_AFTER="2")).returncode
        for task in ("Fragile #fail-delivery", "Fine #complete") * 2
    ]
    assert outcomes == [9, 0, 9, 0]


def test_max_paid_per_hour_refuses_the_next_start(cli: Cli, sandbox: Sandbox) -> None:
    env = {"SVC_MAX_PAID_PER_HOUR": "2"}
    assert [pay(cli, env=env).returncode for _ in range(2)] == [0, 0]
    refused = pay(cli, env=env)
    assert refused.returncode == 5 and refused.json()["error"] == "rate_limited"
    assert "2 paid requests were started in the last hour" in refused.stderr


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("set", "50", "--per", "fortnight"), "is not a budget window"),
        (("set", "50", "--per", "rolling:0h"), "is not a budget window"),
        (("set", "--per", "week", "--", "-5"), "-5"),
        (("set", "１０", "--per", "week"), "amount"),
        (("set", "0", "--per", "week"), "more than 0.00 USD"),
        (("set", "NaN", "--per", "week"), "amount"),
        (("set", "5", "--per", "week", "--fleet"), "ledger_url is not set"),
        (("set", "5", "--per", "week", "--runner", "a", "--fleet"), "choose one"),
        (("unset", "--per", "week"), "has no week budget"),
    ],
)
def test_bad_budget_input_is_one_line_and_exit_2(
    cli: Cli, args: tuple[str, ...], words: str
) -> None:
    result = cli("budget", *args)
    assert result.returncode == 2, result.stderr
    assert words in result.stderr, result.stderr


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("SVC_BREAKER_AFTER", "five"),
        ("SVC_MAX_PAID_PER_HOUR", "-1"),
        ("SVC_BUDGET_WARN_PERCENT", "0"),
    ],
)
def test_a_bad_budget_setting_is_refused_before_paying(
    cli: Cli, sandbox: Sandbox, key: str, value: str
) -> None:
    result = pay(cli, env={key: value})
    assert result.returncode == 2 and key in result.stderr


def test_spend_budget_and_doctor_show_the_bar_and_the_warning(cli: Cli, sandbox: Sandbox) -> None:
    from tests.e2e.test_eighty_columns import drawn

    cli.ok("budget", "set", "3.00", "--per", "week")
    cli.ok("budget", "set", "100", "--per", "month", "--runner", "elsewhere")
    assert pay(cli).returncode == 0 and pay(cli).returncode == 0
    screen = drawn(cli, "budget", columns=80)
    assert all(len(line) <= 80 for line in screen.splitlines()), screen
    lines = screen.splitlines()
    at = next(n for n, line in enumerate(lines) if "budget week, profile default" in line)
    assert "█" * 20 in lines[at] and "3.00 of 3.00 USD (100 %)" in lines[at]
    assert "0.00 USD left; resets Mon " in lines[at + 1]  # the next Monday, 00:00 local
    assert lines[at + 1].endswith("00:00; at its limit")  # 100 %: at it, not near it
    assert "not this profile or runner" in screen  # the other runner's, shown dimmed
    spend = drawn(cli, "spend", columns=80)
    assert spend.index("budget week, profile default") < spend.index("by day")
    assert "elsewhere" not in spend  # spend shows the budgets that bind this process
    assert [b["per"] for b in cli.ok("spend", "--json").json()["budgets"]] == ["week"]
    checks = {c["check"]: c for c in cli.ok("doctor", "--json").json()["checks"]}
    assert checks["budgets"]["status"] == "warn"
    assert "(100 %), at its limit" in checks["budgets"]["detail"]


LIBRARY = """
import json, svc
with svc.Client() as client:
    client.submit("Library #complete", "lib@example.com")
    try:
        client.submit("Library again #complete", "lib@example.com")
    except svc.PolicyRefused as refused:
        print(json.dumps({"code": refused.code, "hint": refused.hint}))
    print(json.dumps(client.budgets().to_json()))
"""


def test_the_library_reads_budgets_as_data_and_a_refusal_is_policy_refused(
    cli: Cli, sandbox: Sandbox
) -> None:
    cli.ok("budget", "set", "1.50", "--per", "month")
    run = subprocess.run(
        [sys.executable, "-c", LIBRARY], env=cli.env, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    refused, shown = run.stdout.splitlines()
    assert json.loads(refused)["code"] == "budget_exceeded"
    assert "budgets()" in json.loads(refused)["hint"]  # the next step in the library's words
    [month] = json.loads(shown)["budgets"]
    assert (month["per"], month["used_usd"], month["left_usd"]) == ("month", "1.500000", "0.000000")


@pytest.mark.parametrize(("scope", "window"), [("team", "week"), ("profile", "rolling:90m")])
def test_a_budget_this_svc_cannot_read_refuses_rather_than_being_ignored(
    cli: Cli, sandbox: Sandbox, scope: str, window: str
) -> None:
    """A newer svc (or a hand-edited ledger) wrote a scope or window this one does not know:
    dropping it would drop a money limit, so every payment is refused until it goes."""
    assert pay(cli).returncode == 0  # the ledger exists
    ledger = Ledger(cli.home / "data" / "ledger.sqlite3")
    try:
        ledger.set_budget(Budget(scope, "default", window, 100_000_000))
    finally:
        ledger.close()
    refused = pay(cli)
    assert refused.returncode == 5 and refused.json()["error"] == "budget_unreadable"
    assert "a money limit is never ignored" in refused.stderr
    rid = refused.args[refused.args.index("--request-id") + 1]
    assert signed(cli, rid) == []
    shown = cli.ok("budget", "--json").json()["budgets"]
    assert [(b["per"], b.get("unreadable")) for b in shown] == [(window, True)]


@pytest.mark.parametrize(
    ("key", "value"),
    [("budget_warn_percent", "500"), ("breaker_after", "1001"), ("max_paid_per_hour", "1.5")],
)
def test_config_set_refuses_a_count_out_of_its_range(cli: Cli, key: str, value: str) -> None:
    refused = cli("config", "set", key, value)
    assert refused.returncode == 2 and "whole number" in refused.stderr
    cli.ok("config", "list")  # the file stays readable: nothing was written


def test_the_warning_is_a_desktop_notification_when_the_person_asked_for_them(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    """The `notify` setting (what `watch --notify` and `submit --wait` follow) makes the 80 %
    warning a desktop notification too; without it the notifier is never run."""
    bin_dir, log = fake_notify_send(tmp_path)
    path = {"PATH": f"{bin_dir}{os.pathsep}{cli.env['PATH']}"}
    quiet, told = {**path, "SVC_NOTIFY": "0"}, {**path, "SVC_NOTIFY": "1"}
    cli.ok("budget", "set", "3.00", "--per", "day")  # the second task fills it
    assert pay(cli, env=quiet).returncode == 0
    warned = pay(cli, env=quiet)
    assert warned.returncode == 0 and "daily budget of profile default is" in warned.stderr
    time.sleep(0.5)
    assert not log.exists()  # warned on stderr only: the person did not ask for more
    cli.ok("budget", "unset", "--per", "day")
    cli.ok("budget", "set", "5.00", "--per", "week")  # 4.50 of 5.00 after the next: 90 %
    warned = pay(cli, env=told)
    assert warned.returncode == 0 and "weekly" in warned.stderr
    for _ in range(50):  # the notifier runs detached
        if log.exists() and "---" in log.read_text():
            break
        time.sleep(0.1)
    text = log.read_text()
    assert "weekly (Monday to Sunday) budget of profile default is" in text
