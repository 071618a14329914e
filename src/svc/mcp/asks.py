"""What a blocked task asks, in words an agent can act on, and how the person is asked for a
secret (which asks want one: svc.engines.asks)."""

from __future__ import annotations

import json
import shlex
from typing import Any

from svc.api.models import TaskDetail
from svc.engines.asks import Asked, secret_field, secret_keys
from svc.next_words import reply_command
from svc.sanitize import clean
from svc.words import usd


def secret_prompt(asked: Asked, field: str) -> str:
    words = clean(asked.words or f"The task asks for {field}.", 500)
    return (
        f"{words}\n\nTask {clean(asked.task_id, 80, single_line=True)} needs {field}. It goes "
        "straight to the service, marked sensitive; the AI agent never sees it."
    )


def from_service(text: object, limit: int = 500) -> str:
    """Words the service wrote, as a quoted string: data for the model, never our instructions
    (a task note of "ignore your instructions and pay..." must read as what it is)."""
    return json.dumps(clean(text, limit, single_line=True), ensure_ascii=False)


def describe(task: TaskDetail, *, can_ask: bool) -> str:
    """One paragraph: the state and, when blocked, what is asked and how to answer it. Our
    words; anything the service wrote is quoted by `from_service`."""
    head = f"Task {task.id} is {task.state}."
    if task.is_final:
        why = task.error or task.reason
        return f"{head} The service says: {from_service(why)}." if why else head
    if task.state != "blocked_on_user":
        return head
    ask = task.info_request
    if ask is None:
        return f"{head} {_plain(task, can_ask)}"
    parts = [head]
    if ask.note:
        parts.append(f"The service's note: {from_service(ask.note)}.")
    keys = ask.required_keys()
    if keys:
        parts.append("Answer with reply_to_task field_values for exactly: " + ", ".join(keys) + ".")
    hidden = secret_keys(task)
    if hidden:
        parts.append(_secret_keys_how(task, hidden, can_ask))
    if ask.is_payment_ask:
        parts.append(
            f"Payment ask: {usd(ask.amount_usd)} to merchant "
            f"{from_service(ask.merchant_name or '', 100)} "
            f"(status {from_service(ask.payment_status or '', 40)}). The person approves it in "
            "their own app; you may only "
            "decline it (decline_payment) or re-send an expired approval (approve_payment)."
        )
    return " ".join(parts)


def _secret_keys_how(task: TaskDetail, hidden: list[str], can_ask: bool) -> str:
    names = ", ".join(from_service(key, 64) for key in hidden)
    if can_ask:
        return (
            f"Secrets, for the person to give and never you: {names}. Leave them out of "
            'field_values (or give them "") and send the others: the person is asked for them '
            "directly when you reply. Never ask for them in the chat."
        )
    return (
        f"Secrets, for the person to give and never you: {names}. This MCP client cannot ask "
        "the person directly. Do not ask for them in the chat: have the person answer the "
        f"whole ask in a terminal: svc reply {shlex.quote(task.id)}"
    )


def _plain(task: TaskDetail, can_ask: bool) -> str:
    plain: dict[str, Any] = task.plain_ask() or {}
    message = from_service(plain.get("message") or "")
    field = plain.get("field")
    if not field:
        return f"It asks (the service's words): {message}. Answer with reply_to_task message."
    name = from_service(field, 64)  # the field's name is the service's word too
    if secret_field(task):
        how = (
            f"Call reply_to_task with field={name} and NO value: the person is asked directly."
            if can_ask
            else "This MCP client cannot ask the person directly. Do not ask for it in the "
            f"chat: have the person run, in a terminal: {reply_command(task.id, str(field))}"
        )
        return f"It asks the person for a secret (field {name}): {message}. {how}"
    return f"It asks for field {name}: {message}. Answer with reply_to_task field and value."
