"""The interactive reply form: say what is asked, ask for every answer, review, then send.

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
from typing import Any, Final

from svc.api.models import InfoRequest, Question, TaskDetail
from svc.engines.asks import looks_secret
from svc.engines.reply import (
    LeftToApprovalApp,
    ReplyCancelled,
    ReplyFlags,
    body_from_flags,
    question_options,
)
from svc.ui import form, prompts, words
from svc.ui.sanitize import clean

# The payment decision, as the review shows it.
RESEND: Final = "send the approval again"
DECLINE: Final = "DECLINE (the task fails)"
LEAVE: Final = "leave it to the approval app"


@dataclass
class _Answer:
    """One thing the form asks: its key in the reply, how to ask it, and what was answered."""

    key: str
    ask: Callable[[], str]
    secret: bool = False
    value: str = ""


def body_from_form(task: TaskDetail) -> dict[str, Any]:
    """Ask the person at the terminal: a reviewed, checked reply body."""
    ask = task.info_request
    if ask is None:
        return _plain(task)
    form.header(_header(ask))
    answers = _structured(ask)
    for answer in answers:
        answer.value = answer.ask()
    payment = _Answer("payment", lambda: _payment_choice(ask)) if ask.is_payment_ask else None
    if payment is not None:
        payment.value = payment.ask()
        if payment.value == LEAVE and not answers:
            raise LeftToApprovalApp(task.id)
    _review(task.id, answers, payment)
    # The wire has no per-key flag: one secret answer makes the whole reply sensitive.
    flags = ReplyFlags(
        sets={a.key: a.value for a in answers}, sensitive=any(a.secret for a in answers)
    )
    if payment is not None and payment.value != LEAVE:
        flags.payment_approved = payment.value == RESEND
    return body_from_flags(task, flags)


def _header(ask: InfoRequest) -> list[str]:
    lines = [ask.note] if ask.note else []  # the service's own words on why it asks
    if ask.is_payment_ask:
        merchant = ask.merchant_name or "the merchant"
        amount = "" if ask.amount_usd is None else f"{words.usd(ask.amount_usd)} "
        lines.append(f"Payment: {amount}to {merchant}")
    return lines


def _structured(ask: InfoRequest) -> list[_Answer]:
    answers = [_field(n) for n in ask.requested_fields]
    asked = set(ask.requested_fields)
    for question in ask.questions:
        if question.key not in asked:
            asked.add(question.key)
            answers.append(_Answer(question.key, _question_asker(question)))
    return answers


def _field(name: str) -> _Answer:
    """A requested field, typed hidden when its name reads like a secret (a PIN, a password)."""
    hidden = looks_secret(name)
    label = clean(name, 64, single_line=True) + (" (hidden)" if hidden else "")
    return _Answer(name, _asker(label, hidden=hidden), secret=hidden)


def _question_asker(question: Question) -> Callable[[], str]:
    extra = question.model_extra or {}
    text = clean(str(extra.get("question") or extra.get("text") or question.key), 200)
    options = question_options(question)
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


def _plain(task: TaskDetail) -> dict[str, Any]:
    plain = task.plain_ask() or {}
    prompts.say(str(plain.get("message") or "The task waits for an answer."))
    name = plain.get("field")
    if not name:
        answer = _Answer("message", _asker("answer"))
        answer.value = answer.ask()
        _review(task.id, [answer])
        return body_from_flags(task, ReplyFlags(message=answer.value))
    hidden = bool(plain.get("sensitive"))
    label = clean(str(name), 64, single_line=True) + (" (hidden)" if hidden else "")
    answer = _Answer(str(name), _asker(label, hidden=hidden), secret=hidden)
    answer.value = answer.ask()
    _review(task.id, [answer])
    flags = ReplyFlags(field=str(name), value=answer.value, sensitive=hidden)
    return body_from_flags(task, flags)


def _review(task_id: str, typed: list[_Answer], payment: _Answer | None = None) -> None:
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
