"""A user's second day, scripting (issue 30, items 1-5): output flags that leave stdout empty
on a failure, a list that says when it was cut, gh's `--json FIELD` habit, tasks the service
no longer knows, and refused submits in the list. Through the `svc` executable, against the
sandbox."""

from __future__ import annotations

import re
import uuid

import pytest
from tests.conftest import Cli, Result, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def refused_submit(cli: Cli, *flags: str) -> tuple[str, Result]:
    """A submit the payment policy refuses (price 1.50 USD over a 1.00 USD limit)."""
    rid = f"req_{uuid.uuid4().hex}"
    args = ["submit", "Too dear #complete", "--email", unique_email(), "--request-id", rid]
    result = cli(*args, "--max-price", "1.00", *flags)
    assert result.returncode == 5, result.stderr
    return rid, result


# --- 1. --jq / --template on a failure -----------------------------------------------------


@pytest.mark.parametrize("flags", [["--jq", ".id"], ["--template", "{{ id }}"], ["--jq=.id"]])
def test_a_shaping_flag_leaves_stdout_empty_on_a_failure(
    cli: Cli, sandbox: Sandbox, flags: list[str]
) -> None:
    _, result = refused_submit(cli, *flags)
    assert result.stdout == ""
    assert "svc: refusing to pay" in result.stderr


def test_plain_json_keeps_the_error_object_on_stdout(cli: Cli, sandbox: Sandbox) -> None:
    for flags in (["--json"], []):  # --json, or piped
        _, result = refused_submit(cli, *flags)
        doc = result.json()
        assert doc["error"] == "policy_refused" and doc["exit_code"] == 5


def test_a_usage_error_under_jq_leaves_stdout_empty(cli: Cli) -> None:
    result = cli("poll", "--jq", ".state")
    assert result.returncode == 2 and result.stdout == ""
    assert "Missing argument" in result.stderr


# --- 2. svc tasks says when it cut the list ------------------------------------------------


def test_a_cut_list_says_so_and_all_lists_everything(cli: Cli, sandbox: Sandbox) -> None:
    for n in range(4):
        refused_submit(cli)  # four rows, nothing paid, nothing sent
    cut = cli.ok("tasks", "--limit", "3", "--jq", "length")
    assert cut.stdout.strip() == "3"
    assert "showing 3 of 4 (--limit N, --all)" in cut.stderr
    for flags in (["--all"], ["--limit", "0"], ["--limit", "4"]):
        whole = cli.ok("tasks", *flags, "--jq", "length")
        assert whole.stdout.strip() == "4" and "showing" not in whole.stderr, flags
    narrowed = cli.ok("tasks", "--since", "1h", "--limit", "2", "--json")
    assert len(narrowed.json()) == 2 and "showing 2 of 4" in narrowed.stderr


# --- 4. tasks the service no longer knows --------------------------------------------------


def test_watch_all_marks_a_task_the_service_forgot_and_watches_the_rest(
    cli: Cli, sandbox: Sandbox
) -> None:
    done = cli.ok("submit", "Still known #complete", "--email", unique_email()).json()["id"]
    forgot = cli.ok("submit", "Forgotten #complete", "--email", unique_email()).json()["id"]
    sandbox.advance(30)
    # What a restarted sandbox answers for a task it no longer has.
    sandbox.faults({"kind": "status", "status": 404, "path": f"/svc/tasks/{forgot}", "count": 50})
    result = cli("watch", "--all", "--no-input", "--interval", "1", "--json")
    assert result.returncode == 0, result.stderr
    named = [line for line in result.stderr.splitlines() if forgot in line]
    assert len(named) == 1 and "marked gone" in named[0], result.stderr  # one warning
    lines = result.lines()
    assert {"id": forgot, "state": "gone"} in lines
    assert [line["state"] for line in lines if line["id"] == done][-1] == "completed"
    states = {row["task_id"]: row["state"] for row in cli.ok("tasks", "--json").json()}
    assert states == {done: "completed", forgot: "gone"}
    again = cli("watch", "--all", "--no-input", "--interval", "1")
    assert again.returncode == 0 and forgot not in again.stderr  # gone: not live any more
    assert cli("watch", forgot, "--no-input").returncode == 7  # a typed id stays not found
    assert forgot in cli.ok("tasks", "--state", "gone", "--json").stdout


def test_prune_and_forget_remove_notes_and_never_money_without_force(
    cli: Cli, sandbox: Sandbox
) -> None:
    refused, _ = refused_submit(cli)
    paid = cli.ok("submit", "Paid and gone #complete", "--email", unique_email()).json()["id"]
    sandbox.faults({"kind": "status", "status": 404, "path": f"/svc/tasks/{paid}", "count": 50})
    cli.ok("tasks", "--refresh")  # a 404 marks it gone here too
    assert cli.ok("tasks", "--state", "gone", "--jq", ".[].task_id").stdout.strip() == paid

    kept = cli("tasks", "prune", "--gone", "--refused", "--json")
    assert kept.returncode == 0, kept.stderr
    assert [r["request_id"] for r in kept.json()["forgotten"]] == [refused]
    assert [r["task_id"] for r in kept.json()["kept"]] == [paid]

    refusal = cli("tasks", "forget", paid)
    assert refusal.returncode == 2 and "paid 1.50 USD by x402" in refusal.stderr
    assert refusal.stdout == "" or refusal.json()["error"] == "ledger_row_is_money"
    assert paid in cli.ok("tasks", "--json").stdout  # nothing removed

    forced = cli("tasks", "forget", paid, "--force", "--json")
    assert forced.returncode == 0, forced.stderr
    assert f"forgetting task {paid}" in forced.stderr and "paid 1.50 USD" in forced.stderr
    assert cli.ok("tasks", "--json").json() == []
    assert cli.ok("spend", "--json").json()["cap"]["exposed_today_usd"] == "1.500000"
    missing = cli("tasks", "forget", "task_0000000000000000")
    assert missing.returncode == 7 and "nothing was removed" in missing.stderr


def test_tasks_alone_still_lists(cli: Cli, sandbox: Sandbox) -> None:
    refused_submit(cli)
    assert len(cli.ok("tasks").json()) == 1  # piped: the JSON list, as the contract says
    assert "forget" in cli.ok("tasks", "--help").stdout
    assert cli("tasks", "prune").returncode == 2  # say which rows


# --- 5. refused submits in the list, ids that are not ids, ISO times -----------------------


def test_a_refused_submit_says_why_in_the_list(cli: Cli, sandbox: Sandbox) -> None:
    rid, _ = refused_submit(cli)
    (row,) = cli.ok("tasks", "--json").json()
    assert row["request_id"] == rid and row["task_id"] is None and row["state"] is None
    assert row["status"] == "rejected"
    assert row["status_reason"] == "refused: price 1.50 USD is above the limit 1.00 USD"
    shown = cli.ok("tasks", "--template", "{% for t in items %}{{ t.status_reason }}{% endfor %}")
    assert shown.stdout.startswith("refused: price 1.50 USD")


@pytest.mark.parametrize("command", [["poll"], ["watch"], ["reply", "--message", "hi"]])
@pytest.mark.parametrize("word", ["null", "None", "undefined"])
def test_an_id_that_is_a_placeholder_is_refused_before_anything_is_sent(
    bare_cli: Cli, command: list[str], word: str
) -> None:
    """`svc poll null` (jq's answer for a missing `.id`) never reaches the service: the bare
    home has no service at all, so an attempt would be exit 9."""
    result = bare_cli(command[0], word, *command[1:])
    assert result.returncode == 2, result.stderr
    assert f"invalid ID '{word}'" in result.stderr
    assert "hint: " in result.stderr and "svc tasks" in result.stderr


def test_ledger_times_are_iso_8601_like_the_services(cli: Cli, sandbox: Sandbox) -> None:
    cli.ok("submit", "Timed #complete", "--email", unique_email())
    refused_submit(cli)
    stamp = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"
    for row in cli.ok("tasks", "--json").json():
        assert re.match(stamp, row["created_at"]) and re.match(stamp, row["updated_at"]), row
    spend = cli.ok("spend", "--json").json()
    for line in spend["outstanding"]:
        assert re.match(stamp, line["signed_at"]), line


# --- 3. gh's `--json FIELD` ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["poll", "task_8f2c41d09b7e6a13", "--json", "state"], "state"),
        (["poll", "--json", "state", "task_8f2c41d09b7e6a13"], "state"),
        (["submit", "--json", "id", "Book it", "--email", "a@example.com", "x"], "id"),
        (["tasks", "--json", "task_id"], "task_id"),
        (["spend", "--json", "total_usd"], "total_usd"),
    ],
)
def test_a_lone_json_field_gets_the_equals_hint(bare_cli: Cli, args: list[str], field: str) -> None:
    result = bare_cli(*args)
    assert result.returncode == 2, result.stderr
    assert f"hint: one field needs '=': --json={field}" in result.stderr


def test_no_field_hint_for_a_word_that_is_not_a_field(bare_cli: Cli) -> None:
    result = bare_cli("poll", "task_8f2c41d09b7e6a13", "--json", "nonsense")
    assert result.returncode == 2 and "one field needs" not in result.stderr
