"""Tasks the service no longer knows, many at once (issue 52): `svc watch --all` sums them up
in one line, and `svc tasks prune --gone` says what it removed, or why it removed nothing.

The rows are written in bulk (tests/ledger_fill.py) as paid, live tasks of the sandbox: it
never knew their ids, so it answers 404 for each, as a service that forgot them does.
"""

from __future__ import annotations

import re
import sqlite3
import time
from contextlib import closing

import pytest
from tests.conftest import Cli, Sandbox
from tests.e2e.test_eighty_columns import assert_fits
from tests.ledger_fill import Charge, fill

pytestmark = pytest.mark.e2e


def forgotten_tasks(cli: Cli, sandbox: Sandbox, count: int, state: str = "pending") -> list[str]:
    """`count` paid rows in the ledger, live (or `state`) at the sandbox, which never knew
    them; their task ids."""
    path = cli.home / "data" / "ledger.sqlite3"
    now = time.time()
    charges = [
        Charge(
            f"req_{n:032x}", now - 3600 + n, task=f"Task {n} #complete", task_id=f"task_{n:016x}"
        )
        for n in range(count)
    ]
    fill(path, charges)
    with closing(sqlite3.connect(path)) as db, db:
        db.execute(
            "UPDATE submissions SET base_url = ?, origin = ?, state = ?",
            (sandbox.url, sandbox.url, state),
        )
    return [str(c.task_id) for c in charges]


def test_watch_all_says_once_that_many_tasks_are_gone(cli: Cli, sandbox: Sandbox) -> None:
    ids = forgotten_tasks(cli, sandbox, 61)
    result = cli("watch", "--all", "--no-input", "--interval", "1")
    assert result.returncode == 0, result.stderr
    told = result.stderr.splitlines()
    assert len(told) == 1, result.stderr  # one summary line, not 61 warnings
    assert "61 tasks are gone from the service" in told[0]
    assert "svc tasks prune --gone" in told[0]
    named = [tid for tid in ids if tid in told[0]]
    assert 1 <= len(named) <= 3 and "and 58 more" in told[0], told[0]  # a few ids at most
    gone_lines = [line for line in result.lines() if line.get("state") == "gone"]
    assert sorted(line["id"] for line in gone_lines) == sorted(ids)  # NDJSON: one per task
    states = {row["task_id"]: row["state"] for row in cli.ok("tasks", "--all", "--json").json()}
    assert set(states.values()) == {"gone"} and len(states) == 61


def test_watch_all_names_a_single_gone_task(cli: Cli, sandbox: Sandbox) -> None:
    [tid] = forgotten_tasks(cli, sandbox, 1)
    result = cli("watch", "--all", "--no-input", "--interval", "1")
    assert result.returncode == 0, result.stderr
    assert len(result.stderr.splitlines()) == 1 and f"task {tid} " in result.stderr


def test_prune_gone_says_why_paid_rows_stay(cli: Cli, sandbox: Sandbox) -> None:
    ids = forgotten_tasks(cli, sandbox, 61, state="gone")
    result = cli("tasks", "prune", "--gone")  # piped: JSON on stdout
    assert result.returncode == 0, result.stderr
    doc = result.json()
    assert doc["forgotten"] == [] and len(doc["kept"]) == 61  # the field was right: kept
    told = result.stderr.splitlines()
    assert len(told) == 1, result.stderr
    assert "nothing pruned" in told[0] and "61" in told[0] and "--force" in told[0], told[0]
    assert len(cli.ok("tasks", "--all", "--json").json()) == 61  # really still there
    assert sum(tid in told[0] for tid in ids) <= 3


def test_prune_gone_with_nothing_gone_says_so(cli: Cli, sandbox: Sandbox) -> None:
    forgotten_tasks(cli, sandbox, 2, state="completed")
    result = cli("tasks", "prune", "--gone")
    assert result.returncode == 0 and result.json() == {"forgotten": [], "kept": []}
    told = result.stderr.splitlines()
    assert len(told) == 1 and "nothing pruned" in told[0] and "gone" in told[0], result.stderr


def test_prune_names_the_rows_it_removed(cli: Cli, sandbox: Sandbox) -> None:
    ids = forgotten_tasks(cli, sandbox, 3, state="gone")
    forced = cli("tasks", "prune", "--gone", "--force", "--json")
    assert forced.returncode == 0, forced.stderr
    removed = forced.json()["forgotten"]
    assert sorted(r["task_id"] for r in removed) == sorted(ids)
    assert all(re.fullmatch(r"req_[0-9a-f]{32}", r["request_id"]) for r in removed)
    assert cli.ok("tasks", "--all", "--json").json() == []


def test_prune_at_eighty_columns_never_cuts_an_id(cli: Cli, sandbox: Sandbox) -> None:
    forgotten_tasks(cli, sandbox, 8, state="gone")
    shown = assert_fits(cli, "tasks", "prune", "--gone")
    assert "…" not in shown, shown
    for rid in re.findall(r"req_[0-9a-f]+", shown):
        assert len(rid) == 36, shown
