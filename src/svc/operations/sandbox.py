"""`sandbox`: the local emulator of the whole service, and the steps a person takes in it.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import SANDBOX, Operation, by_hand

SANDBOX_OPERATIONS: tuple[Operation[Any], ...] = (
    by_hand("sandbox serve", SANDBOX),
    by_hand("sandbox approve", SANDBOX),
    by_hand("sandbox claim-code", SANDBOX),
    by_hand("sandbox mint-id-jag", SANDBOX),
    by_hand("sandbox pay-card", SANDBOX),
    by_hand("sandbox tags", SANDBOX),
)
