"""The breaker's last outcomes (`budgets.outcomes_sql`) read at a cost bounded by how many it
asks for: the count-th newest signature time first, then only the rows from it on sorted
(a new fleet ledger without statistics had PostgreSQL sort the runner's whole hour, 1.05 ms
a hold under the cap's lock). Its answer must be exactly the plain query's, ties on the
signature time included, on every engine and client."""

from __future__ import annotations

import random

import pytest
from tests.unit.test_pg_short_transactions import engine  # noqa: F401 (the fixture)

from svc.store.ledger.budgets import outcomes_sql
from svc.store.ledger.database import Database
from svc.store.ledger.rows import AuthState

# What outcomes_sql answered before: every decided row of the runner's window sorted, then cut.
PLAIN = (
    "SELECT CASE WHEN a.status <> ? OR COALESCE(a.refunded_atomic, 0) > 0"
    " OR COALESCE(s.state, '') = 'failed' THEN 1 ELSE 0 END AS failed, a.signed_at"
    " FROM authorizations a LEFT JOIN submissions s ON s.request_id = a.request_id"
    " WHERE a.runner = ? AND a.signed_at >= ? AND a.amount_atomic > 0"
    " AND a.signed_at >= COALESCE((SELECT reset_at FROM breaker_resets WHERE runner = ?), 0)"
    " AND a.status IN (?, ?, ?) ORDER BY a.signed_at DESC, a.id DESC LIMIT ?"
)
STATUSES = (AuthState.SPENT, AuthState.REFUSED, AuthState.VOID, AuthState.LIVE, AuthState.RESERVED)


def _authorizations(db: Database, rng: random.Random) -> None:
    with db.write():
        for n in range(120):
            signed = float(1000 + rng.randrange(40))  # many ties on the signature time
            db.execute(
                "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
                " valid_before, status, updated_at, runner, refunded_atomic)"
                " VALUES (?, 'x402', ?, 'o', ?, NULL, ?, ?, ?, ?)",
                (f"req_{n:04d}", rng.choice((0, 1500000)), signed, rng.choice(STATUSES), signed,
                 rng.choice(("r1", "r2")), rng.choice((0, 0, 500000))),
            )  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_last_outcomes_are_the_plain_querys_ties_included(
    engine: Database,  # noqa: F811
    seed: int,
) -> None:
    _authorizations(engine, random.Random(seed))
    if seed == 3:
        engine.execute("INSERT INTO breaker_resets (runner, reset_at) VALUES ('r1', 1020.0)")
    decided = (AuthState.SPENT, AuthState.REFUSED, AuthState.VOID)
    for count in (1, 2, 5, 17, 60, 200):
        for since in (0.0, 1010.0, 1039.0, 2000.0):
            plain_params = (AuthState.SPENT, "r1", since, "r1", *decided, count)
            plain = [tuple(row) for row in engine.execute(PLAIN, plain_params).fetchall()]
            for bounded in (True, False):  # each engine's form, and the other's, the same
                sql, params = outcomes_sql("r1", since, count, bounded=bounded)
                found = [tuple(row) for row in engine.execute(sql, params).fetchall()]
                assert found == plain, (count, since, bounded)
