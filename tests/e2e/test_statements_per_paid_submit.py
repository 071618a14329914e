"""Issue 34: every ledger statement of a paid request costs a round trip on a fleet and a GIL
hand-off in a batch, so the number a paid `svc submit` runs is pinned here (a ceiling), on
SQLite, counted by SQLite itself (`set_trace_callback`), not by eye. The card payment's UPDATE
the acceptance now skips for a row this run journaled is still sent whenever a card payment can
be on record for the request."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.ledger_reads import ledger_file, opened

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]

# What a fresh paid x402 submit runs once the ledger is open, in order (29 before issue 34's
# fourth pass read the row four times and the pin twice, and marked a card it never had; 20
# before the cap's hold ran as one statement here too):
#   1  SELECT submissions by body          the duplicate-submit check (no --request-id given)
#   1  INSERT submissions                  journaled under the request's lock, its own commit,
#                                          before the first byte is sent (a resume's row is read
#                                          after it)
#   1  UPDATE submissions 'challenged'     sent without a proof
#   1  SELECT recipients                   the pin the 402's recipient is checked against
#   4  BEGIN, DELETE a dead run's hold, INSERT the hold ... SELECT (the day's exposure, the
#      breaker's recent payments and no budget, each a condition of it: store/ledger/cap_hold),
#      COMMIT: the cap's hold, one transaction before signing
#   4  BEGIN, UPDATE authorizations 'live', UPDATE submissions (the proof), COMMIT: 'signed'
#   1  UPDATE submissions 'sent'           the proof left
#   4  BEGIN, UPDATE submissions 'accepted', UPDATE authorizations 'spent', COMMIT
PAID_SUBMIT_STATEMENTS = 17
# journaled, challenged, the hold, signed, sent, accepted: each a state a crash may leave
# (tests/e2e/test_crash_safety.py, test_library.py), so none of them is folded into another.
PAID_SUBMIT_COMMITS = 6


@contextmanager
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every statement the ledger's connections opened meanwhile run, pragmas left out (the
    open's, once a process)."""
    seen: list[str] = []
    connect = sqlite3.connect

    def traced_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db = connect(*args, **kwargs)
        db.set_trace_callback(seen.append)
        return db

    with monkeypatch.context() as patch:
        patch.setattr(sqlite3, "connect", traced_connect)
        yield seen
    seen[:] = [s for s in seen if not s.startswith("PRAGMA")]


def commits(statements: list[str]) -> int:
    """COMMITs, and the writes that ran outside a transaction (each its own commit)."""
    count, open_ = 0, False
    for statement in statements:
        word = statement.split(None, 1)[0].upper()
        if word == "BEGIN":
            open_ = True
        elif word in ("COMMIT", "ROLLBACK"):
            count += word == "COMMIT"
            open_ = False
        elif word in ("INSERT", "UPDATE", "DELETE") and not open_:
            count += 1
    return count


def test_a_paid_submit_runs_no_more_statements_than_it_needs(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli.ok("submit", "First of the home #complete", "--email", unique_email())  # makes the file
    with traced(monkeypatch) as seen:
        task = cli.ok("submit", "Renew my books #complete", "--email", unique_email()).json()
    assert sandbox.internals(task["id"])  # paid and accepted, not refused early
    listing = "\n".join(" ".join(s.split())[:120] for s in seen)
    assert len(seen) <= PAID_SUBMIT_STATEMENTS, listing
    assert commits(seen) == PAID_SUBMIT_COMMITS, listing
    rows_read = [s for s in seen if s.startswith("SELECT * FROM submissions WHERE request_id")]
    assert rows_read == [], listing  # written under the lock, then kept by the journal
    assert sum("FROM recipients" in s for s in seen) == 1, listing  # the pin, once a payment
    assert not any("card_payments" in s for s in seen), listing  # no card: nothing to mark


def card_submit(cli: Cli, request_id: str, rail: str) -> Any:
    email = f"user-{request_id[-12:]}@example.com"  # one request id: one task
    return cli("submit", "Pay by card #complete", "--email", email, "--request-id", request_id,
               "--pay", rail)  # fmt: skip


def card_status(cli: Cli, request_id: str) -> tuple[str, str]:
    with opened(ledger_file(cli.home)) as ledger:
        payment = ledger.card_payment(request_id)
    assert payment is not None, request_id
    return str(payment["status"]), str(payment["checkout_url"])


def test_a_card_payment_is_marked_used_when_its_request_is_accepted(cli: Cli) -> None:
    rid = unique_request_id()
    assert card_submit(cli, rid, "card").returncode == 6  # waits for a person
    status, link = card_status(cli, rid)
    assert status == "pending"
    assert httpx.post(link, data={"action": "pay"}).status_code == 200  # the person pays
    cli.ok("pay", "card", rid)
    assert card_status(cli, rid)[0] == "used"


def test_a_card_started_then_paid_by_another_rail_is_still_marked(cli: Cli) -> None:
    """The acceptance's run found the row journaled by an earlier one, which started a card
    payment: its record is updated as before (only a row this run wrote can have none)."""
    rid = unique_request_id()
    assert card_submit(cli, rid, "card").returncode == 6
    assert card_status(cli, rid)[0] == "pending"
    paid = card_submit(cli, rid, "x402")
    assert paid.returncode == 0, paid.stderr
    assert card_status(cli, rid)[0] == "used"
