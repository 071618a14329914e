"""The daily cap's hold on the fleet ledger in one round trip (issue 34.4, `cap_hold`).

The cap's lock, the sums and the hold go to the server as one script, so the lock is held for
the server's work alone. What that must not cost: a hold that waited for the lock sees every
hold committed meanwhile (each statement's own snapshot), the words in a hold are bound as
quoted literals (a hostile request id or origin is a string, never SQL), a lock wait that
fails leaves the ledger usable, and a resumed request's stale hold is replaced, not doubled.
The race across processes is tests/unit/test_ledger_contract.py's and test_budget_ledger's."""

from __future__ import annotations

import threading
import time

import pytest
from tests.pg_trace import traced

from svc.errors import LedgerUnavailableError
from svc.store.ledger import LedgerStore, open_ledger
from svc.store.ledger.budgets import Limits, Scope
from svc.store.ledger.postgres import CAP_LOCK, NAMESPACE, PgDatabase, connect

ORIGIN = "http://127.0.0.1:1"
ONE_USD = 1_000_000
HOSTILE = (
    "req'); DELETE FROM authorizations; --",
    "req\\'; DROP TABLE budgets; --",
    "req $$ %s %(x)s ? ?? \u00e9\u202e",
)


def _journaled(ledger: LedgerStore, rid: str, origin: str = ORIGIN) -> None:
    ledger.journal(rid, origin, "a@example.com", {"task": rid}, origin)


def _hold(ledger: LedgerStore, rid: str, amount: int, cap: int | None, **kw: object) -> int | None:
    return ledger.reserve(
        rid,
        rail="mpp",
        amount_atomic=amount,
        origin=str(kw.get("origin", ORIGIN)),
        valid_before=None,
        cap_atomic=cap,
        since=0.0,
        limits=kw.get("limits"),  # type: ignore[arg-type]
    )


def _db(ledger: LedgerStore) -> PgDatabase:
    db = ledger._db  # type: ignore[attr-defined]
    assert isinstance(db, PgDatabase)
    return db


def test_a_hold_that_waited_for_the_cap_sees_the_hold_it_waited_for(pg_url: str) -> None:
    """Another runner's hold is in its transaction under the cap's lock; this runner's hold
    waits, and once the other commits it must count that hold and refuse (a snapshot taken
    before the wait would not see it, and both would fit under the cap)."""
    first, second = open_ledger(pg_url, "a"), open_ledger(pg_url, "b")
    try:
        _journaled(first, "req_first")
        _journaled(second, "req_second")
        answers: list[int | None] = []
        db = _db(first)
        with db.write(serial=True):
            db.execute(
                "INSERT INTO authorizations (request_id, rail, amount_atomic, origin, signed_at,"
                " status, updated_at) VALUES (?, 'mpp', ?, ?, ?, 'reserved', ?)",
                ("req_first", 6 * ONE_USD, ORIGIN, time.time(), time.time()),
            )
            waiter = threading.Thread(
                target=lambda: answers.append(_hold(second, "req_second", 6 * ONE_USD, 7 * ONE_USD))
            )
            waiter.start()
            time.sleep(0.5)
            assert not answers  # it waits on the cap's lock
        waiter.join(10)
        assert answers == [6 * ONE_USD]  # refused: the exposure it saw
        assert second.exposure(0.0) == 6 * ONE_USD
    finally:
        first.close()
        second.close()


@pytest.mark.parametrize("rid", HOSTILE)
def test_hostile_words_in_a_hold_are_kept_as_words(pg_url: str, rid: str) -> None:
    ledger = open_ledger(pg_url, "r")
    try:
        _journaled(ledger, "req_other")
        assert _hold(ledger, "req_other", ONE_USD, None) is None
        origin = "http://127.0.0.1:1/'; --"
        _journaled(ledger, rid, origin)
        limits = Limits(Scope("it's; --", "r"), breaker_after=5, max_per_hour=100)
        assert _hold(ledger, rid, ONE_USD, 10 * ONE_USD, origin=origin, limits=limits) is None
        [auth] = ledger.authorizations_of(rid)
        assert (auth.request_id, auth.origin, auth.amount_atomic) == (rid, origin, ONE_USD)
        assert auth.profile == "it's; --"
        assert len(ledger.authorizations()) == 2 and ledger.budgets() == []
    finally:
        ledger.close()


def test_a_resumed_hold_replaces_its_stale_one(pg_url: str) -> None:
    ledger = open_ledger(pg_url, "r")
    try:
        _journaled(ledger, "req_again")
        assert _hold(ledger, "req_again", 2 * ONE_USD, 3 * ONE_USD) is None
        assert _hold(ledger, "req_again", 2 * ONE_USD, 3 * ONE_USD) is None  # not 4 > 3
        assert [a.status for a in ledger.authorizations_of("req_again")] == ["reserved"]
        assert ledger.exposure(0.0) == 2 * ONE_USD
    finally:
        ledger.close()


def test_a_hold_whose_lock_wait_fails_leaves_the_ledger_usable(pg_url: str) -> None:
    """The script failed inside its transaction (a lock timeout; a Ctrl-C would do the same):
    it is rolled back, nothing of it stays, and the next hold goes through."""
    ledger = open_ledger(pg_url, "r")
    other = connect(pg_url)
    try:
        _journaled(ledger, "req_wait")
        other.execute("SELECT pg_advisory_lock(%s, %s)", (NAMESPACE, CAP_LOCK))
        _db(ledger).execute("SET lock_timeout = '200ms'")
        with pytest.raises(LedgerUnavailableError) as caught:
            _hold(ledger, "req_wait", ONE_USD, None)
        assert caught.value.exit_code == 9 and "lock timeout" in caught.value.message
        assert ledger.authorizations_of("req_wait") == []
        other.execute("SELECT pg_advisory_unlock(%s, %s)", (NAMESPACE, CAP_LOCK))
        assert _hold(ledger, "req_wait", ONE_USD, None) is None
    finally:
        ledger.close()
        other.close()


def test_the_cap_lock_is_held_across_no_round_trip(pg_url: str) -> None:
    """libpq's own trace of the hold (tests/pg_trace.py): one round trip, a script with BEGIN,
    the stale hold, the cap's lock, the hold checked against the cap, the rate and the breaker,
    and COMMIT (before: seven round trips, six of them under the lock)."""
    ledger = open_ledger(pg_url, "r")
    try:
        _journaled(ledger, "req_traced")
        limits = Limits(Scope("default", "r"), breaker_after=5, max_per_hour=10)
        with traced(_db(ledger)._conn) as trips:
            assert _hold(ledger, "req_traced", ONE_USD, 5 * ONE_USD, limits=limits) is None
        assert len(trips) == 1, trips
        (statements,) = trips
        assert statements[0] == "BEGIN" and statements[-1] == "COMMIT"
        assert statements[1].startswith("DELETE FROM authorizations")  # the stale hold
        assert "pg_advisory_xact_lock" in statements[2]
        assert statements[3].startswith("INSERT INTO authorizations") and len(statements) == 5
        assert "'req_traced'" in statements[3]  # a quoted literal of the script
    finally:
        ledger.close()


def test_an_amount_beyond_the_ledgers_range_holds_nothing_and_pays_nothing(pg_url: str) -> None:
    """A hostile 402 may ask for any number: one the ledger cannot store (beyond a bigint) is
    the contract's exit 9 before anything is signed, and the ledger goes on."""
    ledger = open_ledger(pg_url, "r")
    try:
        _journaled(ledger, "req_huge")
        with pytest.raises(LedgerUnavailableError) as caught:
            _hold(ledger, "req_huge", 2**70, None)
        assert caught.value.exit_code == 9
        assert ledger.authorizations_of("req_huge") == []
        assert _hold(ledger, "req_huge", ONE_USD, 2 * ONE_USD) is None
    finally:
        ledger.close()
