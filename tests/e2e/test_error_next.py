"""An error's next step is data each face words (issue 32.3): the CLI's hint names its flags and
commands, the JSON error carries the step as `next` for a program to act on, and the Client
words the same step as its own methods. The engines name none of them."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Cli, unique_email

import svc
from svc import Client

pytestmark = pytest.mark.e2e


def test_a_refused_price_names_the_flag_and_carries_the_step(cli: Cli) -> None:
    args = ("submit", "Too dear", "--email", unique_email(), "--max-price", "0.01", "--json")
    result = cli(*args)
    assert result.returncode == 5
    doc = result.json()
    assert doc["error"] == "policy_refused"
    assert doc["next"] == {"action": "raise_max_price"}
    # Only the setting that refused (issue 52): the networks and assets had nothing to do with it.
    assert doc["hint"] == (
        "nothing was signed or paid; change the limit with --max-price or "
        "`svc config set max_price_usd`"
    )
    assert "--max-price" in result.stderr


def test_a_lost_receipt_says_where_to_look_in_each_face(cli: Cli) -> None:
    result = cli("receipt", "req_nosuchrequest1", "--json")
    assert result.returncode == 7
    doc = result.json()
    assert doc["next"] == {"action": "see_tasks"}
    # A local ledger is this machine's alone (issue 52: it spoke of a shared one).
    assert doc["hint"] == "see `svc tasks` (the local ledger: only what this machine submitted)"


def test_the_library_words_the_same_step_as_its_own_call(
    cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in cli.env.items():
        monkeypatch.setenv(name, value)
    with Client(max_price="0.01") as client, pytest.raises(svc.PolicyRefused) as refused:
        client.submit("Too dear", unique_email())
    assert refused.value.next is not None and refused.value.next.action == "raise_max_price"
    assert "Client(max_price=...)" in str(refused.value.hint)
    assert "--max-price" not in str(refused.value.hint)


def test_a_doctor_fix_is_the_face_s_words(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = cli("doctor", "--json", env={"SVC_DAILY_CAP": "none"}).json()
    money = next(c for c in shown["checks"] if c["check"] == "money")
    assert money["status"] == "warn" and money["fix"] == "svc config set daily_cap_usd 15"
    for name, value in {**cli.env, "SVC_DAILY_CAP": "none"}.items():
        monkeypatch.setenv(name, value)
    with Client() as client:
        report = client.doctor()
    fix = next(c.fix for c in report.checks if c.check == "money")
    assert fix == "Client(daily_cap=...) or the daily_cap_usd setting"
    assert {c.check for c in report.checks}.isdisjoint({"notify", "mcp"})  # the CLI's own


def test_prune_without_a_choice_is_the_cli_s_usage_line(cli: Cli, tmp_path: Path) -> None:
    result = cli("tasks", "prune")
    assert result.returncode == 2
    assert "say which rows to prune: --gone, --refused or both" in result.stderr
