"""`svc submit` as options + run: what the command does once its flags are parsed.

The Typer function (`svc.cli.submit`) only parses into `SubmitOptions`; `run` does the rest
against the `AppContext` it is handed, so it can be tested in-process. The paid submission
itself is `svc.engines.submit.submit`; this module is the command around it: the duplicate
check, --dry-run, --probe, --wait and what is shown.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from svc.context import AppContext
from svc.engines.watch import follow
from svc.errors import Interrupted, SvcError, UsageError
from svc.pay.policy import PolicyRefusal
from svc.ui import views
from svc.ui.hints import next_steps
from svc.ui.prompts import confirm
from svc.ui.words import usd

if TYPE_CHECKING:
    from svc.engines.submit import SubmitResult
    from svc.ui.output import Output


@dataclass(frozen=True)
class SubmitOptions:
    """One submission, parsed: the task text is already read, the rail and cap checked."""

    text: str
    email: str | None = None
    rail: str = "x402"
    max_price_usd: Decimal | None = None  # None: the configured cap
    request_id: str | None = None  # None: a new one (after the duplicate check)
    dry_run: bool = False
    probe: bool = False
    trust_recipient: bool = False
    wait: bool = False
    interval: float | None = None


def run(opts: SubmitOptions, app: AppContext) -> int:
    """Submit (or dry-run, or probe) the task; returns the exit code."""
    body = request_body(opts, app)
    if opts.probe:
        from svc.engines.probe import show_probe

        show_probe(app, body, opts.rail, opts.max_price_usd)
        return 0
    if opts.dry_run:
        cap = opts.max_price_usd
        return dry_run(app, body, opts.rail, cap if cap is not None else app.settings.max_price_usd)
    result = _pay(opts, app, body)
    task_id = str(result.task["id"])
    try:
        with app.output.after_payment(task_id):  # from here the paid outcome decides the exit
            return _paid(app, opts, result, task_id)
    except KeyboardInterrupt:  # at any point after paying: name the task, never a re-run
        raise Interrupted(
            f"interrupted; task {task_id} exists and is paid",
            hint=f"follow it without paying again: svc watch {task_id}",
        ) from None


def _paid(app: AppContext, opts: SubmitOptions, result: SubmitResult, task_id: str) -> int:
    """What follows a paid (or replayed) submit: the notes, then the task or its watch."""
    if result.replayed:
        app.output.note(f"request {result.request_id} was already accepted: not charged again")
    app.output.note(f"request id {result.request_id} (task {task_id})")
    if opts.wait:
        return follow(app, [task_id], opts.interval)

    app.output.show(result.task, views.task)
    next_steps(app.output, result.task)  # `next: svc watch ID`, for a person only
    return 0


def request_body(opts: SubmitOptions, app: AppContext) -> dict[str, Any]:
    """The checked request body: the task text and the end user's address."""
    from svc.api.models import TaskSubmission
    from svc.engines.validate import build, check_email

    address = opts.email or app.settings.email
    if not address:
        raise UsageError("missing --email: the end user's e-mail address is required")
    body = build(TaskSubmission, "task", task=opts.text, email=address).model_dump()
    check_email(body["email"])
    return body


def _pay(opts: SubmitOptions, app: AppContext, body: dict[str, Any]) -> SubmitResult:
    from svc.engines.submit import new_request_id, resume_command, submit

    if opts.request_id is None:
        check_duplicate(app, body)
    rid = opts.request_id or new_request_id()
    try:
        return submit(
            app,
            body,
            request_id=rid,
            max_price_usd=opts.max_price_usd,
            trust_recipient=opts.trust_recipient,
            rail=opts.rail,
        )
    except KeyboardInterrupt:
        raise Interrupted(
            "interrupted while submitting; it may have been paid",
            hint="resume it without paying again: " + resume_command(rid, body),
        ) from None


def check_duplicate(app: AppContext, body: dict[str, Any]) -> None:
    """The same task for the same person a moment ago is likely an accident: ask on a
    terminal, warn in a script (which goes on: it may mean it)."""
    from svc.engines.submit import recent_duplicate

    earlier = recent_duplicate(app, body)
    if earlier is None:
        return
    what = f"task {earlier.task_id}" if earlier.task_id else f"request {earlier.request_id}"
    ago = max(0, int(time.time() - earlier.created_at))
    message = (
        f"the same task for {body['email']} was submitted {ago} s ago ({what}); "
        "submitting it again pays again"
    )
    follow_hint = (
        f"follow the earlier one: svc watch {earlier.task_id}"
        if earlier.task_id
        else f"resume the earlier one: svc submit --request-id {earlier.request_id}"
    )
    if app.settings.no_input:
        app.output.warn(f"{message} (to {follow_hint})" if earlier.task_id else message)
        return

    app.output.warn(message)
    if not confirm("Submit and pay again?", default=False):
        raise UsageError(
            "not submitted: the same task was submitted a moment ago",
            code="duplicate_submission",
            hint=follow_hint,
        )


def listed_price(app: AppContext) -> tuple[str, str]:
    """The task price the manifest lists, else the spec's flat fee (said on stderr)."""
    from svc.api.discovery import DiscoveryClient, task_price
    from svc.engines.submit import TASK_PRICE_USD

    try:
        manifest = DiscoveryClient(app.http, app.settings.base_url).manifest()
    except SvcError as exc:
        app.output.warn(
            f"could not read the manifest ({exc.message}); assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    price = task_price(manifest)
    if price is None:
        app.output.warn(
            f"the manifest lists no price for tasks/task; assuming the spec's {TASK_PRICE_USD} USD"
        )
        return TASK_PRICE_USD, "spec"
    return f"{price:.6f}", "manifest"


def dry_run(app: AppContext, body: dict[str, Any], method: str, cap: Decimal) -> int:
    """Show what would be sent and paid; a price above the cap is the policy's exit code."""
    listed, source = listed_price(app)
    within = Decimal(listed) <= cap
    doc = {
        "dry_run": True,
        "request": {"method": "POST", "path": "/svc/tasks", "body": body},
        "price_usd": listed,
        "price_source": source,
        "pay": method,
        "max_price_usd": str(cap),
        "within_policy": within,
    }
    app.output.show(doc, _draw_dry_run)
    if not within:
        raise PolicyRefusal(f"the price {listed} USD is above the limit {cap} USD")
    return 0


def _draw_dry_run(out: Output, doc: dict[str, Any]) -> None:
    out.line(
        "Would submit a {size}-character task for {email} and pay {price} by {pay} "
        "({verdict} your limit of {cap}; price from the {source}). The task was not sent.",
        size=len(doc["request"]["body"]["task"]),
        email=doc["request"]["body"]["email"],
        price=usd(doc["price_usd"]),  # `1.50 USD` for people; the JSON keeps 1.500000
        pay=doc["pay"],
        verdict="within" if doc["within_policy"] else "ABOVE",
        cap=usd(doc["max_price_usd"]),
        source=doc["price_source"],
    )
