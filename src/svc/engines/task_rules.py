"""The spec's rules for a submission's body: its fields, their lengths and a plausible e-mail
address. Every body svc sends is checked here (a batch's lines, the single submit, MCP and the
library, through engines/validate.task_body). The words for a length out of bounds are
pydantic's, as every other request model's are.
"""

from __future__ import annotations

import re
from typing import Any

from svc.errors import UsageError

FIELDS = ("task", "email")  # the spec: "No other fields exist"
TASK_CHARACTERS = (1, 100_000)
EMAIL_CHARACTERS = (3, 254)

# Deliberately loose: the service is the judge; this catches typos before paying for a 400.
# Matched whole (`fullmatch`): a `$` anchor also matched before a final newline.
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def check_email(email: str) -> str:
    if not EMAIL.fullmatch(email):
        raise UsageError(f"malformed e-mail address: {email!r}", code="invalid_email")
    return email


def only_submission_fields(body: dict[str, Any]) -> None:
    """The spec's submission has `task` and `email`, and "No other fields exist": a body with
    another (a caller's typo such as `emial`) is refused naming it, before it is journaled or
    paid for (a lenient server would charge for it; a strict one refuses it after the 402)."""
    for name in body:
        if name not in FIELDS:
            raise UsageError(
                f"invalid task: unknown field {str(name)[:64]!r}: a submission has only task "
                "and email (the spec: no other fields exist)",
                code="unknown_field",
            )


def checked_body(task: str, email: str) -> dict[str, str]:
    """The body of a task given as text (no lone surrogate: a batch line refuses those before
    this), in pydantic's words when a length is out of bounds."""
    problems = [
        problem
        for problem in (
            _length_problem("task", task, TASK_CHARACTERS),
            _length_problem("email", email, EMAIL_CHARACTERS),
        )
        if problem
    ]
    if problems:
        raise UsageError(f"invalid task: {'; '.join(problems)}", code="validation_error")
    check_email(email)
    return {"task": task, "email": email}


def _length_problem(name: str, value: str, bounds: tuple[int, int]) -> str | None:
    """pydantic's words for a string out of its length bounds, with the length it had."""
    low, high = bounds
    if low <= len(value) <= high:
        return None
    side, limit = ("least", low) if len(value) < low else ("most", high)
    unit = "character" if limit == 1 else "characters"
    return f"{name}: String should have at {side} {limit} {unit} (got {len(value)} characters)"
