"""The interactive reply form: say what is asked, ask for every answer, review, then answer.

The form is a face: it reads the terminal and returns a neutral `svc.replies` answer, which
goes through the reply engine's `body_for` like any other. How an ask is read is the one rule
of every face: which key is a secret (`svc.replies.is_secret`) and which options a question
offers (`Question.options`), so the form picks only options the engine's check takes.

Empty answers, and answers outside a question's options, are asked again here and never sent.
A question's options are numbered: the number or the text is taken. Typed answers end in a
review (secrets shown as hidden) where the person sends, edits one answer, or cancels. A
payment decision alone needs no review: declining already takes a second, explicit yes, and
keeping the payment (the default) is `LeftToApprovalApp`, not an error, so `svc watch` can
keep waiting for the app.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from svc import words
from svc.api.models import InfoRequest, Question, TaskDetail
from svc.errors import UsageError
from svc.replies import (
    Answer,
    Approve,
    Decline,
    Fields,
    Message,
    Secret,
    Value,
    is_secret,
    plain_ask_is_secret,
)
from svc.sanitize import clean
from svc.ui import form, prompts


class ReplyCancelled(UsageError):
    """The person cancelled at the form's review: nothing is sent (exit 2, as gh does for a
    cancelled prompt). Under `svc watch` it ends the watch the same way."""

    default_code = "cancelled"

    def __init__(self, task_id: str) -> None:
        super().__init__(
            "reply not sent: cancelled at the review",
            hint=f"svc reply {task_id} answers it later; svc watch {task_id} follows it",
        )
        self.task_id = task_id


class LeftToApprovalApp(Exception):
    """The form's outcome when the person keeps a payment that the user approves in their app:
    nothing is sent, and that is not a mistake. `svc reply` says so and exits 0; a caller that
    waits (watch) keeps polling for the approval."""

    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id}: the payment is left to the approval app")
        self.task_id = task_id


# The payment decision, as the review shows it.
RESEND: Final = "send the approval again"
DECLINE: Final = "DECLINE (the task fails)"
LEAVE: Final = "leave it to the approval app"


@dataclass
class _Item:
    """One thing the form asks: its key in the reply, how to ask it, and what was answered."""

    key: str
    ask: Callable[[], str]
    secret: bool = False
    value: str = ""


def answer_from_form(task: TaskDetail) -> Answer:
    """Ask the person at the terminal: a reviewed answer, for the engine to check."""
    ask = task.info_request
    if ask is None:
        return _plain(task)
    form.header(_header(ask))
    items = _structured(ask)
    for item in items:
        item.value = item.ask()
    payment = _Item("payment", lambda: _payment_choice(ask)) if ask.is_payment_ask else None
    if payment is not None:
        payment.value = payment.ask()
        if payment.value == LEAVE and not items:
            raise LeftToApprovalApp(task.id)
    _review(task.id, items, payment)
    values = {item.key: item.value for item in items}
    # The wire has no per-key flag: one secret answer makes the whole reply sensitive.
    sensitive = any(item.secret for item in items)
    if payment is None or payment.value == LEAVE:
        return Fields(values, sensitive=sensitive)
    if payment.value == RESEND:
        return Approve(values, sensitive=sensitive)
    return Decline(values, sensitive=sensitive)


def _header(ask: InfoRequest) -> list[str]:
    lines = [ask.note] if ask.note else []  # the service's own words on why it asks
    if ask.is_payment_ask:
        merchant = ask.merchant_name or "the merchant"
        amount = "" if ask.amount_usd is None else f"{words.usd(ask.amount_usd)} "
        lines.append(f"Payment: {amount}to {merchant}")
    return lines


def _structured(ask: InfoRequest) -> list[_Item]:
    items = [_field(name) for name in ask.requested_fields]
    asked = set(ask.requested_fields)
    for question in ask.questions:
        if question.key not in asked:
            asked.add(question.key)
            items.append(_Item(question.key, _question_asker(question)))
    return items


def _field(name: str) -> _Item:
    """A requested field, typed hidden when its name reads like a secret (a PIN, a password)."""
    hidden = is_secret(name)
    label = clean(name, 64, single_line=True) + (" (hidden)" if hidden else "")
    return _Item(name, _asker(label, hidden=hidden), secret=hidden)


def _question_asker(question: Question) -> Callable[[], str]:
    extra = question.model_extra or {}
    text = clean(str(extra.get("question") or extra.get("text") or question.key), 200)
    options = question.options()
    if not options:
        return _asker(text)
    label = f"{text} ({'/'.join(options)})"

    def ask_choice() -> str:
        form.show_choices(options)
        return _ask_nonempty(label, options=options)

    return ask_choice


def _asker(label: str, *, hidden: bool = False) -> Callable[[], str]:
    return lambda: _ask_nonempty(label, hidden=hidden)


def _payment_choice(ask: InfoRequest) -> str:
    """The payment decision, asked as `svc watch` asks it (ui/form.py)."""
    amount = "" if ask.amount_usd is None else f" of {words.usd(ask.amount_usd)}"
    merchant = clean(ask.merchant_name or "the merchant", 100, single_line=True)
    if ask.payment_status == "approval_expired":
        return RESEND if form.resend_expired_approval(amount, merchant) else LEAVE
    return DECLINE if form.decline_payment(amount, merchant) else LEAVE


def _plain(task: TaskDetail) -> Answer:
    plain = task.plain_ask() or {}
    prompts.say(str(plain.get("message") or "The task waits for an answer."))
    name = plain.get("field")
    if not name:
        item = _Item("message", _asker("answer"))
        item.value = item.ask()
        _review(task.id, [item])
        return Message(item.value)
    hidden = plain_ask_is_secret(plain)
    label = clean(str(name), 64, single_line=True) + (" (hidden)" if hidden else "")
    item = _Item(str(name), _asker(label, hidden=hidden), secret=hidden)
    item.value = item.ask()
    _review(task.id, [item])
    return Secret(item.value, str(name)) if hidden else Value(item.value, str(name))


def _review(task_id: str, typed: list[_Item], payment: _Item | None = None) -> None:
    """Typed answers are shown (secrets hidden) until the person sends them or cancels; an
    edit asks that one answer again. A payment decision alone was confirmed already."""
    if not typed:
        return
    answers = typed + ([payment] if payment is not None else [])
    while True:
        choice = form.review([form.Row(a.key, a.value, a.secret) for a in answers])
        if choice == form.SEND:
            return
        if choice == form.CANCEL:
            raise ReplyCancelled(task_id)
        answers[choice].value = answers[choice].ask()


def _ask_nonempty(label: str, *, hidden: bool = False, options: list[str] | None = None) -> str:
    """Ask until the answer is one the ask can take: empty answers and answers outside the
    offered options are asked again here, and never sent."""
    while True:
        answer = (prompts.ask_hidden(f"{label}:") if hidden else prompts.ask_text(label)).strip()
        chosen = form.pick(answer, options) if options and answer else answer
        if not answer:
            prompts.say("a value is required")
        elif chosen is None:
            prompts.say(f"please answer one of: {', '.join(options or [])} (or its number)")
        else:
            return chosen
