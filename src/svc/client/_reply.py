"""A neutral answer (svc.replies) to the body the service takes, checked as the CLI checks it.

# adapter until the reply engine returns data (issue 32): today's engine takes the CLI's
# flags (ReplyFlags), so each answer is spelt as the flags that say the same; the integrator
# replaces this module with the neutral reply engine when that branch lands.
"""

from __future__ import annotations

from typing import Any

from svc import redact
from svc.api.models import TaskDetail
from svc.engines.reply import ReplyFlags, body_from_flags
from svc.replies import Answer, Approve, Decline, Fields, Message, Secret, Value


def tell_secrets(answer: Answer) -> None:
    """A secret the caller passes is told to svc.redact first: before it is checked, sent or
    could be quoted by any error, log line or answer of the service."""
    if isinstance(answer, Secret):
        redact.told(answer.value)
    elif isinstance(answer, Fields) and answer.sensitive:
        for value in answer.values.values():
            redact.told(value)


def reply_body(task: TaskDetail, answer: Answer) -> dict[str, Any]:
    """The checked body; the caller told `tell_secrets(answer)` before anything else."""
    return body_from_flags(task, _as_flags(task, answer))


def _as_flags(task: TaskDetail, answer: Answer) -> ReplyFlags:
    structured = task.info_request is not None
    if isinstance(answer, Message):
        return ReplyFlags(message=answer.text)
    if isinstance(answer, Value | Secret):
        secret = isinstance(answer, Secret)
        if structured:
            return ReplyFlags(sets={answer.field or "": answer.value}, sensitive=secret)
        field = answer.field or _asked_field(task)
        return ReplyFlags(field=field, value=answer.value, sensitive=secret)
    if isinstance(answer, Fields):
        return ReplyFlags(sets=dict(answer.values), sensitive=answer.sensitive)
    approved = isinstance(answer, Approve)
    assert isinstance(answer, Approve | Decline)
    return ReplyFlags(sets=dict(answer.values), payment_approved=approved)


def _asked_field(task: TaskDetail) -> str | None:
    field = (task.plain_ask() or {}).get("field")
    return field if isinstance(field, str) and field else None
