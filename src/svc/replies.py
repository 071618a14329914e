"""A neutral answer to a task's ask: what the person (or the program) says, in no face's words.

The CLI builds one from its flags or its form, `svc mcp` from a tool's arguments and the
person's elicited values, and a Python program writes one directly
(`client.reply(task_id, Secret("123456"))`). The reply engine checks it against the ask and
turns it into the body the service takes; its errors name the answer's parts, never a flag or
an argument, so each face words them its own way.

A secret's value never appears in a repr, a log line or an error: the dataclasses hide it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


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
