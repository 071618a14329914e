"""The body of a quote request (`svc quote`, MCP `quote`), checked against the spec's
constraints before anything is sent (exit 2)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from svc import rail_table
from svc.api.models import QuoteRequest
from svc.engines.validate import describe
from svc.errors import UsageError


class QuoteFieldError(UsageError):
    """A quote's body is out of the spec's bounds. The message says so for every field (up to
    three); `field` is the first one's name in the body (goal, budgetUsd, ...) and `problem`
    what is wrong with it, in words that follow whatever name a face gives the field."""

    def __init__(self, exc: ValidationError) -> None:
        super().__init__(f"invalid quote: {describe(exc)}", code="validation_error")
        first = exc.errors()[0]
        self.field: str = str(first["loc"][0]) if first["loc"] else "goal"
        self.problem: str = _problem(self.field, first)


def quote_body(values: dict[str, Any]) -> dict[str, Any]:
    """The quote's body from its fields (None: left out), or QuoteFieldError."""
    try:
        request = QuoteRequest(**{k: v for k, v in values.items() if v is not None})
    except ValidationError as exc:
        raise QuoteFieldError(exc) from None
    return request.model_dump(exclude_none=True)


def _problem(field: str, err: ErrorDetails) -> str:
    value = err.get("input")
    if field == "budgetUsd":
        problem = "must be a USD amount like 12.50 (up to 9 integer digits, 6 decimals)"
    elif field == "payment":
        problem = f"must be one of {', '.join(rail_table.NAMES)}"
    else:
        problem = err["msg"][:1].lower() + err["msg"][1:]
    if isinstance(value, str) and err["type"].startswith("string_too"):
        problem += f" (got {len(value)} characters)"
    elif value is not None and not isinstance(value, dict):
        problem += f" (got {value!r})" if len(repr(value)) < 60 else ""
    return problem
