"""`submit`: one paid task for a person, then its request id.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from svc import rail_table
from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import (
    CLI_ONLY,
    NOT_CLI,
    REQUEST_ID_PATTERN,
    Email,
    Flag,
    Positional,
    Rail,
    Request,
    Usd,
)
from svc.operations.shown import SubmitShown

# The options of a paid call, the same words on each command that pays (submit, request).
# The CLI reads --max-price as text (svc's words for a bad amount), then checks it.
MaxPrice = Annotated[
    str | None,
    Flag("--max-price", "USD"),
    CLI_ONLY,
    Field(
        description="Refuse to pay more than this per call [config: max_price_usd, default 1.50]."
    ),
]
TrustRecipient = Annotated[
    bool,
    Flag("--trust-recipient"),
    CLI_ONLY,
    Field(description="Accept a changed payment recipient and pin the new one."),
]
PAY_HELP = "Payment method [config: pay]."


def request_id_flag(resumes: str) -> Flag:
    """--request-id, in each paying command's words for what re-using it resumes."""
    return Flag(
        "--request-id", "ID", help=f"Idempotency key; re-use it {resumes} without paying twice."
    )


class SubmitRequest(Request):
    """One paid task. The CLI spells some parts its own way: the task as an argument that may
    be omitted (--file) or be - for stdin, the cap as --max-price, a batch (--from) and a
    follow (--wait); a tool's call names the task and its cap (max_price_usd) itself. Where a
    field's place in --help and in the tool's schema differ, each face has its own field."""

    task: Annotated[str, NOT_CLI] = Field(
        min_length=1,
        max_length=100_000,
        description="The task in natural language, with every detail it needs. "
        "Never put passwords or codes here.",
    )
    text: Annotated[str | None, Positional("TASK"), CLI_ONLY] = Field(
        None, description="The task in natural language, or - to read it from stdin."
    )
    file: Annotated[str | None, Flag("--file", "PATH", short="-f"), CLI_ONLY] = Field(
        None, description="Read the task text from a file."
    )
    email: Annotated[
        Email | None,
        Flag("--email", "EMAIL", help="End user's e-mail address [config: email].", short="-e"),
    ] = Field(None, description="The person's e-mail address (default: the profile's email).")
    wait: Annotated[bool, Flag("--wait", short="-w"), CLI_ONLY] = Field(
        False, description="Then follow the task like `svc watch`."
    )
    pay: Annotated[Rail | None, Flag("--pay", "|".join(rail_table.NAMES), help=PAY_HELP)] = Field(
        None, description="Payment rail (default: the profile's, usually x402)."
    )
    max_price: MaxPrice = None
    request_id: Annotated[str | None, request_id_flag("to resume a submission")] = Field(
        None,
        pattern=REQUEST_ID_PATTERN,
        description="Idempotency key (8-128 of letters, digits, . _ : -). Reuse it to "
        "retry the same submission without paying twice; omit it for a new one.",
    )
    max_price_usd: Annotated[Usd | None, NOT_CLI] = Field(
        None,
        description="Refuse to pay more than this per call (USD, e.g. '1.50'). It can "
        "only lower the profile's max_price_usd, never raise it.",
    )
    # The tool's allow_duplicate comes before dry_run; the CLI's --allow-duplicate is its
    # last flag: `again` below.
    allow_duplicate: Annotated[bool | None, NOT_CLI] = Field(
        None,
        description="Submit (and pay) even though the same task for the same e-mail "
        "was submitted a few minutes ago. Default false: refused as a likely accident.",
    )
    dry_run: Annotated[
        bool | None, Flag("--dry-run", help="Validate and show the price; send nothing.")
    ] = Field(
        None,
        description="Check the task and show the price against the limit; nothing is "
        "sent or paid (not with request_id or allow_duplicate).",
    )
    trust_recipient: TrustRecipient = False
    probe: Annotated[bool, Flag("--probe"), CLI_ONLY] = Field(
        False,
        description="With or without --dry-run: send the request unpaid, show the service's "
        "402 challenge and what would be paid under your policy; nothing is signed or paid.",
    )
    # text, not a number: svc's own words for a bad value, not the option parser's
    interval: Annotated[str | None, Flag("--interval", "S"), CLI_ONLY] = Field(
        None, description="With --wait: seconds between polls."
    )
    batch_file: Annotated[str | None, Flag("--from", "PATH"), CLI_ONLY] = Field(
        None,
        description="Submit every line of a JSON-lines file ({task, email, request_id?} per "
        "line; - for stdin), each paid once; NDJSON results when piped. See docs/batch.md.",
    )
    concurrency: Annotated[int, Flag("--concurrency", "N"), CLI_ONLY] = Field(
        8, description="With --from: submissions in flight at once."
    )
    skip_bad_lines: Annotated[bool, Flag("--skip-bad-lines"), CLI_ONLY] = Field(
        False,
        description="With --from: pay for the good lines even if some are bad (by default one "
        "bad line means nothing is paid).",
    )
    yes: Annotated[bool, Flag("--yes", short="-y"), CLI_ONLY] = Field(
        False, description="With --from: do not ask to confirm the batch's most on a terminal."
    )
    again: Annotated[bool, Flag("--allow-duplicate"), CLI_ONLY] = Field(
        False,
        description="Pay for the same task and e-mail again within duplicate_window_seconds (by "
        "default refused in a script, asked on a terminal).",
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
