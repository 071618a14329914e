"""`svc submit`: submit a task and pay for it."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current
from svc.cli.common import payment_flags, read_text_source, show_task
from svc.errors import Interrupted, UsageError

if TYPE_CHECKING:
    from svc.ui.output import Output

app = typer.Typer(rich_markup_mode=None)


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
    task: str | None = typer.Argument(
        None, metavar="TASK", help="The task in natural language, or - to read it from stdin."
    ),
    file: str | None = typer.Option(
        None, "--file", "-f", metavar="PATH", help="Read the task text from a file."
    ),
    email: str | None = typer.Option(
        None, "--email", "-e", metavar="EMAIL", help="End user's e-mail address [config: email]."
    ),
    wait: bool = typer.Option(False, "--wait", "-w", help="Then follow the task like `svc watch`."),
    pay: str | None = typer.Option(
        None, "--pay", metavar="x402|mpp|card", help="Payment method [config: pay]."
    ),
    max_price: str | None = typer.Option(
        None,
        "--max-price",
        metavar="USD",
        help="Refuse to pay more than this per call [config: max_price_usd, default 1.50].",
    ),
    request_id: str | None = typer.Option(
        None,
        "--request-id",
        metavar="ID",
        help="Idempotency key; re-use it to resume a submission without paying twice.",
    ),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Validate and show the price; send nothing."
    ),
    trust_recipient: bool = typer.Option(
        False, "--trust-recipient", help="Accept a changed payment recipient and pin the new one."
    ),
    probe: bool = typer.Option(
        False,
        "--probe",
        help="With or without --dry-run: send the request unpaid, show the service's 402 "
        "challenge and what would be paid under your policy; nothing is signed or paid.",
    ),
    interval: float | None = typer.Option(
        None, "--interval", metavar="S", help="With --wait: seconds between polls."
    ),
    from_file: str | None = typer.Option(
        None,
        "--from",
        metavar="PATH",
        help="Submit every line of a JSON-lines file ({task, email, request_id?} per line; - for "
        "stdin), each paid once; NDJSON results when piped. See docs/batch.md.",
    ),
    concurrency: int = typer.Option(
        8, "--concurrency", metavar="N", help="With --from: submissions in flight at once."
    ),
) -> None:

    from svc.api.models import TaskSubmission
    from svc.flows.validate import build, check_email

    app_ctx = current()
    if from_file is not None:
        from svc.cli import submit_batch

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
    text = _task_text(task, file)
    address = email or app_ctx.settings.email
    if not address:
        raise UsageError("missing --email: the end user's e-mail address is required")
    body = build(TaskSubmission, "task", task=text, email=address).model_dump()
    check_email(body["email"])
    method, cap = payment_flags(app_ctx, pay, max_price)
    if probe:
        from svc.flows.probe import show_probe

        show_probe(app_ctx, body, method, cap)
        return
    if dry_run:
        _dry_run(body, method, cap if cap is not None else app_ctx.settings.max_price_usd)
        return
    from svc.flows.submit import new_request_id, resume_command
    from svc.flows.submit import submit as do_submit

    if request_id is None:
        _check_duplicate(body)
    rid = request_id or new_request_id()
    try:
        result = do_submit(
            app_ctx,
            body,
            request_id=rid,
            max_price_usd=cap,
            trust_recipient=trust_recipient,
            rail=method,
        )
    except KeyboardInterrupt:
        raise Interrupted(
            "interrupted while submitting; it may have been paid",
            hint="resume it without paying again: " + resume_command(rid, body),
        ) from None
    if result.replayed:
        app_ctx.output.note(f"request {result.request_id} was already accepted: not charged again")
    app_ctx.output.note(f"request id {result.request_id}")
    if wait:
        from svc.flows.watch import follow

        task_id = str(result.task["id"])
        try:
            raise typer.Exit(follow(app_ctx, [task_id], interval))
        except KeyboardInterrupt:
            raise Interrupted(
                f"interrupted; task {task_id} exists and is paid",
                hint=f"follow it without paying again: svc watch {task_id}",
            ) from None
    show_task(app_ctx, result.task)
    from svc.ui.hints import next_steps

    next_steps(app_ctx.output, result.task)  # `next: svc watch ID`, for a person only


def _check_duplicate(body: dict[str, Any]) -> None:
    """The same task for the same person a moment ago is likely an accident: ask on a
    terminal, warn in a script (which goes on: it may mean it)."""
    from svc.flows.submit import recent_duplicate

    app_ctx = current()
    earlier = recent_duplicate(app_ctx, body)
    if earlier is None:
        return
    what = f"task {earlier.task_id}" if earlier.task_id else f"request {earlier.request_id}"
    ago = max(0, int(time.time() - earlier.created_at))
    message = (
        f"the same task for {body['email']} was submitted {ago} s ago ({what}); "
        "submitting it again pays again"
    )
    if app_ctx.settings.no_input:
        app_ctx.output.warn(
            message + f" (to follow the earlier one: svc watch {earlier.task_id})"
            if earlier.task_id
            else message
        )
        return
    from svc.ui.prompts import confirm

    app_ctx.output.warn(message)
    if not confirm("Submit and pay again?", default=False):
        raise UsageError(
            "not submitted: the same task was submitted a moment ago",
            code="duplicate_submission",
            hint=f"follow the earlier one: svc watch {earlier.task_id}"
            if earlier.task_id
            else f"resume the earlier one: svc submit --request-id {earlier.request_id}",
        )


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


def _listed_price() -> tuple[str, str]:
    """The task price the manifest lists, else the spec's flat fee (said on stderr)."""
    from svc.api.discovery import DiscoveryClient, task_price
    from svc.errors import SvcError
    from svc.flows.submit import TASK_PRICE_USD

    app_ctx = current()
    try:
        manifest = DiscoveryClient(app_ctx.http, app_ctx.settings.base_url).manifest()
    except SvcError as exc:
        app_ctx.output.warn(
            f"could not read the manifest ({exc.message}); assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    price = task_price(manifest)
    if price is None:
        app_ctx.output.warn(
            f"the manifest lists no price for tasks/task; assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    return f"{price:.6f}", "manifest"


def _dry_run(body: dict[str, Any], method: str, cap: Any) -> None:
    from decimal import Decimal

    app_ctx = current()
    listed, source = _listed_price()
    price = Decimal(listed)
    within = price <= cap
    doc = {
        "dry_run": True,
        "request": {"method": "POST", "path": "/svc/tasks", "body": body},
        "price_usd": listed,
        "price_source": source,
        "pay": method,
        "max_price_usd": str(cap),
        "within_policy": within,
    }
    app_ctx.output.show(doc, _draw_dry_run)
    if not within:
        from svc.pay.policy import PolicyRefusal

        raise PolicyRefusal(f"the price {listed} USD is above the limit {cap} USD")


def _draw_dry_run(out: Output, doc: dict[str, Any]) -> None:
    out.line(
        "Would submit a {size}-character task for {email} and pay {price} USD by {pay} "
        "({verdict} your limit of {cap} USD; price from the {source}). The task was not sent.",
        size=len(doc["request"]["body"]["task"]),
        email=doc["request"]["body"]["email"],
        price=doc["price_usd"],
        pay=doc["pay"],
        verdict="within" if doc["within_policy"] else "ABOVE",
        cap=doc["max_price_usd"],
        source=doc["price_source"],
    )
