"""Crash safety (issue 6.1): SIGKILL at every step of a paid submit, then resume.

`SVC_TEST_CRASH_AT=<step>` makes the `svc` process kill itself (SIGKILL) at that named step
(src/svc/testing_hooks.py). Each time, running `svc submit --request-id` again with the same task
reaches exactly one task and exactly one charge in the sandbox's books, on x402 and on MPP.
The ledger survives parallel writers: several `svc` processes submitting at once (plus readers)
never corrupt it or lose a row.
"""

from __future__ import annotations

import signal
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox
from tests.forkserver import ForkServer
from tests.ledger_reads import opened
from tests.reliability_report import record

from svc.testing_hooks import SUBMIT_STEPS as STEPS

pytestmark = pytest.mark.e2e

CASES = [(rail, step) for rail in ("x402", "mpp") for step in STEPS]


def _ledger(cli: Cli) -> Path:
    return cli.home / "data" / "ledger.sqlite3"


@pytest.mark.parametrize(("rail", "step"), CASES)
def test_sigkill_at_each_step_then_resume_charges_once(
    cli: Cli, forked_cli: Cli, sandbox: Sandbox, rail: str, step: str
) -> None:
    """The killed submit is a real process (forked from one that imported svc); the resume and
    the checks run in this one."""
    rid = f"req_{uuid.uuid4().hex}"
    args = ["submit", f"Crash at {step} #complete", "--email", f"c-{rid[-10:]}@example.com"]
    args += ["--request-id", rid, "--pay", rail]
    env = {"SVC_SPT": f"spt_test_{uuid.uuid4().hex}"} if rail == "mpp" else {}

    killed = forked_cli(*args, env={**env, "SVC_TEST_CRASH_AT": step})
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    charged_before = len(sandbox.charges_for(rid))
    assert charged_before == (1 if step in ("proof_sent", "response_recorded") else 0)

    resumed = cli(*args, env=env)
    assert resumed.returncode == 0, resumed.stderr
    task = resumed.json()
    charges = sandbox.charges_for(rid)
    tasks = {c["task_id"] for c in charges} | {task["id"]}
    listed = [row for row in cli.ok("tasks", "--json").json() if row.get("request_id") == rid]
    passed = len(charges) == 1 and len(tasks) == 1 and len(listed) == 1
    record(
        "crash_safety",
        f"{rail}.{STEPS.index(step)}",
        {
            "rail": rail,
            "step": step,
            "killed": "SIGKILL" if killed.returncode == -signal.SIGKILL else killed.returncode,
            "resumed": resumed.returncode,
            "tasks": len(tasks),
            "charges": len(charges),
            "double_charges": max(0, len(charges) - 1),
            "faults": 1,
            "passed": passed,
        },
        expected=len(CASES),
    )
    assert len(charges) == 1, charges
    assert charges[0]["method"] == rail and charges[0]["task_id"] == task["id"]
    assert len(listed) == 1 and listed[0]["task_id"] == task["id"], listed
    # The books and the CLI agree on what one task was paid; watch follows it to the end.
    sandbox.advance(25)
    assert cli("watch", task["id"], "--interval", "1").returncode == 0


WRITERS = 8
PER_WRITER = 4
READERS = 3


def test_parallel_svc_processes_never_corrupt_or_lose_a_ledger_row(
    cli: Cli, fork_server: ForkServer, sandbox: Sandbox, tmp_path: Path
) -> None:
    """8 batch submits at once (4 paid lines each) and 3 readers looping `tasks`/`spend`: every
    one a process of its own, forked from one that imported svc (tests/forkserver.py)."""
    files = []
    for w in range(WRITERS):
        lines = [f'{{"task": "writer {w} line {i} #complete"}}' for i in range(PER_WRITER)]
        path = tmp_path / f"batch{w}.ndjson"
        path.write_text("\n".join(lines) + "\n")
        files.append(path)
    email = f"par-{uuid.uuid4().hex[:8]}@example.com"
    writers = [
        fork_server.popen(
            ["submit", "--from", str(f), "--email", email],
            env={**cli.env, "SVC_DAILY_CAP": "none"},  # 32 tasks: not a test of the cap
            stdin=None,
        )
        for f in files
    ]

    def reader() -> tuple[int, str]:
        """Six rounds of `tasks` then `spend`, each a process; the first failure ends it (as
        the shell loop's `|| exit 1` did)."""
        for _ in range(6):
            for command in ("tasks", "spend"):
                code, _, err = fork_server.run([command, "--json"], env=cli.env, timeout=120)
                if code != 0 or "Traceback" in err or "locked" in err:
                    return code or 1, err
        return 0, ""

    with ThreadPoolExecutor(READERS) as pool:
        reading = [pool.submit(reader) for _ in range(READERS)]
        outputs = [p.communicate(timeout=120) for p in writers]
        reader_out = [r.result(timeout=120) for r in reading]
    for proc, (out, err) in zip(writers, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    for code, err in reader_out:
        assert code == 0, err
        assert "Traceback" not in err and "locked" not in err

    with opened(_ledger(cli)) as ledger:
        integrity = ledger.integrity()
        rows = [r for r in ledger.submissions() if r.email == email]
    total = WRITERS * PER_WRITER
    accepted = [r for r in rows if r.task_id and r.status == "accepted"]
    mine = {r.request_id for r in rows}
    charges = [c for c in sandbox.books()["charges"] if c["request_id"] in mine]
    passed = integrity == "ok" and len(accepted) == total and len(charges) == total
    record(
        "ledger_concurrency",
        "parallel",
        {
            "writers": WRITERS,
            "rows": total,
            "readers": READERS,
            "integrity": integrity,
            "rows_found": len(accepted),
            "charges": len(charges),
            "double_charges": max(0, len(charges) - total),
            "passed": passed,
        },
        expected=1,
    )
    assert integrity == "ok"
    assert len(rows) == total and len(accepted) == total, rows
    assert len(charges) == total
