"""svc's ledger: the rows that keep the money rules (see `interface.LedgerStore`).

`rows` holds the states and row types, `interface` the contract an engine provides, `local`
the SQLite engine (`Ledger`), and one module per concern under it: `submissions`,
`authorizations`, `cards`, `pins`, over the shared `sqlite.Database`.
"""

from svc.store.ledger.interface import LedgerStore
from svc.store.ledger.local import Ledger
from svc.store.ledger.rows import (
    ACCEPTED,
    AWAITING_CARD,
    EXPOSED,
    REFUNDED,
    UNKNOWN,
    Authorization,
    AuthState,
    CardState,
    PayState,
    Submission,
)
from svc.store.ledger.sqlite import ledger_path

__all__ = [
    "ACCEPTED",
    "AWAITING_CARD",
    "EXPOSED",
    "REFUNDED",
    "UNKNOWN",
    "AuthState",
    "Authorization",
    "CardState",
    "Ledger",
    "LedgerStore",
    "PayState",
    "Submission",
    "ledger_path",
]
