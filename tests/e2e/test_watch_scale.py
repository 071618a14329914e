"""Watching many tasks in one process: spread polls, never faster than the interval.

The sandbox notes the time of every poll of a task (admin `poll_times`), which is what the
interval is checked against.
"""

from __future__ import annotations

import json
import subprocess
import time
from datetime import datetime
from itertools import pairwise
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

COUNT = 50
# Long enough that a loaded 2-core machine cannot squeeze the spread of the first polls below
# a quarter of it (at 1.0 s and half, a run with seven other processes busy measured 0.448 s).
INTERVAL = 2.0


def _times(sandbox: Sandbox, task_id: str) -> list[float]:
    return [
        datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()
        for t in sandbox.internals(task_id)["poll_times"]
    ]


def test_watch_all_follows_50_tasks_within_their_interval(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    email = unique_email()
    source = tmp_path / "many.jsonl"
    source.write_text(
        "".join(
            json.dumps({"task": f"scale {i} #complete", "email": email}) + "\n"
            for i in range(COUNT)
        )
    )
    # 50 paid tasks: far over a fresh home's daily cap, which this test is not about
    submitted = cli.ok("submit", "--from", str(source), env={"SVC_DAILY_CAP": "none"}).lines()
    ids = {doc["task_id"] for doc in submitted}
    assert len(ids) == COUNT

    watcher = subprocess.Popen(
        [SVC, "watch", "--all", "--interval", str(INTERVAL), "--json"],
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60  # every task polled once before any completes
        while not all(_times(sandbox, task_id) for task_id in ids):
            assert watcher.poll() is None and time.monotonic() < deadline
            time.sleep(0.5)  # a marker polled for (the sandbox's own record), not a fixed wait
        sandbox.advance(30)  # every #complete task completes 20 s after creation
        out, err = watcher.communicate(timeout=30)
    finally:
        watcher.kill()
    assert watcher.returncode == 0, err
    assert "Traceback" not in err
    last: dict[str, dict[str, object]] = {}
    for line in out.splitlines():
        doc = json.loads(line)
        last[doc["id"]] = doc
    assert set(last) == ids
    assert all(doc["state"] == "completed" for doc in last.values())

    firsts = []
    for task_id in ids:
        times = _times(sandbox, task_id)
        assert len(times) >= 2, task_id
        gaps = [b - a for a, b in pairwise(times)]
        assert min(gaps) >= INTERVAL, (task_id, min(gaps))
        firsts.append(times[0])
    # The first polls are spread over the interval, not fired together.
    assert max(firsts) - min(firsts) >= INTERVAL / 4  # fired together: a few dozen ms


def test_watch_many_with_no_input_stops_on_asks_with_exit_6(cli: Cli, sandbox: Sandbox) -> None:
    email = unique_email()
    done = cli.ok("submit", "many #complete", "--email", email).json()
    asks = cli.ok("submit", "many #2fa", "--email", email).json()
    sandbox.advance(30)
    result = cli("watch", done["id"], asks["id"], "--no-input", "--interval", "1", "--json")
    assert result.returncode == 6
    assert f"task {asks['id']} waits on the user" in result.stderr
    states = {doc["id"]: doc["state"] for doc in result.lines()}
    assert states == {done["id"]: "completed", asks["id"]: "blocked_on_user"}


def test_watch_needs_ids_or_all(cli: Cli) -> None:
    result = cli("watch")
    assert result.returncode == 2
    assert (
        "svc: missing ID: give task ids, or --all for every live task in the ledger"
        in result.stderr
    )


def test_watch_all_with_nothing_live(bare_cli: Cli) -> None:
    result = bare_cli("watch", "--all")
    assert result.returncode == 0
    assert "no live task in the ledger" in result.stderr
    assert result.stdout == ""
