"""A ledger with history: many charged rows written in bulk, for the tests and the bench that
hold `svc spend` to a cost bounded by its window (issue 34.5).

The rows are written with SQL in one transaction (hundreds of thousands in seconds): going
through the ledger's transitions would take a paid submit's time per row. The schema is the
ledger's own (opened once through `Ledger` first), and the rows are what a paid, accepted
x402 submission leaves: a submission with a proof and a spent authorization.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from svc.store.ledger import Ledger
from svc.store.ledger.sqlite import SCHEMA_VERSION

ORIGIN = "http://127.0.0.1:8402"


@dataclass(frozen=True)
class Charge:
    """One charged row to write (amounts in µUSD)."""

    request_id: str
    created_at: float
    amount_atomic: int = 1_500_000
    rail: str = "x402"
    refunded_atomic: int | None = None
    task: str = "filled"
    task_id: str | None = None
    runner: str = "filler"
    receipt: str | None = None


def spread(count: int, start: float, end: float, prefix: str = "req_fill") -> Iterator[Charge]:
    """`count` charges evenly over [start, end)."""
    step = (end - start) / max(count, 1)
    for n in range(count):
        yield Charge(f"{prefix}_{n:08d}", start + n * step, task_id=f"task_{prefix}_{n:08d}")


def fill(path: Path, charges: Iterator[Charge] | list[Charge]) -> int:
    """Write the charges into the ledger file at `path` (created if new); how many."""
    Ledger(path).close()  # the schema, at its current version
    rows, auths = [], []
    for c in charges:
        status = "refunded" if c.refunded_atomic else "accepted"
        body = json.dumps({"task": c.task, "email": "fill@example.com"})
        billing = f"status=charged; method={c.rail}; amount_usd=1.5; payment_id=pay_{c.request_id}"
        party = ("0xrecipient", "0xpayer", "eip155:8453", "0xusdc")
        made = (c.created_at, c.created_at + 1)
        head = (c.request_id, ORIGIN, ORIGIN, "fill@example.com", c.task, body, c.rail, status)
        money = ("proof", "fp", c.amount_atomic, *party, c.task_id, "completed", 202, billing)
        rows.append((*head, *money, c.refunded_atomic, c.receipt, c.runner, *made))
        spent = (c.request_id, c.rail, c.amount_atomic, ORIGIN, c.created_at, "spent")
        auths.append((*spent, c.refunded_atomic or 0, made[1], c.runner))
    with closing(sqlite3.connect(path)) as db, db:
        db.executemany(
            "INSERT INTO submissions (request_id, base_url, origin, email, task_preview, body,"
            " method, status, proof, proof_fp, amount_atomic, pay_to, payer, network, asset,"
            " task_id, state, http_status, billing, refunded_atomic, receipt, runner,"
            " created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        db.executemany(
            "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
            " status, refunded_atomic, updated_at, runner) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            auths,
        )
    return len(rows)


# A busy fleet's history, 40 to 400 days old: what `svc spend`, `svc tasks` and `svc doctor` must
# not read when they show a window (tests/e2e/test_spend_window.py, test_tasks_bounded.py).
OLD_ROWS = 300_000


def noon(day: date) -> float:
    return datetime.combine(day, datetime.min.time()).timestamp() + 12 * 3600


def ago(days: int) -> date:
    return date.today() - timedelta(days=days)


def old_history() -> Iterator[Charge]:
    return spread(OLD_ROWS, noon(ago(400)), noon(ago(40)))


def with_old_history(path: Path, shared: Path) -> int:
    """The ledger at `path` begins as a copy of one holding `old_history()`, built once for
    the whole run in `shared` (a folder every xdist worker sees), under a lock: building it
    took 6 s of CPU, once for each worker that ran one of its tests. How many rows."""
    template = shared / f"old-history-{OLD_ROWS}-{ago(0).isoformat()}-v{SCHEMA_VERSION}.sqlite3"
    with open(shared / f"{template.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            building = shared / f"{template.name}.building"
            for left in (building, *(Path(f"{building}{end}") for end in ("-wal", "-shm"))):
                left.unlink(missing_ok=True)  # a worker that died while building it
            fill(building, old_history())
            with closing(sqlite3.connect(building)) as db:  # everything in the main file
                db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            building.rename(template)
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, path)
    return OLD_ROWS
