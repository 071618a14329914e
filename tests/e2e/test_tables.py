"""Tables for people (issue 15.4): whole ids at any width, `svc tasks --refresh/--state/--since/
--limit`, relative times, one money format, plurals; JSON keeps the exact values."""

from __future__ import annotations

import json
import re
import sys
import time
import uuid
from typing import Any

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def submit(cli: Cli, text: str) -> dict[str, Any]:
    rid = f"req_{uuid.uuid4().hex}"
    task = cli.ok("submit", text, "--email", unique_email(), "--request-id", rid).json()
    return {"task_id": task["id"], "request_id": rid}


def screen(cli: Cli, *args: str, columns: int) -> str:
    """What a person sees on a terminal `columns` wide (colours off, the bytes as drawn)."""
    env = {**cli.env, "NO_COLOR": "1", "COLUMNS": str(columns)}
    env.pop("CI", None)
    child = pexpect.spawn(
        SVC, list(args), env=env, dimensions=(50, columns), encoding="utf-8", timeout=30
    )
    child.logfile_read = sys.stderr
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return re.sub(r"\x1b\[[0-9;]*m", "", str(child.before))


def listed(cli: Cli, *args: str) -> dict[str, dict[str, Any]]:
    return {row["request_id"]: row for row in cli.ok("tasks", "--json", *args).json()}


@pytest.mark.parametrize("columns", [80, 120])
def test_ids_are_whole_at_any_width(cli: Cli, sandbox: Sandbox, columns: int) -> None:
    made = [submit(cli, f"Table {n} #complete") for n in range(2)]
    shown = screen(cli, "tasks", columns=columns)
    for ids in made:
        assert ids["task_id"] in shown  # never `task_02c0…`
        assert ids["request_id"] in shown
    assert "…" not in "".join(line for line in shown.splitlines() if "task_" in line)
    assert all(len(line) <= columns for line in shown.splitlines())
    if columns >= 120:
        assert "1.50 USD" in shown and "just now" in shown


def test_refresh_polls_the_live_states_and_remembers_them(cli: Cli, sandbox: Sandbox) -> None:
    done = submit(cli, "Refresh me #complete")
    asks = submit(cli, "Refresh me #questions")
    sandbox.advance(30)
    before = listed(cli)
    assert before[done["request_id"]]["state"] == "pending"  # the last state seen
    after = listed(cli, "--refresh")
    assert after[done["request_id"]]["state"] == "completed"
    assert after[asks["request_id"]]["state"] == "blocked_on_user"
    assert listed(cli)[done["request_id"]]["state"] == "completed"  # written to the ledger
    only = listed(cli, "--state", "blocked_on_user")
    assert asks["request_id"] in only and done["request_id"] not in only


def test_a_task_that_cannot_be_refreshed_is_marked_and_the_others_go_on(
    cli: Cli, sandbox: Sandbox
) -> None:
    broken = submit(cli, "Broken #complete")
    fine = submit(cli, "Fine #complete")
    sandbox.advance(30)
    sandbox.faults(  # a 503 that outlasts the retries (a 404 marks the task gone: issue 30.4)
        {"kind": "status", "status": 503, "path": f"/svc/tasks/{broken['task_id']}", "count": 8}
    )
    result = cli("tasks", "--refresh", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["request_id"]: row for row in result.json()}
    assert rows[fine["request_id"]]["state"] == "completed"
    assert rows[broken["request_id"]]["state"] == "pending"  # last known, not invented
    assert broken["task_id"] in rows[broken["request_id"]]["refresh_error"]
    assert "could not refresh 1 task (shown as last known)" in result.stderr


def test_refresh_never_sends_an_id_to_another_service(cli: Cli, sandbox: Sandbox) -> None:
    mine = submit(cli, "Here #complete")
    result = cli("tasks", "--refresh", "--json", env={"SVC_BASE_URL": "http://127.0.0.1:9"})
    assert result.returncode == 0, result.stderr  # nothing live here: nothing was polled
    assert listed(cli)[mine["request_id"]]["state"] == "pending"


def test_state_since_and_limit_filter(cli: Cli, sandbox: Sandbox) -> None:
    made = [submit(cli, f"Filter {n} #fail") for n in range(3)]
    sandbox.advance(30)
    cli.ok("tasks", "--refresh")
    failed = cli.ok("tasks", "--json", "--state", "failed,cancelled", "--limit", "2").json()
    assert len(failed) == 2 and {row["state"] for row in failed} == {"failed"}
    assert failed[0]["request_id"] == made[-1]["request_id"]  # newest first
    assert len(listed(cli, "--since", "5m")) == 3
    future = time.strftime("%Y-%m-%dT%H:%M", time.localtime(time.time() + 3600))
    assert cli.ok("tasks", "--json", "--since", future).json() == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--state", "complete"], "did you mean 'completed'?"),
        (["--since", "yesterday"], "is not a duration or a date"),
        (["--since", "99999999d"], "is not a duration or a date"),
    ],
)
def test_bad_filters_are_one_line_and_exit_2(bare_cli: Cli, args: list[str], message: str) -> None:
    result = bare_cli("tasks", *args)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 2  # + hint
    doc = json.loads(bare_cli("tasks", *args, "--json").stdout)
    assert doc["exit_code"] == 2


def test_spend_speaks_money_and_plurals_json_stays_exact(cli: Cli, sandbox: Sandbox) -> None:
    made = submit(cli, "Spend #complete")
    summary = screen(cli, "spend", columns=120)  # the summary alone: tasks on asking
    assert made["task_id"] not in summary and "over 1 paid task (" in summary
    shown = screen(cli, "spend", "--tasks", columns=120)
    assert made["task_id"] in shown and made["request_id"] in shown
    assert "1.50 USD" in shown and "over 1 paid task (" in shown
    assert "1.500000" not in shown and "task(s)" not in shown
    doc = cli.ok("spend", "--json").json()
    assert doc["paid_usd"] == "1.500000" and doc["tasks"][0]["amount_usd"] == "1.500000"


def test_booleans_read_yes_or_no_for_people_and_as_written_in_json(bare_cli: Cli) -> None:
    bare_cli.ok("config", "set", "notify", "true")
    shown = screen(bare_cli, "config", "list", columns=120)
    notify = next(line for line in shown.splitlines() if line.strip().startswith("notify"))
    secrets = next(line for line in shown.splitlines() if "mcp_allow_model_secrets" in line)
    assert " yes " in notify and " no " in secrets
    assert "True" not in shown and "False" not in shown
    doc = bare_cli.ok("config", "get", "notify", "--json").json()
    assert doc["value"] == "true"  # as the config file and `config set` write it
