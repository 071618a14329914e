"""`svc submit`'s options, parsed: what the Typer command (svc.commands.submit) hands the run,
and the batch face (svc.commands.submit_batch) reads. The options as typed are the operation's
request (svc.operations.submit.SubmitRequest); this is what they mean once read and checked:
the task's text, not `-` or a path; the rail, from the flag or the config; a cap as an amount;
an interval in seconds."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from svc import rail_table


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
