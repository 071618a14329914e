"""`submit`: one paid task for a person, then its request id.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from pydantic import Field

from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import REQUEST_ID_PATTERN, Email, Rail, Request, Usd
from svc.operations.shown import SubmitShown


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


SUBMIT = Operation(
    "submit",
    SubmitRequest,
    cli=Command("submit"),
    mcp=Tool(
        "submit_task",
        "Submit and pay for a task",
        "Submit a task for a person and pay its flat fee (1.50 USD per task) from this "
        "machine's wallet, within the person's payment policy (per-call price cap, daily cap, "
        "allowed rails). The person confirms each payment in the MCP client unless their "
        "profile pre-approves that price; you cannot raise any limit. Returns the task (state "
        "pending) and its request_id. To retry after an error or a lost answer, call again "
        "with the SAME request_id: it is never charged twice. Then follow the task with "
        "wait_for_task.",
        SubmitShown,
        shapes=(("task", "request_id", "rail", "replayed", "billing"), ("dry_run",)),
    ),
    library=written("submit", "submit_many", "run"),
)
