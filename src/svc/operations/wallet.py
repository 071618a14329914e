"""`wallet`: the payment keys this machine holds.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import PERSON, Operation, by_hand

WALLET: tuple[Operation[Any], ...] = (
    by_hand("wallet create", PERSON),
    by_hand("wallet import", PERSON),
    by_hand("wallet address", PERSON),
    by_hand("wallet list", PERSON),
)
