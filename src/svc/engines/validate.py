"""Client-side validation with the spec's constraints, as one clear line (exit 2)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from svc.api.models import TaskSubmission
from svc.engines.task_rules import check_email
from svc.errors import UsageError

M = TypeVar("M", bound=BaseModel)


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


def task_body(task: object, email: str) -> dict[str, Any]:
    """The checked body of a submission (`svc submit`, MCP `submit_task`): the task text
    within the spec's bounds and a plausible end-user address."""
    body = build(TaskSubmission, "task", task=task, email=email).model_dump()
    check_email(body["email"])
    return body
