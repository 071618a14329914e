"""The plain check of a submission's body (svc.engines.task_rules, which a batch and every paid
submit use without pydantic) answers as `TaskSubmission` does (svc.engines.validate.task_body,
the single submit's, MCP's and the library's): the same body, or the same error in the same
words, for every length at and around each bound."""

from __future__ import annotations

import itertools

import pytest

from svc.api.models import TaskSubmission
from svc.engines import task_rules
from svc.engines.validate import task_body
from svc.errors import UsageError

TASK_LENGTHS = (0, 1, 2, 99_999, 100_000, 100_001, 250_000)
EMAIL_LENGTHS = (0, 1, 2, 3, 4, 253, 254, 255, 1000)


def _email(length: int) -> str:
    """An address of exactly `length` characters (a plausible one from 5 on)."""
    if length < 5:
        return "@" * length
    return "a" * (length - 4) + "@b.c"


def _answer(check: object, task: str, email: str) -> tuple[str, object]:
    assert callable(check)
    try:
        return "body", check(task, email)
    except UsageError as error:
        return "error", (error.message, error.code, int(error.exit_code))


@pytest.mark.parametrize(
    ("task_length", "email_length"), list(itertools.product(TASK_LENGTHS, EMAIL_LENGTHS))
)
def test_the_plain_check_answers_as_the_model(task_length: int, email_length: int) -> None:
    task, email = "t" * task_length, _email(email_length)
    assert _answer(task_rules.checked_body, task, email) == _answer(task_body, task, email)


@pytest.mark.parametrize(
    ("task", "email"),
    [
        ("  padded task  ", "ana@example.com"),  # kept as given: no stripping on either side
        ("Renew my books ✓ 📚", "ana@example.com"),  # lengths in characters, not bytes
        ("x", " ana@example.com"),
        ("x", "ana@example"),  # malformed: the e-mail check's own error
        ("x", "ana example@x.io"),
        ("x", "ana@example.com\n"),  # a final newline is no part of an address
        ("x", "ana@example.com\r\n"),
        ("\u00e9" * 100_000, "é@é.é"),
        ("\U0001f4da" * 100_001, "ana@example.com"),
    ],
)
def test_texts_and_addresses_answer_alike(task: str, email: str) -> None:
    assert _answer(task_rules.checked_body, task, email) == _answer(task_body, task, email)


def test_the_fields_are_the_models() -> None:
    assert tuple(TaskSubmission.model_fields) == task_rules.FIELDS
    task_rules.only_submission_fields({"task": "x", "email": "a@b.c"})
    with pytest.raises(UsageError, match="unknown field 'emial'") as caught:
        task_rules.only_submission_fields({"task": "x", "emial": "a@b.c"})
    assert caught.value.code == "unknown_field"


def test_the_bounds_are_the_models() -> None:
    """The lengths the plain check holds to are the ones the model declares."""
    bounds = {}
    for name, info in TaskSubmission.model_fields.items():
        constraint = next(m for m in info.metadata if hasattr(m, "max_length"))
        bounds[name] = (constraint.min_length, constraint.max_length)
    assert bounds == {
        "task": task_rules.TASK_CHARACTERS,
        "email": task_rules.EMAIL_CHARACTERS,
    }


@pytest.mark.parametrize("email", ["ana@example.com\n", "ana@example.com\n\n", "\nana@example.com"])
def test_a_newline_around_an_address_is_refused(email: str) -> None:
    with pytest.raises(UsageError, match="malformed e-mail address") as caught:
        task_rules.checked_body("x", email)
    assert caught.value.code == "invalid_email"
    assert int(caught.value.exit_code) == 2
