"""Client-side validation with the spec's constraints, as one clear line (exit 2)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from svc.engines.task_rules import checked_body
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


def task_body(task: object, email: object) -> dict[str, Any]:
    """The checked body of a submission (`svc submit`, MCP `submit_task`, the library): the
    task text within the spec's bounds and a plausible end-user address, by the one set of
    rules a batch's lines are checked by too (engines/task_rules)."""
    for name, value in (("task", task), ("email", email)):
        if not isinstance(value, str):
            words = "Field required" if value is None else "Input should be a valid string"
            raise UsageError(f"invalid task: {name}: {words}", code="validation_error")
    assert isinstance(task, str) and isinstance(email, str)
    return checked_body(task, email)
