"""A neutral answer (svc.replies) to the body the service takes: the reply engine's `body_for`,
with every secret the caller passes told to svc.redact before anything else sees it."""

from __future__ import annotations

from typing import Any

from svc import redact
from svc.engines.reply import body_for
from svc.engines.types import TaskDetail
from svc.replies import Answer, Fields, Secret


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
    return body_for(task, answer)
