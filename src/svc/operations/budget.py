"""`budget` and `pay card`: the person's spending limits, and a card payment they complete.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import PERSON, Operation, by_hand

BUDGET: tuple[Operation[Any], ...] = (
    by_hand("budget", PERSON, written_as="budgets"),
    by_hand("budget set", PERSON),
    by_hand("budget unset", PERSON),
    by_hand("budget reset-breaker", PERSON),
    by_hand("pay card", "a person's page", written_as="pay_card"),
)
