"""The options that promise nothing is sent, and the one check every face makes before an
engine runs.

`dry_run` validates and shows the price without a request to the task endpoint; `probe` sends
one unpaid request and shows the 402. Neither signs, pays, pins a recipient or journals a
request. An option that can only be honoured by sending a paid request (a batch, a follow of
the task a payment creates, an idempotency key, a second payment allowed, a recipient pinned)
cannot stand beside them: the pair is a usage error naming both, never one silently ignored.

The table speaks each face's spelling (a flag, a keyword argument, a tool argument), so the
person reads the refusal in the words they typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

from svc.errors import UsageError

Face = Literal["cli", "library", "mcp"]

# What each promise says it will not do, by its neutral name.
PROMISES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "dry_run": "nothing is sent",
        "probe": "nothing is signed or paid",
    }
)

# The options only a paid request honours, with the reason, by their neutral names.
NEEDS_SENDING: Final[Mapping[str, str]] = MappingProxyType(
    {
        "batch": "a batch pays for every line",
        "wait": "only a paid submit makes a task to follow",
        "request_id": "a request id names a request that is sent and paid",
        "allow_duplicate": "it allows a second payment",
        "trust_recipient": "only a payment pins a recipient",
    }
)

# Each face's spelling of each name; a face without an option has no entry for it.
SPELLINGS: Final[Mapping[Face, Mapping[str, str]]] = MappingProxyType(
    {
        "cli": {
            "dry_run": "--dry-run",
            "probe": "--probe",
            "batch": "--from",
            "wait": "--wait",
            "request_id": "--request-id",
            "allow_duplicate": "--allow-duplicate",
            "trust_recipient": "--trust-recipient",
        },
        "library": {
            "dry_run": "dry_run=True",
            "request_id": "request_id",
            "allow_duplicate": "allow_duplicate=True",
        },
        "mcp": {
            "dry_run": "dry_run",
            "request_id": "request_id",
            "allow_duplicate": "allow_duplicate",
        },
    }
)


def refuse_sending(face: Face, given: Mapping[str, bool]) -> None:
    """A usage error when an option that promises nothing is sent meets one that needs a paid
    request (`given`: neutral name -> whether the caller set it); else nothing."""
    promised = [name for name in PROMISES if given.get(name)]
    sending = [name for name in NEEDS_SENDING if given.get(name)]
    if not promised or not sending:
        return
    words = SPELLINGS[face]
    promise, other = promised[0], sending[0]
    raise UsageError(
        f"{words[promise]} cannot be combined with {words[other]}: {words[promise]} promises "
        f"{PROMISES[promise]}, and {NEEDS_SENDING[other]}",
        code="nothing_sent_conflict",
        hint=f"drop {words[other]} to see the price, or {words[promise]} to pay",
    )
