"""A fleet budget (issue 35.1): four `svc` runners, each its own process, data dir and secret
store, share one ledger on a real PostgreSQL server and race through their batches; the fleet's
budget, set once with `svc budget set --fleet`, is never exceeded, and each runner's refusal
names it.

The runners are forked from a process that imported svc (tests/forkserver.py), so all four
start within milliseconds, and each paid POST waits 0.3 s in the sandbox, as a far service
would: one runner cannot take the whole budget before the others start (on a loaded machine
exec'd runners started seconds apart and the first paid all six: no race was run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, _base_env, unique_email, unique_request_id
from tests.forkserver import ForkServer

from svc.store.ledger import open_ledger

pytestmark = pytest.mark.e2e

RUNNERS = 4
LINES = 8  # each runner its own 8 tasks: 32 wanted, room for 6
BUDGET_USD = "9.00"  # six tasks at 1.50 USD


def runner_env(cli: Cli, tmp_path: Path, name: str, pg_url: str, url: str) -> dict[str, str]:
    home = tmp_path / name
    shutil.copytree(cli.home, home)
    return {
        **_base_env(home),
        "SVC_BASE_URL": url,
        "SVC_LEDGER_URL": pg_url,
        "SVC_RUNNER": name,
        "SVC_DAILY_CAP": "none",  # the budget alone decides
    }


@pytest.mark.timeout(300)
def test_four_runners_racing_never_exceed_a_fleet_budget(
    cli: Cli, fork_server: ForkServer, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    admin = runner_env(cli, tmp_path, "admin", pg_url, sandbox.url)
    cli.ok("budget", "set", BUDGET_USD, "--per", "week", "--fleet", env=admin)
    sandbox.faults(
        {"kind": "delay", "seconds": 0.3, "method": "POST", "path": "/svc/tasks", "count": 10_000}
    )
    email, ids, runs = unique_email(), [], []
    for n in range(RUNNERS):
        lines = [
            {"task": f"Fleet budget {n}.{i}", "email": email, "request_id": unique_request_id()}
            for i in range(LINES)
        ]
        ids += [line["request_id"] for line in lines]
        batch = tmp_path / f"batch-{n}.jsonl"
        batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
        env = runner_env(cli, tmp_path, f"runner-{n}", pg_url, sandbox.url)
        args = ["submit", "--from", str(batch), "--concurrency", "3", "--json"]
        runs.append((args, env))
    procs = [fork_server.popen(args, env=env) for args, env in runs]
    outputs = [proc.communicate(timeout=240) for proc in procs]
    refusals = 0
    for out, err in outputs:
        assert "Traceback" not in err, err[-2000:]
        results = [json.loads(line) for line in out.splitlines() if line.strip()]
        assert len(results) == LINES, err[-1000:]
        refusals += sum("budget of the fleet" in json.dumps(r) for r in results)
    charged = [c for c in sandbox.books()["charges"] if c["request_id"] in ids]
    assert len(charged) == 6, f"{len(charged)} tasks paid under a budget with room for 6"
    assert refusals == len(ids) - 6
    ledger = open_ledger(pg_url, "reader")
    try:
        auths = [a for a in ledger.authorizations() if a.request_id in ids]
        assert sum(a.amount_atomic for a in auths) == 9_000_000
        assert len({a.runner for a in auths}) > 1  # the work really was shared
    finally:
        ledger.close()
    shown = cli.ok("budget", "--json", env=admin).json()["budgets"]
    assert [(b["scope"], b["used_usd"], b["left_usd"]) for b in shown] == [
        ("fleet", "9.000000", "0.000000")
    ]
