"""Every round trip of a paid request to the fleet ledger costs the runner a wait and the
server a wake-up, so the number a paid `svc submit` makes is pinned here (a ceiling), read from
libpq's own trace of every connection the ledger opened (tests/pg_trace.py): each Query and
each Sync svc sent is one round trip, whatever connection sent it."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_fleet import runner_env
from tests.pg_trace import traced_connects

pytestmark = pytest.mark.e2e

# What a paid x402 submit with its own request id sends once the schema is known (its check,
# one round trip, is once a process), in round trips as psycopg makes them (a statement with
# values: Parse, Bind, Describe, Execute and their Sync; a whole transaction: one Query):
#   1  the fleet's daily cap, read once a run (the guess the one-script hold checks)
#   1  the request's lock (a session advisory lock on the connection lent to it)
#   1  INSERT submissions, journaled before the first byte leaves
#   1  UPDATE submissions 'challenged'
#   1  SELECT recipients: the pin the 402's recipient is checked against
#   1  the cap's hold: BEGIN, the stale hold, the lock, INSERT ... SELECT, COMMIT
#   1  'signed': BEGIN, a live authorization where no hold was, the hold made live, the row's
#      proof, COMMIT
#   1  UPDATE submissions 'sent'
#   1  'accepted': BEGIN, UPDATE submissions, UPDATE authorizations 'spent', COMMIT
#   1  the request's lock released
PAID_SUBMIT_ROUND_TRIPS = 10


def test_a_paid_submit_on_the_fleet_ledger_makes_no_more_round_trips_than_it_needs(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = runner_env(cli, tmp_path, "runner-t", pg_url, sandbox)
    runner = Cli(Path(env["HOME"]), env)
    runner.ok("submit", "First on the fleet #complete", "--email", unique_email())  # the schema
    rid = unique_request_id()
    with traced_connects(monkeypatch) as trips:
        task = runner.ok(
            "submit", "Counted trips #complete", "--email", unique_email(), "--request-id", rid,
            "--json",
        ).json()  # fmt: skip
    assert sandbox.internals(task["id"])  # paid and accepted, not refused early
    listing = "\n".join(" | ".join(" ".join(s.split())[:60] for s in trip) for trip in trips)
    assert len(trips) <= PAID_SUBMIT_ROUND_TRIPS, listing
    signed = [trip for trip in trips if any(s.startswith("UPDATE authorizations") for s in trip)]
    assert len(signed) == 2, listing  # the signature's and the acceptance's, one trip each
    for trip in signed:  # a whole transaction: nothing of it waits for the runner between
        assert trip[0] == "BEGIN" and trip[-1] == "COMMIT", listing
