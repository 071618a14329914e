"""`svc reply ID`: answer a task's ask.

The Typer function only parses its request (`ReplyRequest`, the operation's) into
`ReplyOptions`; `run` does the rest against the `FaceContext` it is handed, so it can be tested
in-process: fetch the task, build the neutral answer (`svc.replies`, from the flags or the
form), have the reply engine check it against the ask (`body_for`), send it, show it. The
engine's mismatches name the answer's parts; this face words them as the flags that give them.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

import typer

from svc.api.models import TaskDetail
from svc.cli.app import current
from svc.cli.inputs import read_text_source
from svc.cli.options import with_options_of
from svc.engines.asks import left_text, read_ask, summarize
from svc.engines.poll import poll_once
from svc.engines.reply import ReplyMismatch, body_for, send_body
from svc.errors import Conflict, ProtocolError, UsageError
from svc.operations.reply import ReplyRequest
from svc.replies import Answer, Approve, Decline, Fields, Message, Secret, Value
from svc.ui import views
from svc.ui.face import FaceContext
from svc.ui.prompts import ask_hidden
from svc.ui.reply_form import LeftToApprovalApp, answer_from_form

app: typer.Typer = typer.Typer(rich_markup_mode=None)

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

    @property
    def empty(self) -> bool:
        """No answer flag given: the form asks (or, with prompting off, exit 2)."""
        return (
            self.message is None
            and self.field is None
            and not self.sets
            and self.payment_approved is None
        )


@app.command(
    help="Answer what a blocked task asks: a 2FA code, missing fields, a payment approval.\n\n"
    "The task is fetched first and the answer checked against its ask before sending. "
    "Secret values are never taken on the command line: they come from a file, stdin or a "
    "hidden prompt. With no answer flags on a terminal, an interactive form is shown: "
    "options are numbered, and every answer is reviewed (secrets hidden) before sending.\n\n"
    "\b\nExamples:\n"
    "  svc reply task_8f2c41d09b7e6a13 --field sms_code --sensitive --value-file - <<< 123456\n"
    "  svc reply task_8f2c41d09b7e6a13 --message 'Use the window seat'\n"
    "  svc reply task_8f2c41d09b7e6a13 --set shipping_address='1 Main St' --set phone=5550100\n"
    "  svc reply task_8f2c41d09b7e6a13 --decline-payment\n"
    "  svc reply task_8f2c41d09b7e6a13            # interactive form on a terminal"
)
def reply(**given: Any) -> None:
    # Built unchecked: `options` refuses what excludes each other, in the flags' words.
    raise typer.Exit(run(options(ReplyRequest.model_construct(**given)), current()))


with_options_of(ReplyRequest, reply)  # ID to --decline-payment: as the operation declares them


def options(request: ReplyRequest) -> ReplyOptions:
    """The CLI's fields as one reply: flags that exclude each other refused, a value file read
    (a secret never comes from argv: the request's `value` is not the CLI's)."""
    approve, decline = request.approve, request.decline
    if approve and decline:
        raise UsageError("--approve-payment and --decline-payment exclude each other")
    if request.value_file is not None and request.field is None:
        raise UsageError("--value-file goes with --field")
    _one_kind(request.message, request.field, request.sets, approve or decline)
    value = (
        None if request.value_file is None else read_text_source(request.value_file, "the value")
    )
    return ReplyOptions(
        task_id=request.task_id,
        message=request.message,
        field=request.field,
        value=None if value is None else value.rstrip("\r\n"),
        sensitive=bool(request.sensitive),
        sets=parse_sets(request.sets),
        payment_approved=True if approve else (False if decline else None),
    )


def parse_sets(pairs: list[str]) -> dict[str, str]:
    """`--set KEY=VALUE` pairs as field values; a key given twice is a mistake, not a merge."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--set takes KEY=VALUE, got {pair!r}")
        if key in values:
            raise UsageError(f"--set {key} given twice")
        values[key] = value
    return values


def _one_kind(message: str | None, field: str | None, sets: list[str], payment: bool) -> None:
    """One answer is one kind: a message, a field's value, or field values (with a payment
    decision). A plain ask takes the first two, a structured ask the last."""
    if message is not None and field is not None:
        raise UsageError("--message and --field exclude each other")
    if (message is not None or field is not None) and (sets or payment):
        given = "--message" if message is not None else "--field"
        raise UsageError(
            f"{given} (a plain ask's answer) and --set or a payment flag (a structured "
            "ask's) exclude each other"
        )


def run(opts: ReplyOptions, app: FaceContext) -> int:
    """Send the answer and show the task; returns the exit code."""
    detail = poll_once(app, opts.task_id)
    try:
        body = _body(opts, app, detail.raw)
    except LeftToApprovalApp:
        _left_to_app(app, opts.task_id)
        return 0
    try:
        answered = send_body(app, opts.task_id, body)  # the ledger keeps its state
    except Conflict as refused:  # 409 (not waiting on it) or 410 (the ask expired)
        refused.hint = refused.hint or _after_refusal(opts.task_id, body)
        raise
    if not app.output.json_mode:
        app.output.note(
            "answer sent; task {id} is now {state}", id=opts.task_id, state=answered.state
        )

    app.output.show(answered.raw, views.task)
    return 0


def _after_refusal(task_id: str, body: dict[str, Any]) -> str:
    """The next step when the task no longer takes this answer (none was said)."""
    shown = f"svc poll {task_id} shows what the task does now"
    if body.get("info", {}).get("payment_approved") is not None:
        return (
            f"{shown}; an expired approval is sent again with svc reply {task_id} --approve-payment"
        )
    return f"{shown}; answer its new ask with svc reply {task_id}"


def _body(opts: ReplyOptions, app: FaceContext, detail: dict[str, Any]) -> dict[str, Any]:
    """The checked reply body: from the flags, or from the form when none was given."""
    task = task_detail(detail)
    if opts.empty:
        if app.settings.no_input:
            raise UsageError(
                "nothing to reply: give --message, --field, --set or a payment flag "
                "(prompting is off)"
            )
        check_time_left(app, detail)
        answer = answer_from_form(task)
        body = _checked(task, answer)
        check_time_left(app, detail, after_form=True)
        return body
    return _checked(task, _answer(opts, app))


def _answer(opts: ReplyOptions, app: FaceContext) -> Answer:
    """The flags as a neutral answer (one kind, as the Typer function made sure); a --field
    with no --value-file is asked for, hidden."""
    if opts.payment_approved is not None:
        decision = Approve if opts.payment_approved else Decline
        return decision(dict(opts.sets), sensitive=opts.sensitive)
    if opts.field is None:
        if opts.message is not None:
            return Message(opts.message)
        return Fields(dict(opts.sets), sensitive=opts.sensitive)
    value = opts.value
    if value is None:
        if app.settings.no_input:
            raise UsageError("--field needs --value-file PATH|- when prompting is off")
        value = ask_hidden(f"value for {opts.field} (hidden):")
    return Secret(value, opts.field) if opts.sensitive else Value(value, opts.field)


# The engine's mismatches that name an answer's part, in the flags that give it.
FLAG_WORDS = {
    ("wrong_kind", "plain"): "this task waits on a plain ask: answer with --message, or "
    "--field with --value-file (no --set or payment flags)",
    ("wrong_kind", "structured"): "this task carries a structured ask: answer with --set "
    "KEY=VALUE (and --approve-payment/--decline-payment for a payment)",
    ("not_payment", "structured"): "this ask is not about a payment: drop "
    "--approve/--decline-payment",
}


def _checked(task: TaskDetail, answer: Answer) -> dict[str, Any]:
    """`body_for`, its mismatches worded in flags (the others name no flag already)."""
    try:
        return body_for(read_ask(task), answer)
    except ReplyMismatch as mismatch:
        worded = FLAG_WORDS.get((mismatch.problem, mismatch.ask))
        if worded is not None:
            mismatch.reword(worded)
        raise


def check_time_left(app: FaceContext, detail: dict[str, Any], after_form: bool = False) -> None:
    """Before the form: the time left (a warning when short). After it: an ask that expired
    meanwhile is exit 8, and nothing is sent (the service would refuse it with a 410)."""

    summary = summarize(detail)
    left, expires = summary.seconds_left, summary.expires_at
    if left is None or expires is None:
        return
    if left <= 0:
        when = "while the form was open" if after_form else "before it was answered"
        raise Conflict(
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


def _left_to_app(app: FaceContext, task_id: str) -> None:
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

    try:
        return TaskDetail.model_validate(detail)
    except ValidationError as exc:
        where = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "task"
        raise ProtocolError(
            f"reply: the server's task is not one the spec allows ({where}: "
            f"{exc.errors()[0]['msg']})"
        ) from None
