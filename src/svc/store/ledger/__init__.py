"""svc's ledger: the rows that keep the money rules (see `interface.LedgerStore`).

`rows` holds the states and row types, `interface` the contract an engine provides, `local`
the named transitions (`Ledger`), and one module per concern under it: `submissions`,
`authorizations`, `cards`, `pins`, over a `database.Database`: `sqlite.Database` (the
local file) or `postgres.PgDatabase` (the fleet ledger, `open_ledger` with a URL).
"""

import socket

from svc.store.ledger.authorizations import cap_day_start
from svc.store.ledger.books import EVERYONE, Whose
from svc.store.ledger.interface import LedgerStore
from svc.store.ledger.local import Ledger
from svc.store.ledger.postgres import PgDatabase, request_locks
from svc.store.ledger.rows import (
    ACCEPTED,
    AWAITING_CARD,
    EXPOSED,
    GONE,
    REFUNDED,
    UNKNOWN,
    Authorization,
    AuthState,
    CardState,
    PayState,
    Submission,
)
from svc.store.paths import ledger_path


def open_ledger(url: str | None = None, runner: str | None = None) -> LedgerStore:
    """The ledger in effect: the local SQLite file, or with a `postgresql://` URL the fleet's
    shared ledger, spoken to through psycopg (imported only then). Rows carry the runner's
    name (default: this host's)."""

    name = runner or socket.gethostname()
    if not url:
        return Ledger(runner=name)
    return Ledger.on(PgDatabase(url), request_locks(url), name)


__all__ = [
    "ACCEPTED",
    "AWAITING_CARD",
    "EVERYONE",
    "EXPOSED",
    "GONE",
    "REFUNDED",
    "UNKNOWN",
    "AuthState",
    "Authorization",
    "CardState",
    "Ledger",
    "LedgerStore",
    "PayState",
    "Submission",
    "Whose",
    "cap_day_start",
    "ledger_path",
    "open_ledger",
]
