"""The one check of a submission's body (svc.engines.task_rules, through task_body for the
single submit, MCP and the library, directly for a batch's lines): the body, or one error in
pydantic's words, for every length at and around each bound."""

from __future__ import annotations

import itertools

import pytest

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


def _expected(task_length: int, email_length: int) -> str | None:
    """The error a body of these lengths gets, None when it passes."""
    problems = []
    if task_length < 1:
        problems.append("task: String should have at least 1 character (got 0 characters)")
    if task_length > 100_000:
        problems.append(
            f"task: String should have at most 100000 characters (got {task_length} characters)"
        )
    if email_length < 3:  # "(got 1 characters)": svc's words, pydantic's (a length, counted)
        problems.append(
            f"email: String should have at least 3 characters (got {email_length} characters)"
        )
    if email_length > 254:
        problems.append(
            f"email: String should have at most 254 characters (got {email_length} characters)"
        )
    if problems:
        return "invalid task: " + "; ".join(problems)
    if email_length < 5:
        return "malformed e-mail address"
    return None


@pytest.mark.parametrize(
    ("task_length", "email_length"), list(itertools.product(TASK_LENGTHS, EMAIL_LENGTHS))
)
def test_every_bound_answers_once_in_the_same_words(task_length: int, email_length: int) -> None:
    task, email = "t" * task_length, _email(email_length)
    expected = _expected(task_length, email_length)
    for check in (task_rules.checked_body, task_body):
        if expected is None:
            assert check(task, email) == {"task": task, "email": email}
            continue
        with pytest.raises(UsageError) as caught:
            check(task, email)
        assert caught.value.message.startswith(expected), caught.value.message
        assert int(caught.value.exit_code) == 2


@pytest.mark.parametrize(
    ("task", "email", "passes"),
    [
        ("  padded task  ", "ana@example.com", True),  # kept as given: no stripping
        ("Renew my books ✓ 📚", "ana@example.com", True),  # lengths in characters, not bytes
        ("x", " ana@example.com", False),
        ("x", "ana@example", False),
        ("x", "ana example@x.io", False),
        ("x", "ana@example.com\n", False),  # a final newline is no part of an address
        ("x", "ana@example.com\r\n", False),
        ("\u00e9" * 100_000, "é@é.é", True),
        ("\U0001f4da" * 100_001, "ana@example.com", False),
    ],
)
def test_texts_and_addresses(task: str, email: str, passes: bool) -> None:
    if passes:
        assert task_body(task, email) == {"task": task, "email": email}
    else:
        with pytest.raises(UsageError):
            task_body(task, email)


@pytest.mark.parametrize(
    ("task", "email", "words"),
    [
        (None, "a@b.co", "task: Field required"),
        (42, "a@b.co", "task: Input should be a valid string"),
        ("x", None, "email: Field required"),
        ("x", ["a@b.co"], "email: Input should be a valid string"),
    ],
)
def test_a_value_that_is_not_text_is_refused(task: object, email: object, words: str) -> None:
    with pytest.raises(UsageError, match=words) as caught:
        task_body(task, email)
    assert caught.value.code == "validation_error"


def test_only_the_specs_fields() -> None:
    task_rules.only_submission_fields({"task": "x", "email": "a@b.c"})
    with pytest.raises(UsageError, match="unknown field 'emial'") as caught:
        task_rules.only_submission_fields({"task": "x", "emial": "a@b.c"})
    assert caught.value.code == "unknown_field"


@pytest.mark.parametrize("email", ["ana@example.com\n", "ana@example.com\n\n", "\nana@example.com"])
def test_a_newline_around_an_address_is_refused(email: str) -> None:
    with pytest.raises(UsageError, match="malformed e-mail address") as caught:
        task_rules.checked_body("x", email)
    assert caught.value.code == "invalid_email"
    assert int(caught.value.exit_code) == 2
