"""`svc submit`: one paid task (or, with --from, every line of a file), its dry run and probe.

The Typer function only parses into `SubmitOptions` (the task text read, the rail and cap
checked); `run` does the rest against the `FaceContext` it is handed, so it can be tested
in-process. The paid submission itself is `svc.engines.submit.submit`; this module is the
command around it: the duplicate check, --dry-run, --probe and what is shown. --from (the
batch, `svc.commands.submit_batch`) and --wait (`svc.commands.watch_face.follow`) are modules of
their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from svc import paid_record, rail_table
from svc.cli.app import current
from svc.cli.inputs import payment_flags, read_text_source
from svc.commands.submit_batch import run_batch
from svc.commands.submit_options import MAX_PRICE, TRUST_RECIPIENT, SubmitOptions
from svc.commands.watch_face import follow
from svc.engines import dry_run, probe
from svc.engines.submit import (
    DuplicateSubmission,
    SubmitResult,
    new_request_id,
    refuse_duplicate,
)
from svc.engines.submit import submit as submit_paid
from svc.engines.validate import task_body
from svc.errors import ExitCode, Interrupted, SvcError, UsageError
from svc.next_words import resume_command
from svc.promises import refuse_sending
from svc.settings import poll_seconds
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.hints import next_steps
from svc.ui.output import Output
from svc.ui.prompts import confirm_payment

app: typer.Typer = typer.Typer(rich_markup_mode=None)

# The options, declared once here so the command's signature reads as a list of flags.
_TASK = typer.Argument(
    None, metavar="TASK", help="The task in natural language, or - to read it from stdin."
)
_FILE = typer.Option(None, "--file", "-f", metavar="PATH", help="Read the task text from a file.")
_EMAIL = typer.Option(
    None, "--email", "-e", metavar="EMAIL", help="End user's e-mail address [config: email]."
)
_WAIT = typer.Option(False, "--wait", "-w", help="Then follow the task like `svc watch`.")
_PAY = typer.Option(
    None, "--pay", metavar="|".join(rail_table.NAMES), help="Payment method [config: pay]."
)
_REQUEST_ID = typer.Option(
    None,
    "--request-id",
    metavar="ID",
    help="Idempotency key; re-use it to resume a submission without paying twice.",
)
_DRY_RUN = typer.Option(False, "--dry-run", help="Validate and show the price; send nothing.")
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
_SKIP_BAD = typer.Option(
    False,
    "--skip-bad-lines",
    help="With --from: pay for the good lines even if some are bad (by default one bad line "
    "means nothing is paid).",
)
_YES = typer.Option(
    False, "--yes", "-y", help="With --from: do not ask to confirm the batch's most on a terminal."
)
_ALLOW_DUPLICATE = typer.Option(
    False,
    "--allow-duplicate",
    help="Pay for the same task and e-mail again within duplicate_window_seconds (by default "
    "refused in a script, asked on a terminal).",
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
    max_price: str | None = MAX_PRICE,
    request_id: str | None = _REQUEST_ID,
    dry_run: bool = _DRY_RUN,
    trust_recipient: bool = TRUST_RECIPIENT,
    probe: bool = _PROBE,
    interval: str | None = _INTERVAL,  # text: svc's words for a bad value, not Typer's
    from_file: str | None = _FROM,
    concurrency: int = _CONCURRENCY,
    skip_bad_lines: bool = _SKIP_BAD,
    yes: bool = _YES,
    allow_duplicate: bool = _ALLOW_DUPLICATE,
) -> None:
    app_ctx = current()
    given = {"dry_run": dry_run, "probe": probe, "batch": from_file is not None, "wait": wait}
    given |= {"request_id": request_id is not None, "allow_duplicate": allow_duplicate}
    refuse_sending("cli", given | {"trust_recipient": trust_recipient})
    if from_file is not None:
        _refuse_with_batch(
            {"TASK": task is not None, "--file": file is not None, "--wait": wait}
            | {"--request-id": request_id is not None, "--allow-duplicate": allow_duplicate}
        )
    else:
        _refuse_without_batch({"--skip-bad-lines": skip_bad_lines, "--yes": yes})
    method, cap = payment_flags(app_ctx, pay, max_price)
    opts = SubmitOptions(
        text=None if from_file is not None else _task_text(task, file),
        email=email,
        rail=method,
        max_price_usd=cap,
        request_id=request_id,
        dry_run=dry_run,
        probe=probe,
        trust_recipient=trust_recipient,
        wait=wait,
        interval=None if interval is None else poll_seconds("--interval", interval),
        batch_file=from_file,
        concurrency=concurrency,
        skip_bad_lines=skip_bad_lines,
        yes=yes,
        allow_duplicate=allow_duplicate,
    )
    raise typer.Exit(run(opts, app_ctx))


def _refuse_with_batch(given: dict[str, bool]) -> None:
    """--from with a flag that belongs to one task: say which (each line carries its own
    task and request id, which pays it once)."""
    flags = [flag for flag, present in given.items() if present]
    if flags:
        raise UsageError(
            f"--from cannot be combined with {flags[0]}: each line carries its own task "
            "and is paid once, by its request id (follow the tasks afterwards with "
            "`svc watch --all`)"
        )


def _refuse_without_batch(given: dict[str, bool]) -> None:
    flags = [flag for flag, present in given.items() if present]
    if flags:
        raise UsageError(f"{flags[0]} applies only to a batch (--from FILE)")


def run(opts: SubmitOptions, app: FaceContext) -> int:
    """Submit (or dry-run, or probe) the task, or the batch; returns the exit code."""
    if opts.batch_file is not None:
        return run_batch(opts, app, opts.batch_file)
    body = request_body(opts, app)
    if opts.probe:
        doc = probe.probe(app, body, opts.rail, opts.max_price_usd)
        return _shown(app, doc, views.probe, probe.refusal)
    if opts.dry_run:
        doc = dry_run.dry_run(app, body, opts.rail, opts.max_price_usd)
        return _shown(app, doc, views.dry_run, dry_run.refusal)
    result = _pay(opts, app, body)
    task_id = str(result.task["id"])
    try:
        with app.output.after_payment(task_id) as output:  # the paid outcome decides the exit
            return _paid(app, opts, result, task_id)
    except KeyboardInterrupt:  # at any point after paying: name the task, never a re-run
        raise Interrupted(
            f"interrupted; task {task_id} exists and is paid",
            hint=f"follow it without paying again: svc watch {task_id}",
        ) from None
    # Reached only when a closed stdout cut the output short: a task not followed to its
    # end is no "completed" (0) for --wait; the task was paid either way.
    return int(ExitCode.OUTCOME_UNKNOWN) if output.cut and opts.wait else 0


def _shown(
    app: FaceContext,
    doc: dict[str, Any],
    view: Callable[[Output, dict[str, Any]], None],
    refusal: Callable[[dict[str, Any]], SvcError | None],
) -> int:
    """A probe or a dry run shown; then the policy's refusal, if it would refuse, is the exit."""
    app.output.show(doc, view)
    refused = refusal(doc)
    if refused is not None:
        raise refused
    return 0


def _paid(app: FaceContext, opts: SubmitOptions, result: SubmitResult, task_id: str) -> int:
    """What follows a paid (or replayed) submit: the notes, then the task or its watch."""
    if result.replayed:
        app.output.note(f"request {result.request_id} was already accepted: not charged again")
    app.output.note(f"request id {result.request_id} (task {task_id})")
    if opts.wait:
        return follow(app, [task_id], opts.interval)

    app.output.show(result.task, views.task)
    next_steps(app.output, result.task)  # `next: svc watch ID`, for a person only
    return 0


def request_body(opts: SubmitOptions, app: FaceContext) -> dict[str, Any]:
    """The checked request body: the task text and the end user's address."""
    address = opts.email or app.settings.email
    if not address:
        raise UsageError("missing --email: the end user's e-mail address is required")
    return task_body(opts.text or "", address)


def _pay(opts: SubmitOptions, app: FaceContext, body: dict[str, Any]) -> SubmitResult:
    if opts.request_id is None and not opts.allow_duplicate:
        check_duplicate(app, body)
    rid = opts.request_id or new_request_id()
    try:
        return submit_paid(
            app,
            body,
            request_id=rid,
            max_price_usd=opts.max_price_usd,
            trust_recipient=opts.trust_recipient,
            rail=opts.rail,
        )
    except KeyboardInterrupt:
        task_id = paid_record.current().task_for(rid)
        if task_id is not None:  # accepted and recorded before the signal came
            raise Interrupted(
                f"interrupted; task {task_id} exists and is paid",
                hint=f"follow it without paying again: svc watch {task_id}",
            ) from None
        raise Interrupted(
            "interrupted while submitting; it may have been paid",
            hint="resume it without paying again: "
            + resume_command(rid, str(body["email"]), str(body.get("task", ""))),
        ) from None


def check_duplicate(app: FaceContext, body: dict[str, Any]) -> None:
    """The one duplicate rule (engines.submit.refuse_duplicate): refused in a script, CI
    included; on a terminal the person is asked, and saying yes is allowing it."""
    try:
        refuse_duplicate(app, body)
    except DuplicateSubmission as duplicate:
        if app.settings.no_input:
            raise
        app.output.warn(duplicate.message.removeprefix("not submitted: "))
        if not confirm_payment("Submit and pay again?"):
            raise


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
