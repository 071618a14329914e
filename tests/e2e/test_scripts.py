"""A user's second day, scripting (issue 30, items 1-5): output flags that leave stdout empty
on a failure, a list that says when it was cut, gh's `--json FIELD` habit, tasks the service
no longer knows, and refused submits in the list. Through the `svc` executable, against the
sandbox."""

from __future__ import annotations

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
