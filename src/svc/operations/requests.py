"""The operations' arguments, one model each: every field's type, limits, help text, default,
CLI spelling and place. Every limit is the service spec's (task 1..100000, e-mail 3..254,
reply message/value <= 4000, field <= 64, quote goal 1..2000, ...): a call the service would
refuse is refused before anything is sent or signed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, WithJsonSchema

from svc import rail_table
from svc.operations.fields import (
    REQUEST_ID_PATTERN,
    USD_PATTERN,
    Flag,
    NotIn,
    Positional,
    Request,
    TaskId,
)

MAX_WAIT_SECONDS = 3600  # accepted (older callers ask for more), but one call waits at most:
# hosts time a request out after 60 s (the TypeScript SDK's default, which progress does not
# reset), with room for a slow last poll
WAIT_BUDGET_SECONDS = 40


def _a_rail(name: str) -> str:
    if name not in rail_table.NAMES:
        raise ValueError(f"must be one of {', '.join(rail_table.NAMES)}")
    return name


Rail = Annotated[
    str,
    AfterValidator(_a_rail),
    WithJsonSchema({"type": "string", "enum": list(rail_table.NAMES)}),
]
Usd = Annotated[str, Field(pattern=USD_PATTERN)]
Email = Annotated[str, Field(min_length=3, max_length=254)]


class SubmitRequest(Request):
    task: str = Field(
        min_length=1,
        max_length=100_000,
        description="The task in natural language, with every detail it needs. "
        "Never put passwords or codes here.",
    )
    email: Email | None = Field(
        None, description="The person's e-mail address (default: the profile's email)."
    )
    pay: Rail | None = Field(
        None, description="Payment rail (default: the profile's, usually x402)."
    )
    request_id: str | None = Field(
        None,
        pattern=REQUEST_ID_PATTERN,
        description="Idempotency key (8-128 of letters, digits, . _ : -). Reuse it to "
        "retry the same submission without paying twice; omit it for a new one.",
    )
    max_price_usd: Usd | None = Field(
        None,
        description="Refuse to pay more than this per call (USD, e.g. '1.50'). It can "
        "only lower the profile's max_price_usd, never raise it.",
    )
    allow_duplicate: bool | None = Field(
        None,
        description="Submit (and pay) even though the same task for the same e-mail "
        "was submitted a few minutes ago. Default false: refused as a likely accident.",
    )
    dry_run: bool | None = Field(
        None,
        description="Check the task and show the price against the limit; nothing is "
        "sent or paid (not with request_id or allow_duplicate).",
    )


class TaskRequest(Request):
    """One task, fetched once; on the CLI its state may decide the exit code."""

    task_id: Annotated[TaskId, Positional("ID", help="Task id.")]
    exit_status: Annotated[
        bool,
        Flag(
            "--exit-status",
            help="Exit code follows the state: 0 completed, 3 failed or cancelled, 6 blocked "
            "on the user, 11 still live (pending or running).",
        ),
        NotIn(("mcp", "library")),
    ] = False


class WaitRequest(Request):
    task_id: Annotated[TaskId, Positional()]
    timeout_seconds: float | None = Field(
        None,
        gt=0,
        le=MAX_WAIT_SECONDS,
        description=f"Give up waiting after this long (default and most: "
        f"{WAIT_BUDGET_SECONDS}); the task goes on, call again to keep waiting.",
    )


class ReplyRequest(Request):
    task_id: Annotated[TaskId, Positional()]
    message: str | None = Field(
        None, min_length=1, max_length=4000, description="Free-form answer to a plain ask."
    )
    field: str | None = Field(
        None,
        min_length=1,
        max_length=64,
        description="Name of the requested item of a plain ask, e.g. sms_code.",
    )
    value: str | None = Field(
        None,
        min_length=1,
        max_length=4000,
        description="Value for field (not for secrets: leave it out and the person is asked).",
    )
    sensitive: bool | None = Field(
        None, description="The field is a secret: the person is asked for it directly."
    )
    # No minLength on a value: "" names a secret key for the person to answer; an empty
    # plain key is refused by the reply flow, naming the key.
    field_values: dict[str, Annotated[str, Field(max_length=4000)]] | None = Field(
        None,
        max_length=100,
        description="Answers to a structured ask: requested field or question key -> "
        "value. Leave out the keys that want a secret (a PIN, a password), or give them "
        '"": the person is asked for them directly.',
    )
    approve_payment: Literal[True] | None = Field(
        None, description="Re-send an expired payment approval to the person's app."
    )
    decline_payment: Literal[True] | None = Field(
        None, description="Decline the task's payment ask: the task ends failed."
    )


class QuoteRequest(Request):
    """The spec's quote members, spelled as the service spells them."""

    goal: str = Field(
        min_length=1,
        max_length=2000,
        description="The goal in natural language. No credentials.",
    )
    quantity: int | None = Field(
        None, ge=1, le=1_000_000, description="Number of API calls, not returned items."
    )
    budgetUsd: Usd | None = Field(None, description="Total cash budget in USD, e.g. '12.50'.")
    budgetExclusive: bool | None = Field(None, description="Stay strictly below budget.")
    reviewAfterCalls: int | None = Field(None, ge=1, le=1_000_000)
    requirements: str | None = Field(None, min_length=1, max_length=300)
    humanAvailable: bool | None = Field(None, description="Whether a person can take part.")
    payment: Rail | None = None


class GuideRequest(Request):
    goal: Annotated[
        str,
        Field(min_length=1, max_length=2000),
        Positional("GOAL", help="The goal in natural language."),
    ]


class TasksRequest(Request):
    limit: int = Field(50, ge=1, le=500, description="Default 50.")
    refresh: Annotated[bool, NotIn(("mcp",))] = Field(
        False, description="Poll each listed task's state first."
    )


def arguments(request: Request) -> dict[str, Any]:
    """The arguments a request was given, as a face passes them on (unset ones left out)."""
    return request.model_dump(exclude_unset=True)
