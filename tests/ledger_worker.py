"""A second process on the same ledger, for the contract tests (`python -m tests.ledger_worker`).

    hold WHERE RID          take RID's request lock, print "held", then sleep until killed
    reserve WHERE CAP N     try N holds of 1.00 USD (fresh request ids) under CAP µUSD;
                            print how many were held

WHERE is a postgresql:// URL (the fleet ledger) or the path of a SQLite ledger file.
"""

from __future__ import annotations

import sys
import time
import uuid
from pathlib import Path

from svc.store.ledger import Ledger, LedgerStore, open_ledger

ONE_USD = 1_000_000


def open_where(where: str, runner: str) -> LedgerStore:
    if where.startswith("postgresql://"):
        return open_ledger(where, runner)
    return Ledger(Path(where), runner=runner)


def hold(where: str, request_id: str) -> None:
    ledger = open_where(where, "holder")
    with ledger.request_lock(request_id):
        print("held", flush=True)
        time.sleep(600)


def reserve(where: str, cap: int, count: int) -> None:
    ledger = open_where(where, f"runner-{uuid.uuid4().hex[:6]}")
    held = 0
    for _ in range(count):
        rid = "req_" + uuid.uuid4().hex
        ledger.journal(rid, "http://127.0.0.1:1", "a@example.com", {"task": rid}, "http://x")
        refused = ledger.reserve(
            rid,
            rail="mpp",
            amount_atomic=ONE_USD,
            origin="http://127.0.0.1:1",
            valid_before=None,
            cap_atomic=cap,
            since=0.0,
        )
        held += refused is None
    print(held, flush=True)


if __name__ == "__main__":
    command, where, *rest = sys.argv[1:]
    if command == "hold":
        hold(where, rest[0])
    else:
        reserve(where, int(rest[0]), int(rest[1]))
