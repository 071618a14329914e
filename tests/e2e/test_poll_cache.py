"""A poll keeps the ledger's cache of task states without writing what it already holds
(issue 34.3): an unchanged state is no write (a write is a WAL frame, and the checkpoint when
the process closes the ledger fsyncs the WAL, the file and its folder), a changed one is
written as before, on the fast path and through the full app alike."""

from __future__ import annotations

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.ledger_reads import ledger_file, submission_row

pytestmark = pytest.mark.e2e


def test_a_poll_writes_the_state_only_when_it_is_news(cli: Cli, sandbox: Sandbox) -> None:
    env: dict[str, str] = {}
    rid = unique_request_id()
    task = cli.ok(
        "submit", "cache #slow", "--email", unique_email(), "--request-id", rid, "--json"
    ).json()
    ledger = ledger_file(cli.home)
    cli.ok("poll", task["id"], "--json", env=env)
    before = submission_row(ledger, rid)
    assert before["state"] == "pending"
    for _ in range(2):
        assert cli.ok("poll", task["id"], "--json", env=env).json()["state"] == "pending"
    assert submission_row(ledger, rid) == before  # not even updated_at moved
    sandbox.advance(700)  # a #slow task completes
    assert cli.ok("poll", task["id"], "--json", env=env).json()["state"] == "completed"
    after = submission_row(ledger, rid)
    assert after["state"] == "completed" and after["updated_at"] > before["updated_at"]
    assert cli.ok("tasks", "--json").json()[0]["state"] == "completed"
