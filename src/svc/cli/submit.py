"""`svc submit`: parse the flags into `SubmitOptions`; `svc.engines.submit_run` does the rest."""

from __future__ import annotations

import typer

from svc.cli import submit_batch
from svc.cli.app import current
from svc.cli.inputs import payment_flags, read_text_source
from svc.engines.submit_run import SubmitOptions, run
from svc.errors import UsageError

app = typer.Typer(rich_markup_mode=None)

# The options, declared once here so the command's signature reads as a list of flags.
_TASK = typer.Argument(
    None, metavar="TASK", help="The task in natural language, or - to read it from stdin."
)
_FILE = typer.Option(None, "--file", "-f", metavar="PATH", help="Read the task text from a file.")
_EMAIL = typer.Option(
    None, "--email", "-e", metavar="EMAIL", help="End user's e-mail address [config: email]."
)
_WAIT = typer.Option(False, "--wait", "-w", help="Then follow the task like `svc watch`.")
_PAY = typer.Option(None, "--pay", metavar="x402|mpp|card", help="Payment method [config: pay].")
_MAX_PRICE = typer.Option(
    None,
    "--max-price",
    metavar="USD",
    help="Refuse to pay more than this per call [config: max_price_usd, default 1.50].",
)
_REQUEST_ID = typer.Option(
    None,
    "--request-id",
    metavar="ID",
    help="Idempotency key; re-use it to resume a submission without paying twice.",
)
_DRY_RUN = typer.Option(False, "--dry-run", help="Validate and show the price; send nothing.")
_TRUST = typer.Option(
    False, "--trust-recipient", help="Accept a changed payment recipient and pin the new one."
)
_PROBE = typer.Option(
    False,
    "--probe",
    help="With or without --dry-run: send the request unpaid, show the service's 402 "
    "challenge and what would be paid under your policy; nothing is signed or paid.",
)
_INTERVAL = typer.Option(
    None, "--interval", metavar="S", help="With --wait: seconds between polls."
)
_FROM = typer.Option(
    None,
    "--from",
    metavar="PATH",
    help="Submit every line of a JSON-lines file ({task, email, request_id?} per line; - for "
    "stdin), each paid once; NDJSON results when piped. See docs/batch.md.",
)
_CONCURRENCY = typer.Option(
    8, "--concurrency", metavar="N", help="With --from: submissions in flight at once."
)


@app.command(
    help="Submit a task for an end user and pay its fee (1.50 USD, x402 by default).\n\n"
    "The request id and the payment proof are written to the local ledger before anything is "
    "sent, so a retry (same --request-id) never pays twice. Prints the task object.\n\n"
    "\b\nExamples:\n"
    "  svc submit 'Renew my library books' --email ana@example.com\n"
    "  svc submit - --email ana@example.com < task.txt\n"
    "  svc submit --file task.txt --email ana@example.com --wait\n"
    "  svc submit 'Book a table #2fa' --email ana@example.com --dry-run"
)
def submit(
    task: str | None = _TASK,
    file: str | None = _FILE,
    email: str | None = _EMAIL,
    wait: bool = _WAIT,
    pay: str | None = _PAY,
    max_price: str | None = _MAX_PRICE,
    request_id: str | None = _REQUEST_ID,
    dry_run: bool = _DRY_RUN,
    trust_recipient: bool = _TRUST,
    probe: bool = _PROBE,
    interval: float | None = _INTERVAL,
    from_file: str | None = _FROM,
    concurrency: int = _CONCURRENCY,
) -> None:
    app_ctx = current()
    if from_file is not None:
        conflicting = {"TASK": task is not None, "--file": file is not None, "--wait": wait}
        conflicting |= {"--request-id": request_id is not None, "--dry-run": dry_run}
        raise typer.Exit(
            submit_batch.run(
                app_ctx,
                from_file,
                conflicting=conflicting,
                email=email,
                pay=pay,
                max_price=max_price,
                trust_recipient=trust_recipient,
                concurrency=concurrency,
            )
        )

    method, cap = payment_flags(app_ctx, pay, max_price)
    opts = SubmitOptions(
        text=_task_text(task, file),
        email=email,
        rail=method,
        max_price_usd=cap,
        request_id=request_id,
        dry_run=dry_run,
        probe=probe,
        trust_recipient=trust_recipient,
        wait=wait,
        interval=interval,
    )
    raise typer.Exit(run(opts, app_ctx))


def _task_text(task: str | None, file: str | None) -> str:
    if task is not None and file is not None:
        raise UsageError("give the task as an argument or with --file, not both")
    if file is not None:
        return read_text_source(file, "the task file")
    if task == "-":
        return read_text_source("-", "the task")
    if task is None:
        raise UsageError("missing TASK: give the task text, - for stdin, or --file PATH")
    return task
