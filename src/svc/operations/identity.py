"""`identity`: the agent's identity on the platform, and its entitlements.

Operations of the CLI alone (or written by hand on the library): their requests and declarations.
"""

from __future__ import annotations

from typing import Any

from svc.operations.declare import NOT_YET, PERSON, Operation, by_hand

IDENTITY: tuple[Operation[Any], ...] = (
    by_hand("identity register", PERSON, written_as="identity.register"),
    by_hand("identity claim", PERSON, written_as="identity.claim"),
    by_hand("identity refresh", PERSON, written_as="identity.refresh"),
    by_hand("identity logout", PERSON, written_as="identity.logout"),
    by_hand("identity status", NOT_YET, written_as="identity.status"),
    by_hand("entitlements", NOT_YET, NOT_YET),
)
