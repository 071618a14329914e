"""`svc submit`: one paid task (or, with --from, every line of a file), its dry run and probe.

The options are the operation's request (`svc.operations.submit.SubmitRequest`, shared with
the MCP tool); the Typer function only parses them into `SubmitOptions` (the task text read,
the rail and cap checked); `run` does the rest against the `FaceContext` it is handed, so it
can be tested in-process. The paid submission itself is `svc.engines.submit.submit`; this
module is the command around it: the duplicate check, --dry-run, --probe and what is shown.
--from (the batch, `svc.commands.submit_batch`) and --wait (`svc.commands.watch_face.follow`)
are modules of their own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import typer

from svc import paid_record
from svc.cli.app import current
from svc.cli.inputs import payment_flags, read_text_source
from svc.cli.options import with_options_of
from svc.commands.submit_batch import run_batch
from svc.commands.submit_options import SubmitOptions
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
from svc.operations.submit import SubmitRequest
from svc.promises import refuse_sending
from svc.settings import poll_seconds
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.hints import next_steps
from svc.ui.output import Output
from svc.ui.prompts import confirm_payment

app: typer.Typer = typer.Typer(rich_markup_mode=None)


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
def submit(**given: Any) -> None:
    # Built unchecked: this command words each error itself, in the flags a person typed.
    request = SubmitRequest.model_construct(**given)
    app_ctx = current()
    raise typer.Exit(run(_parsed(request, app_ctx), app_ctx))


with_options_of(SubmitRequest, submit)  # TASK, --file ... --allow-duplicate: as declared


def _parsed(request: SubmitRequest, app_ctx: FaceContext) -> SubmitOptions:
    """The options as typed, checked and read: the pairs that cannot go together refused
    before anything is read, then the task text, the rail, the cap and the interval."""
    batch, dry_run = request.batch_file is not None, bool(request.dry_run)
    given = {"dry_run": dry_run, "probe": request.probe, "batch": batch, "wait": request.wait}
    given |= {"request_id": request.request_id is not None, "allow_duplicate": request.again}
    refuse_sending("cli", given | {"trust_recipient": request.trust_recipient})
    if batch:
        _refuse_with_batch(
            {"TASK": request.text is not None, "--file": request.file is not None}
            | {"--wait": request.wait, "--request-id": request.request_id is not None}
            | {"--allow-duplicate": request.again}
        )
    else:
        _refuse_without_batch({"--skip-bad-lines": request.skip_bad_lines, "--yes": request.yes})
    method, cap = payment_flags(app_ctx, request.pay, request.max_price)
    interval = request.interval
    return SubmitOptions(
        text=None if batch else _task_text(request.text, request.file),
        email=request.email,
        rail=method,
        max_price_usd=cap,
        request_id=request.request_id,
        dry_run=dry_run,
        probe=request.probe,
        trust_recipient=request.trust_recipient,
        wait=request.wait,
        interval=None if interval is None else poll_seconds("--interval", interval),
        batch_file=request.batch_file,
        concurrency=request.concurrency,
        skip_bad_lines=request.skip_bad_lines,
        yes=request.yes,
        allow_duplicate=request.again,
    )


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
