"""`reply`: an answer to what a task asks.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import CLI_ONLY, NOT_CLI, Flag, Positional, Request, TaskId
from svc.operations.shown import TaskShown


class ReplyRequest(Request):
    """An answer to a task's ask. The CLI spells some parts its own way: a field's value only
    from a file, stdin or a hidden prompt (never argv), field values as `--set KEY=VALUE`, the
    payment decision as two flags."""

    task_id: Annotated[TaskId, Positional("ID", help="Task id.")]
    message: Annotated[str | None, Flag("--message", "TEXT", short="-m")] = Field(
        None, min_length=1, max_length=4000, description="Free-form answer to a plain ask."
    )
    field: Annotated[
        str | None,
        Flag("--field", "NAME", help="Name of the requested item, e.g. sms_code."),
    ] = Field(
        None,
        min_length=1,
        max_length=64,
        description="Name of the requested item of a plain ask, e.g. sms_code.",
    )
    value: Annotated[str | None, NOT_CLI] = Field(
        None,
        min_length=1,
        max_length=4000,
        description="Value for field (not for secrets: leave it out and the person is asked).",
    )
    value_file: Annotated[str | None, Flag("--value-file", "PATH|-"), CLI_ONLY] = Field(
        None, description="Read the value for --field from a file or stdin (else a hidden prompt)."
    )
    sensitive: Annotated[
        bool | None,
        Flag(
            "--sensitive",
            help="The value is a secret (2FA code, password): encrypted and purged by the service.",
        ),
    ] = Field(None, description="The field is a secret: the person is asked for it directly.")
    # No minLength on a value: "" names a secret key for the person to answer; an empty
    # plain key is refused by the reply flow, naming the key.
    field_values: Annotated[dict[str, Annotated[str, Field(max_length=4000)]] | None, NOT_CLI] = (
        Field(
            None,
            max_length=100,
            description="Answers to a structured ask: requested field or question key -> "
            "value. Leave out the keys that want a secret (a PIN, a password), or give them "
            '"": the person is asked for them directly.',
        )
    )
    sets: Annotated[list[str], Flag("--set", "KEY=VALUE"), CLI_ONLY] = Field(
        [], description="A value for info.field_values (repeatable)."
    )
    approve_payment: Annotated[Literal[True] | None, NOT_CLI] = Field(
        None, description="Re-send an expired payment approval to the person's app."
    )
    decline_payment: Annotated[Literal[True] | None, NOT_CLI] = Field(
        None, description="Decline the task's payment ask: the task ends failed."
    )
    # The CLI's own two flags for the payment decision (Typer reads no `Literal[True]`).
    approve: Annotated[bool, Flag("--approve-payment"), CLI_ONLY] = Field(
        False, description="Re-send an expired payment approval to the user's app."
    )
    decline: Annotated[bool, Flag("--decline-payment"), CLI_ONLY] = Field(
        False, description="Decline the charge: the task ends failed (payment_rejected)."
    )


REPLY = Operation(
    "reply",
    ReplyRequest,
    cli=Command("reply"),
    mcp=Tool(
        "reply_to_task",
        "Answer a task's ask",
        "Answer a task waiting on the person (state blocked_on_user). For a plain ask: "
        "message, or field plus value. For a structured ask (info_request): field_values with "
        "exactly the requested_fields and question keys, and for a payment ask decline_payment "
        "(ends the task failed, payment_rejected) or approve_payment (only re-sends an expired "
        "approval to the person's app; approval itself happens in that app). Secrets (2FA "
        "codes, passwords): give the field WITHOUT a value and the person is asked directly; "
        'in field_values, leave the secret keys out (or give them "") and send the others. A '
        "secret value from you is refused.",
        TaskShown,
    ),
    library=written("reply"),
)
