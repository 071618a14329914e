"""A neutral answer to a task's ask: what the person (or the program) says, in no face's words.

The CLI builds one from its flags or its form, `svc mcp` from a tool's arguments and the
person's elicited values, and a Python program writes one directly
(`client.reply(task_id, Secret("123456"))`). The reply engine checks it against the ask and
turns it into the body the service takes; its errors name the answer's parts, never a flag or
an argument, so each face words them its own way.

A secret's value never appears in a repr, a log line or an error: the dataclasses hide it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

# A name that reads like a secret (sms_code, password, card_pin, ...).
_SECRET_NAME = re.compile(
    r"(^|[_\-\s])(otp|totp|2fa|mfa|pin|cvv|cvc|password|passwd|passcode|passphrase|secret|token)"
    r"($|[_\-\s])|(sms|verification|auth|security|login|one[_\-]?time|access)[_\-\s]?code",
    re.IGNORECASE,
)


def is_secret(name: object, marked: object = None) -> bool:
    """The one rule of every face for "is this field a secret?": the service marked it
    `sensitive` (exactly true), or its name reads like one, whatever the ask says (a
    structured ask has no flag: the name decides). A secret is asked hidden on a terminal,
    sent marked sensitive, and asked of the person by `svc mcp`, never taken from the model."""
    return marked is True or (isinstance(name, str) and bool(_SECRET_NAME.search(name)))


def plain_ask_is_secret(payload: Mapping[str, object]) -> bool:
    """A plain ask's payload (`{"field", "sensitive", "message"}`) asks for a secret."""
    return is_secret(payload.get("field"), payload.get("sensitive"))


@dataclass(frozen=True)
class Message:
    """A free-text answer to a plain ask."""

    text: str


@dataclass(frozen=True)
class Value:
    """A plain ask's field answered with a value that is not secret."""

    value: str = field(repr=False)
    field: str | None = None  # None: the field the task asks for


@dataclass(frozen=True)
class Secret:
    """A value asked in secret (a 2FA code, a password): sent as sensitive, never shown back.

    On a plain ask it answers the asked field (or `field`); on a structured ask, `field`
    names the key it answers.
    """

    value: str = field(repr=False)
    field: str | None = None

    def __repr__(self) -> str:
        return f"Secret(field={self.field!r}, value=<hidden>)"


@dataclass(frozen=True)
class Fields:
    """Values for a structured ask's questions, by key; `sensitive` marks every one secret."""

    values: Mapping[str, str] = field(default_factory=dict, repr=False)
    sensitive: bool = False


@dataclass(frozen=True)
class Approve:
    """Approve the payment a task asks about (with its other questions' values, if any);
    `sensitive` marks every value secret, as for `Fields`."""

    values: Mapping[str, str] = field(default_factory=dict, repr=False)
    sensitive: bool = False


@dataclass(frozen=True)
class Decline:
    """Decline the payment a task asks about (with its other questions' values, if any);
    `sensitive` marks every value secret, as for `Fields`."""

    values: Mapping[str, str] = field(default_factory=dict, repr=False)
    sensitive: bool = False


Answer = Message | Value | Secret | Fields | Approve | Decline
