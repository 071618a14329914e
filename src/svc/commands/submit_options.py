"""`svc submit`'s options, parsed: what the Typer command (svc.commands.submit) hands the run,
and the batch face (svc.commands.submit_batch) reads."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

import typer

from svc import rail_table

# The options of a paid call, the same words on each command that pays (submit, request).
MAX_PRICE = typer.Option(
    None,
    "--max-price",
    metavar="USD",
    help="Refuse to pay more than this per call [config: max_price_usd, default 1.50].",
)
TRUST_RECIPIENT = typer.Option(
    False, "--trust-recipient", help="Accept a changed payment recipient and pin the new one."
)


@dataclass(frozen=True)
class SubmitOptions:
    """One submission, parsed: the task text is already read, the rail and cap checked."""

    text: str | None = None  # None with --from: each line carries its own
    email: str | None = None
    rail: str = rail_table.DEFAULT
    max_price_usd: Decimal | None = None  # None: the configured cap
    request_id: str | None = None  # None: a new one (after the duplicate check)
    dry_run: bool = False
    probe: bool = False
    trust_recipient: bool = False
    wait: bool = False
    interval: float | None = None
    batch_file: str | None = None  # --from PATH ('-': stdin)
    concurrency: int = 8
    skip_bad_lines: bool = False  # --from: pay the good lines of a file with bad ones
    yes: bool = False  # --from: no confirmation of the batch's most on a terminal
    allow_duplicate: bool = False  # the same task and e-mail again within the window
