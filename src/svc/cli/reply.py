"""`svc reply ID`: answer a task's ask."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current
from svc.cli.common import read_text_source, remember_state, show_task
from svc.errors import UsageError

if TYPE_CHECKING:
    from svc.api.models import TaskDetail
    from svc.context import AppContext

app = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Answer what a blocked task asks: a 2FA code, missing fields, a payment approval.\n\n"
    "The task is fetched first and the answer checked against its ask before sending. "
    "Secret values are never taken on the command line: they come from a file, stdin or a "
    "hidden prompt. With no answer flags on a terminal, an interactive form is shown.\n\n"
    "\b\nExamples:\n"
    "  svc reply tsk_1 --field sms_code --sensitive --value-file - <<< 123456\n"
    "  svc reply tsk_1 --message 'Use the window seat'\n"
    "  svc reply tsk_1 --set shipping_address='1 Main St' --set phone=5550100\n"
    "  svc reply tsk_1 --decline-payment\n"
    "  svc reply tsk_1            # interactive form on a terminal"
)
def reply(
    task_id: str = typer.Argument(..., metavar="ID", help="Task id."),
    message: str | None = typer.Option(
        None, "--message", "-m", metavar="TEXT", help="Free-form answer to a plain ask."
    ),
    field: str | None = typer.Option(
        None, "--field", metavar="NAME", help="Name of the requested item, e.g. sms_code."
    ),
    value_file: str | None = typer.Option(
        None,
        "--value-file",
        metavar="PATH|-",
        help="Read the value for --field from a file or stdin (else a hidden prompt).",
    ),
    sensitive: bool = typer.Option(
        False,
        "--sensitive",
        help="The value is a secret (2FA code, password): encrypted and purged by the service.",
    ),
    sets: list[str] = typer.Option(
        [], "--set", metavar="KEY=VALUE", help="A value for info.field_values (repeatable)."
    ),
    approve: bool = typer.Option(
        False, "--approve-payment", help="Re-send an expired payment approval to the user's app."
    ),
    decline: bool = typer.Option(
        False,
        "--decline-payment",
        help="Decline the charge: the task ends failed (payment_rejected).",
    ),
) -> None:
    from svc.flows.reply import (
        LeftToApprovalApp,
        ReplyFlags,
        body_from_flags,
        body_from_form,
        parse_sets,
    )

    if approve and decline:
        raise UsageError("--approve-payment and --decline-payment exclude each other")
    if value_file is not None and field is None:
        raise UsageError("--value-file goes with --field")
    app_ctx = current()
    flags = ReplyFlags(
        message=message,
        field=field,
        sensitive=sensitive,
        sets=parse_sets(sets),
        payment_approved=True if approve else (False if decline else None),
    )
    if value_file is not None:
        flags.value = read_text_source(value_file, "the value").rstrip("\r\n")
    detail = app_ctx.tasks.poll(task_id, auth=app_ctx.free_call_auth())
    task = _task_detail(detail)
    if flags.empty:
        if app_ctx.settings.no_input:
            raise UsageError(
                "nothing to reply: give --message, --field, --set or a payment flag "
                "(prompting is off)"
            )
        check_time_left(app_ctx, detail)
        try:
            body = body_from_form(task)
        except LeftToApprovalApp:
            _left_to_app(app_ctx, task_id)
            return
        check_time_left(app_ctx, detail, after_form=True)
    else:
        if field is not None and flags.value is None:
            if app_ctx.settings.no_input:
                raise UsageError("--field needs --value-file PATH|- when prompting is off")
            from svc.ui.prompts import ask_hidden

            flags.value = ask_hidden(f"value for {field} (hidden):")
        body = body_from_flags(task, flags)
    answered = app_ctx.tasks.reply(task_id, body, auth=app_ctx.free_call_auth())
    remember_state(app_ctx, answered)
    if not app_ctx.output.json_mode:
        app_ctx.output.note(
            "answer sent; task {id} is now {state}", id=task_id, state=answered.get("state")
        )
    show_task(app_ctx, answered)


# Below this, the form warns that the ask is about to expire (a person types a 2FA code in
# well under a minute; an address takes longer).
EXPIRY_WARNING_SECONDS = 120


def check_time_left(app_ctx: AppContext, detail: dict[str, Any], after_form: bool = False) -> None:
    """Before the form: the time left (a warning when short). After it: an ask that expired
    meanwhile is exit 8, and nothing is sent (the service would refuse it with a 410)."""
    from svc.errors import ConflictError
    from svc.flows.asks import left_text, summarize

    summary = summarize(detail)
    left, expires = summary.seconds_left, summary.expires_at
    if left is None or expires is None:
        return
    if left <= 0:
        when = "while the form was open" if after_form else "before it was answered"
        raise ConflictError(
            f"the ask of task {detail.get('id')} expired at {expires} ({when}); nothing was sent",
            code="ask_expired",
            hint=f"svc poll {detail.get('id')} shows what the task does now",
        )
    if after_form:
        return
    if left <= EXPIRY_WARNING_SECONDS:
        app_ctx.output.warn(f"this ask expires soon ({left_text(left)}, at {expires})")
    else:
        app_ctx.output.note(f"this ask expires at {expires} ({left_text(left)})")


def _left_to_app(app_ctx: AppContext, task_id: str) -> None:
    """Keeping a payment sends nothing: the user approves it in their app. Not an error (exit
    0); the note says how to wait for the approval."""
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json({"id": task_id, "sent": False, "outcome": "left_to_approval_app"})
        return
    app_ctx.output.note(
        "nothing sent: the payment is left to the approval app; "
        "svc watch {id} waits for the approval",
        id=task_id,
    )


def _task_detail(detail: dict[str, object]) -> TaskDetail:
    """The polled task as a model; a shape the spec does not allow is the server's fault (exit
    1, one line), not an internal error."""
    from pydantic import ValidationError

    from svc.api.models import TaskDetail
    from svc.errors import ProtocolError

    try:
        return TaskDetail.model_validate(detail)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "task"
        raise ProtocolError(
            f"reply: the server's task is not one the spec allows ({where}: "
            f"{exc.errors()[0]['msg']})"
        ) from None
