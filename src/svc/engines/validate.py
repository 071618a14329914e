"""Client-side validation with the spec's constraints, as one clear line (exit 2)."""

from __future__ import annotations

import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from svc.api.models import TaskSubmission
from svc.errors import UsageError

M = TypeVar("M", bound=BaseModel)

# Deliberately loose: the service is the judge; this catches typos before paying for a 400.
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


def build(model: type[M], what: str, **values: Any) -> M:
    try:
        return model(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        raise UsageError(f"invalid {what}: {describe(exc)}", code="validation_error") from None


def describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"]) or "value"
        message = err["msg"]
        value = err.get("input")
        if isinstance(value, str) and err["type"].startswith("string_t"):
            message += f" (got {len(value)} characters)"
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def check_email(email: str) -> str:
    if not EMAIL.match(email):
        raise UsageError(f"malformed e-mail address: {email!r}", code="invalid_email")
    return email


def only_submission_fields(body: dict[str, Any]) -> None:
    """The spec's submission has `task` and `email`, and "No other fields exist": a body with
    another (a caller's typo such as `emial`) is refused naming it, before it is journaled or
    paid for (a lenient server would charge for it; a strict one refuses it after the 402)."""
    known = TaskSubmission.model_fields
    for name in body:
        if name not in known:
            raise UsageError(
                f"invalid task: unknown field {str(name)[:64]!r}: a submission has only task "
                "and email (the spec: no other fields exist)",
                code="unknown_field",
            )


def task_body(task: object, email: str) -> dict[str, Any]:
    """The checked body of a submission (`svc submit`, MCP `submit_task`): the task text
    within the spec's bounds and a plausible end-user address."""
    body = build(TaskSubmission, "task", task=task, email=email).model_dump()
    check_email(body["email"])
    return body
