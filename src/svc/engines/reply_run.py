"""`svc reply` as options + run: what the command does once its flags are parsed.

The Typer function (`svc.cli.reply`) only parses into `ReplyOptions`; `run` does the rest
against the `AppContext` it is handed, so it can be tested in-process: fetch the task, build
the answer (from the flags, checked against the ask, or from the form), send it, show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import TYPE_CHECKING, Any

from svc.engines.asks import left_text, summarize
from svc.errors import ConflictError, ProtocolError, UsageError
from svc.ui import views
from svc.ui.prompts import ask_hidden

if TYPE_CHECKING:
    from svc.api.models import TaskDetail
    from svc.context import AppContext

# Below this, the form warns that the ask is about to expire (a person types a 2FA code in
# well under a minute; an address takes longer).
EXPIRY_WARNING_SECONDS = 120


@dataclass(frozen=True)
class ReplyOptions:
    """One reply, parsed: flags that exclude each other are refused, a value file is read."""

    task_id: str
    message: str | None = None
    field: str | None = None
    value: str | None = None  # for --field, from --value-file (None: a hidden prompt)
    sensitive: bool = False
    sets: dict[str, str] = dataclass_field(default_factory=dict)
    payment_approved: bool | None = None


def run(opts: ReplyOptions, app: AppContext) -> int:
    """Send the answer and show the task; returns the exit code."""
    from svc.engines.reply import LeftToApprovalApp

    detail = app.tasks.poll(opts.task_id, auth=app.free_call_auth())
    try:
        body = _body(opts, app, detail.raw)
    except LeftToApprovalApp:
        _left_to_app(app, opts.task_id)
        return 0
    answered = app.tasks.reply(opts.task_id, body, auth=app.free_call_auth())
    app.remember(answered)  # the ledger's last known state, if there is a ledger
    if not app.output.json_mode:
        app.output.note(
            "answer sent; task {id} is now {state}", id=opts.task_id, state=answered.state
        )

    app.output.show(answered.raw, views.task)
    return 0


def _body(opts: ReplyOptions, app: AppContext, detail: dict[str, Any]) -> dict[str, Any]:
    """The checked reply body: from the flags, or from the form when none was given."""
    from svc.engines.reply import ReplyFlags, body_from_flags
    from svc.engines.reply_form import body_from_form

    task = task_detail(detail)
    flags = ReplyFlags(
        message=opts.message,
        field=opts.field,
        value=opts.value,
        sensitive=opts.sensitive,
        sets=dict(opts.sets),
        payment_approved=opts.payment_approved,
    )
    if flags.empty:
        if app.settings.no_input:
            raise UsageError(
                "nothing to reply: give --message, --field, --set or a payment flag "
                "(prompting is off)"
            )
        check_time_left(app, detail)
        body = body_from_form(task)
        check_time_left(app, detail, after_form=True)
        return body
    if flags.field is not None and flags.value is None:
        if app.settings.no_input:
            raise UsageError("--field needs --value-file PATH|- when prompting is off")

        flags.value = ask_hidden(f"value for {flags.field} (hidden):")
    return body_from_flags(task, flags)


def check_time_left(app: AppContext, detail: dict[str, Any], after_form: bool = False) -> None:
    """Before the form: the time left (a warning when short). After it: an ask that expired
    meanwhile is exit 8, and nothing is sent (the service would refuse it with a 410)."""

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
        app.output.warn(f"this ask expires soon ({left_text(left)}, at {expires})")
    else:
        app.output.note(f"this ask expires at {expires} ({left_text(left)})")


def _left_to_app(app: AppContext, task_id: str) -> None:
    """Keeping a payment sends nothing: the user approves it in their app. Not an error (exit
    0); the note says how to wait for the approval."""
    if app.output.json_mode:
        app.output.emit_json({"id": task_id, "sent": False, "outcome": "left_to_approval_app"})
        return
    app.output.note(
        "nothing sent: the payment is left to the approval app; "
        "svc watch {id} waits for the approval",
        id=task_id,
    )


def task_detail(detail: dict[str, object]) -> TaskDetail:
    """The polled task as a model; a shape the spec does not allow is the server's fault (exit
    1, one line), not an internal error."""
    from pydantic import ValidationError

    from svc.api.models import TaskDetail

    try:
        return TaskDetail.model_validate(detail)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "task"
        raise ProtocolError(
            f"reply: the server's task is not one the spec allows ({where}: "
            f"{exc.errors()[0]['msg']})"
        ) from None
