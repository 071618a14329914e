"""Deterministic task scenarios, selected by a tag in the task text.

Every function here is pure: it takes a task record and a sandbox time and returns an
updated copy (or raises `ReplyRejected`). No clock, no I/O, no shared state.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from dataclasses import field as dc_field
from datetime import datetime, timedelta
from typing import Any

from svc_sandbox.state.records import Task, new_id

SCENARIOS = (
    "complete",
    "fail",
    "cancel",
    "slow",
    "2fa",
    "questions",
    "questions-secret",
    "approval",
    "decline",
    "approval-expire",
    "ask-expire",
)
DEFAULT_SCENARIO = "complete"

_TAG = re.compile(r"#([a-z0-9][a-z0-9-]*)", re.IGNORECASE)

WORK = timedelta(seconds=20)  # from creation or from a resume to the final state
SLOW_WORK = timedelta(seconds=600)
ASK_AFTER = timedelta(seconds=10)
ASK_LIFETIME = timedelta(minutes=15)
SHORT_ASK_LIFETIME = timedelta(seconds=60)  # #ask-expire
SHORT_APPROVAL_LIFETIME = timedelta(seconds=15)  # #approval-expire: expires 25 s after creation
FAIL_AFTER_EXPIRY = timedelta(minutes=5)
AUTO_APPROVE_AFTER = timedelta(seconds=40)  # #approval, from creation
APPROVE_AFTER_RESEND = timedelta(seconds=20)
REDACTED = "[redacted]"

TWO_FA_ASK = {
    "field": "sms_code",
    "message": "Enter the 6-digit code we sent to your phone",
    "sensitive": True,
}
QUESTIONS = {
    "requested_fields": ["shipping_address", "phone"],
    "questions": [
        {"key": "seat_preference", "question": "Window or aisle?", "options": ["window", "aisle"]}
    ],
    "note": "We need a few details to finish your booking.",
}
# `#questions-secret`: a structured ask one of whose keys is a secret (a card PIN), so a client
# must take the plain keys from the agent and the secret one from the person, in one reply.
QUESTIONS_SECRET = {
    "requested_fields": ["shipping_address", "card_pin"],
    "questions": [],
    "note": "We need the delivery address and the card's PIN to finish your order.",
}
PAYMENT_ASK = {
    "amount_usd": 42.5,
    "merchant_name": "Example Air",
    "payment_status": "pending_approval",
    "requested_fields": [],
    "questions": [],
    "note": "Approve the payment of 42.50 USD to Example Air in your payment-approval app.",
}


# `#hostile` (with any scenario): the server's own text turns hostile. Every string
# the sandbox writes (result, reason, asks, questions, merchant, note, event payloads, reply
# error details) carries terminal escapes, control characters, rich markup and bidi overrides,
# and the result's output is huge. Keys and field names stay plain so the flows still work.
HOSTILE_TAG = "#hostile"
HOSTILE = (
    "\x1b[2J\x1b[H\x1b]0;pwned title\x07\x1b]52;c;cm0gLXJmIH4=\x07"
    "\x1b]8;;https://evil.example/\x07click me\x1b]8;;\x07 "
    "[link=https://evil.example/]rich link[/link] [bold red]markup[/bold red] "
    "\x1b[31mred\x1b[0m \u202egnp.exe\u202c \u2066isolate\u2069 "
    "bell\x07 back\x08space nul\x00 del\x7f c1\x9b31m carriage\rreturn"
)
HOSTILE_HUGE = 300_000  # characters of hostile padding in a result's output


def is_hostile(text: str) -> bool:
    return HOSTILE_TAG in text.lower()


def _text(task: Task, plain: str) -> str:
    return f"{plain} {HOSTILE}" if is_hostile(task.goal) else plain


class ReplyRejected(Exception):
    """A reply (or an approval) the task cannot take: HTTP status, error code, detail."""

    def __init__(self, status: int, error: str, detail: str, loc: list[str] | None = None):
        super().__init__(detail)
        self.status = status
        self.error = error
        self.detail = detail
        self.loc = loc or ["body"]


@dataclass(frozen=True)
class Reply:
    """The members of a reply body, already schema-validated."""

    message: str | None = None
    field: str | None = None
    value: str | None = None
    sensitive: bool = False
    info_present: bool = False
    field_values: dict[str, str] | None = None
    payment_approved: bool | None = None


@dataclass
class ReplyOutcome:
    task: Task
    secrets: dict[str, str] = dc_field(default_factory=dict)  # sensitive values, kept apart


def scenario_of(text: str) -> str:
    """The first known `#tag` in the task text, else the default scenario."""
    for match in _TAG.finditer(text):
        tag = match.group(1).lower()
        if tag in SCENARIOS:
            return tag
    return DEFAULT_SCENARIO


_FIRST_STEP = {
    "complete": ("complete", WORK),
    "slow": ("complete", SLOW_WORK),
    "fail": ("fail", WORK),
    "cancel": ("cancel", WORK),
    "2fa": ("ask_2fa", ASK_AFTER),
    "questions": ("ask_questions", ASK_AFTER),
    "questions-secret": ("ask_questions", ASK_AFTER),
    "ask-expire": ("ask_questions", ASK_AFTER),
    "approval": ("ask_payment", ASK_AFTER),
    "decline": ("ask_payment", ASK_AFTER),
    "approval-expire": ("ask_payment", ASK_AFTER),
}


def new_task(*, task_id: str, owner: str, request_id: str | None, goal: str, now: datetime) -> Task:
    scenario = scenario_of(goal)
    step, delay = _FIRST_STEP[scenario]
    task = Task(
        id=task_id,
        owner=owner,
        request_id=request_id,
        goal=goal,
        scenario=scenario,
        state="pending",
        created_at=now,
        updated_at=now,
        next_step=step,
        next_step_at=now + delay,
    )
    if scenario == "approval":
        task.approved_at = now + AUTO_APPROVE_AFTER
    payload = {"message": HOSTILE, "merchant": {"name": HOSTILE}} if is_hostile(goal) else None
    _event(task, "created", now, from_state=None, to_state="pending", payload=payload)
    return task


def advance(task: Task, now: datetime, *, reconcile_approvals: bool = False) -> Task:
    """Run every scheduled step due by `now`; on a poll, also reconcile app approvals."""
    task = copy.deepcopy(task)
    while task.next_step and task.next_step_at and task.next_step_at <= now:
        step, at = task.next_step, task.next_step_at
        task.next_step = task.next_step_at = None
        _STEPS[step](task, at)
    if reconcile_approvals and _approval_due(task, now):
        _transition(task, "pending", now, payload={"payment_status": "approved"})
        task.info_request = None
        task.approved_at = None
        _schedule(task, "complete", now + WORK)
    return task


def approve(task: Task, now: datetime) -> Task:
    """The user approves the pending payment in their app (seen at the next poll)."""
    request = task.info_request
    if task.state != "blocked_on_user" or not request or "payment_status" not in request:
        raise ReplyRejected(409, "conflict", "the task has no payment awaiting approval")
    if request["payment_status"] != "pending_approval":
        raise ReplyRejected(
            409, "payment_state_mismatch", f"payment_status is {request['payment_status']}"
        )
    task = copy.deepcopy(task)
    task.approved_at = now
    return task


def apply_reply(task: Task, reply: Reply, now: datetime) -> ReplyOutcome:
    """Validate a reply against the task's ask and apply it."""
    if task.state != "blocked_on_user":
        raise ReplyRejected(
            409, "conflict", f"the task is not waiting on a reply (state {task.state})"
        )
    task = copy.deepcopy(task)
    try:
        if task.info_request is not None:
            if "payment_status" in task.info_request:
                return _reply_to_payment_ask(task, reply, now)
            return _reply_to_questions(task, reply, now)
        return _reply_to_plain_ask(task, reply, now)
    except ReplyRejected as exc:
        if is_hostile(task.goal):
            raise ReplyRejected(exc.status, exc.error, _text(task, exc.detail), exc.loc) from None
        raise


# --- replies ---------------------------------------------------------------------------


def _check_field_values(request: dict[str, Any], reply: Reply) -> dict[str, str]:
    if not reply.info_present:
        raise ReplyRejected(
            422,
            "invalid_request",
            "info is required when the task carries an info_request",
            ["body", "info"],
        )
    values = reply.field_values or {}
    expected = set(request["requested_fields"]) | {q["key"] for q in request["questions"]}
    if set(values) != expected:
        missing, extra = sorted(expected - set(values)), sorted(set(values) - expected)
        raise ReplyRejected(
            422,
            "invalid_request",
            f"field_values keys must be exactly {sorted(expected)} (missing {missing}, "
            f"unexpected {extra})",
            ["body", "info", "field_values"],
        )
    empty = sorted(key for key, value in values.items() if not value.strip())
    if empty:
        raise ReplyRejected(
            422,
            "invalid_request",
            f"field_values must not be empty: {empty}",
            ["body", "info", "field_values"],
        )
    return dict(values)


def _reply_to_questions(task: Task, reply: Reply, now: datetime) -> ReplyOutcome:
    request = task.info_request
    assert request is not None
    if now > request["expires_at"]:
        raise ReplyRejected(410, "ask_expired", "the ask expired before the reply arrived")
    values = _check_field_values(request, reply)
    secrets: dict[str, str] = {}
    if reply.sensitive:
        secrets = values
    else:
        _fold_answers(task, values)
    shown = {key: REDACTED if reply.sensitive else value for key, value in values.items()}
    _event(
        task, "reply_received", now, payload={"field_values": shown, "sensitive": reply.sensitive}
    )
    task.info_request = None
    _resume(task, now)
    return ReplyOutcome(task, secrets)


def _reply_to_payment_ask(task: Task, reply: Reply, now: datetime) -> ReplyOutcome:
    request = task.info_request
    assert request is not None
    _check_field_values(request, reply)
    status = request["payment_status"]
    if reply.payment_approved is False:
        _event(task, "reply_received", now, payload={"payment_approved": False})
        task.info_request = None
        task.approved_at = None
        _finish(
            task,
            "failed",
            now,
            error="payment_rejected",
            reason="The user declined the payment, so the task was stopped.",
        )
        return ReplyOutcome(task)
    if reply.payment_approved is True and status == "approval_expired":
        _event(task, "reply_received", now, payload={"payment_approved": True})
        request["payment_status"] = "pending_approval"
        request["expires_at"] = now + ASK_LIFETIME
        task.updated_at = now
        if task.scenario != "decline":
            task.approved_at = now + APPROVE_AFTER_RESEND
        _event(
            task,
            "approval_resent",
            now,
            payload={"payment_status": "pending_approval", "expires_at": request["expires_at"]},
        )
        _schedule(task, "expire_approval", request["expires_at"])
        return ReplyOutcome(task)
    if reply.payment_approved is True:
        raise ReplyRejected(
            409,
            "payment_state_mismatch",
            f"payment_approved=true only re-sends an expired approval; payment_status is {status}",
        )
    raise ReplyRejected(
        409,
        "payment_state_mismatch",
        "the payment is approved in the user's payment-approval app; "
        "send payment_approved=false to decline it",
    )


def _reply_to_plain_ask(task: Task, reply: Reply, now: datetime) -> ReplyOutcome:
    ask = task.plain_ask or {}
    sensitive = reply.sensitive or bool(ask.get("sensitive"))
    if reply.field is not None or reply.value is not None:
        if reply.field != ask.get("field"):
            raise ReplyRejected(
                422,
                "invalid_request",
                f"this ask requests field {ask.get('field')!r}",
                ["body", "field"],
            )
        if not (reply.value or "").strip():
            raise ReplyRejected(
                422, "invalid_request", "value must not be empty", ["body", "value"]
            )
        key, answer = str(reply.field), reply.value or ""
        payload: dict[str, Any] = {
            "field": key,
            "value": REDACTED if sensitive else answer,
            "sensitive": sensitive,
        }
    elif (reply.message or "").strip():
        key, answer = "message", reply.message or ""
        payload = {"message": REDACTED if sensitive else answer, "sensitive": sensitive}
    else:
        raise ReplyRejected(
            422,
            "invalid_request",
            "send message, or field plus value, to answer this ask",
            ["body"],
        )
    secrets: dict[str, str] = {}
    if sensitive:
        secrets = {key: answer}
    else:
        _fold_answers(task, {key: answer})
    _event(task, "reply_received", now, payload=payload)
    task.plain_ask = None
    _resume(task, now)
    return ReplyOutcome(task, secrets)


def _fold_answers(task: Task, values: dict[str, str]) -> None:
    for key, value in values.items():
        task.answers[key] = value
        task.goal += f"\nAnswer: {key}={value}"


def _resume(task: Task, now: datetime) -> None:
    _transition(task, "pending", now)
    _schedule(task, "complete", now + WORK)


# --- scheduled steps -------------------------------------------------------------------


def _step_complete(task: Task, at: datetime) -> None:
    output: dict[str, Any] = {"scenario": task.scenario, "status": "done"}
    if task.answers:
        output["answers"] = dict(task.answers)
    if is_hostile(task.goal):
        output["hostile"] = HOSTILE
        output["huge"] = (HOSTILE + " ") * (HOSTILE_HUGE // (len(HOSTILE) + 1))
    summary = _text(task, f"Sandbox task finished ({task.scenario}).")
    task.result = {"output": output, "summary": summary}
    reason = _text(task, "The sandbox finished the task as requested.")
    _finish(task, "completed", at, reason=reason)


def _step_fail(task: Task, at: datetime) -> None:
    _finish(
        task,
        "failed",
        at,
        error="task_failed",
        reason=_text(task, "The sandbox scenario #fail made this task fail."),
    )


def _step_cancel(task: Task, at: datetime) -> None:
    _finish(task, "cancelled", at)


def _step_ask_2fa(task: Task, at: datetime) -> None:
    task.plain_ask = {**TWO_FA_ASK, "message": _text(task, str(TWO_FA_ASK["message"]))}
    _transition(task, "blocked_on_user", at)
    _event(task, "input_requested", at, payload=dict(task.plain_ask))


def _step_ask_questions(task: Task, at: datetime) -> None:
    lifetime = SHORT_ASK_LIFETIME if task.scenario == "ask-expire" else ASK_LIFETIME
    asked = QUESTIONS_SECRET if task.scenario == "questions-secret" else QUESTIONS
    task.info_request = {**copy.deepcopy(asked), "created_at": at, "expires_at": at + lifetime}
    if is_hostile(task.goal):
        task.info_request["note"] = _text(task, str(asked["note"]))
        for question in task.info_request["questions"]:
            question["question"] = _text(task, question["question"])
    _transition(task, "blocked_on_user", at)
    _event(task, "input_requested", at, payload={"info_request": copy.deepcopy(task.info_request)})
    _schedule(task, "expire_questions", at + lifetime + FAIL_AFTER_EXPIRY)


def _step_expire_questions(task: Task, at: datetime) -> None:
    task.info_request = None
    _finish(
        task,
        "failed",
        at,
        error="ask_expired",
        reason="Nobody answered the questions before the ask expired.",
    )


def _step_ask_payment(task: Task, at: datetime) -> None:
    lifetime = SHORT_APPROVAL_LIFETIME if task.scenario == "approval-expire" else ASK_LIFETIME
    task.info_request = {
        **copy.deepcopy(PAYMENT_ASK),
        "created_at": at,
        "expires_at": at + lifetime,
    }
    if is_hostile(task.goal):
        task.info_request["merchant_name"] = _text(task, str(PAYMENT_ASK["merchant_name"]))
        task.info_request["note"] = _text(task, str(PAYMENT_ASK["note"]))
    _transition(task, "blocked_on_user", at)
    _event(task, "input_requested", at, payload={"info_request": copy.deepcopy(task.info_request)})
    _schedule(task, "expire_approval", at + lifetime)


def _step_expire_approval(task: Task, at: datetime) -> None:
    request = task.info_request
    if not request or request.get("payment_status") != "pending_approval":
        return
    if task.approved_at is not None and task.approved_at < at:
        return  # approved in time; the next poll reconciles it
    request["payment_status"] = "approval_expired"
    task.approved_at = None
    task.updated_at = at
    _event(task, "approval_expired", at, payload={"payment_status": "approval_expired"})


_STEPS = {
    "complete": _step_complete,
    "fail": _step_fail,
    "cancel": _step_cancel,
    "ask_2fa": _step_ask_2fa,
    "ask_questions": _step_ask_questions,
    "expire_questions": _step_expire_questions,
    "ask_payment": _step_ask_payment,
    "expire_approval": _step_expire_approval,
}


# --- helpers ---------------------------------------------------------------------------


def _approval_due(task: Task, now: datetime) -> bool:
    request = task.info_request
    return bool(
        task.state == "blocked_on_user"
        and request
        and request.get("payment_status") == "pending_approval"
        and task.approved_at is not None
        and task.approved_at <= now
    )


def _schedule(task: Task, step: str, at: datetime) -> None:
    task.next_step, task.next_step_at = step, at


def _event(
    task: Task,
    kind: str,
    at: datetime,
    *,
    from_state: str | None = None,
    to_state: str | None = None,
    payload: dict[str, Any] | None = None,
) -> None:
    task.events.append(
        {
            "id": new_id("evt"),
            "type": kind,
            "from_state": from_state if kind != "created" else None,
            "to_state": to_state,
            "payload": payload or {},
            "created_at": at,
        }
    )


def _transition(
    task: Task, to_state: str, at: datetime, payload: dict[str, Any] | None = None
) -> None:
    _event(task, "state_changed", at, from_state=task.state, to_state=to_state, payload=payload)
    task.state = to_state
    task.updated_at = at


def _finish(
    task: Task, state: str, at: datetime, *, error: str | None = None, reason: str | None = None
) -> None:
    _transition(task, state, at, payload={"error": error} if error else None)
    task.error = error
    task.reason = reason
    task.completed_at = at
    task.next_step = task.next_step_at = None
