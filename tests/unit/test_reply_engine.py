"""The reply engine on its own: `body_for(read_ask(task), answer)` for every kind of neutral
answer on every kind of ask (plain, plain and sensitive, structured, payment), the body it
returns, and the mismatches it raises, in no face's words and never with a secret in them.

The faces' wording of the same mismatches is checked where they run: `svc reply` in
tests/unit/test_reply_run.py (flags), `reply_to_task` in tests/e2e/test_reply_mcp_words.py
(arguments).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from tests.inproc import task_doc

from svc import redact
from svc.api.models import TaskDetail
from svc.engines.asks import read_ask
from svc.engines.reply import HIDDEN, ReplyMismatch, body_for
from svc.errors import Conflict, ExitCode, SvcError, UsageError
from svc.mcp.server import offered
from svc.replies import Answer, Approve, Decline, Fields, Message, Secret, Value

SEAT = {"key": "seat", "question": "Window or aisle?", "options": ["window", "aisle"]}
PAYMENT = {"amount_usd": "42.50", "merchant_name": "Example Air"}


def plain(**payload: Any) -> TaskDetail:
    event = {"id": "e", "type": "input_requested", "created_at": "x", "payload": payload}
    return TaskDetail.model_validate(task_doc(state="blocked_on_user", events=[event]))


def structured(fields: list[str], questions: list[Any] | None = None, **ask: Any) -> TaskDetail:
    info = {"requested_fields": fields, "questions": questions or [], **ask}
    return TaskDetail.model_validate(task_doc(state="blocked_on_user", info_request=info))


def payment(fields: list[str] | None = None) -> TaskDetail:
    return structured(fields or [], payment_status="pending_approval", **PAYMENT)


def mismatch(task: TaskDetail, answer: Answer) -> ReplyMismatch:
    with pytest.raises(ReplyMismatch) as caught:
        body_for(read_ask(task), answer)
    assert caught.value.exit_code == ExitCode.USAGE  # exit 2: nothing is sent
    return caught.value


def is_told(value: str) -> bool:
    return redact.scrub(f"<{value}>") != f"<{value}>"


# --- a plain ask ---------------------------------------------------------------------------


def test_a_plain_ask_takes_a_message_as_it_is() -> None:
    task = plain(message="Anything to add?")
    assert body_for(read_ask(task), Message("window seat")) == {
        "message": "window seat",
        "sensitive": False,
    }


def test_a_plain_asks_field_takes_a_value_named_or_not() -> None:
    task = plain(field="note")
    expected = {"field": "note", "value": "late check-in", "sensitive": False}
    assert (
        body_for(read_ask(task), Value("late check-in")) == expected
    )  # the field the task asks for
    assert body_for(read_ask(task), Value("late check-in", "note")) == expected
    other = body_for(read_ask(task), Value("x", "other"))
    assert other == {"field": "other", "value": "x", "sensitive": False}


def test_a_secret_on_a_plain_ask_is_sent_sensitive_and_told_to_redact() -> None:
    body = body_for(read_ask(plain(field="note")), Secret("s3cret-plain-1"))
    assert body == {"field": "note", "value": "s3cret-plain-1", "sensitive": True}
    assert is_told("s3cret-plain-1")


def test_a_plain_ask_marked_sensitive_makes_its_fields_value_a_secret() -> None:
    task = plain(field="sms_code", sensitive=True)
    body = body_for(read_ask(task), Value("604118"))
    assert body == {"field": "sms_code", "value": "604118", "sensitive": True}
    assert is_told("604118")
    assert body_for(read_ask(task), Secret("604119", "sms_code"))["sensitive"] is True
    # only the field it marks: another field's value is not made a secret
    assert body_for(read_ask(task), Value("plain-text-9", "note"))["sensitive"] is False
    assert not is_told("plain-text-9")
    assert body_for(read_ask(task), Message("call me")) == {
        "message": "call me",
        "sensitive": False,
    }


def test_a_value_with_no_key_on_an_ask_that_names_none_is_a_mismatch() -> None:
    error = mismatch(plain(message="Anything?"), Value("x"))
    assert (error.problem, error.ask, error.given, error.code) == (
        "no_field",
        "plain",
        "value",
        "usage_error",
    )


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (Fields({"note": "x"}), "fields"),
        (Fields({}), "fields"),
        (Approve(), "approve"),
        (Decline({"note": "x"}), "decline"),
    ],
)
def test_a_plain_ask_refuses_field_values_and_payment_decisions(answer: Answer, kind: str) -> None:
    for task in (plain(field="note"), plain(field="sms_code", sensitive=True)):
        error = mismatch(task, answer)
        assert (error.problem, error.ask, error.given) == ("wrong_kind", "plain", kind)
        assert error.code == "usage_error"


# --- a structured ask ------------------------------------------------------------------------


def test_a_structured_ask_takes_exactly_its_keys() -> None:
    task = structured(["shipping_address"], [SEAT])
    body = body_for(read_ask(task), Fields({"shipping_address": "1 Main St", "seat": "aisle"}))
    assert body == {
        "info": {"field_values": {"shipping_address": "1 Main St", "seat": "aisle"}},
        "sensitive": False,
    }
    assert not is_told("1 Main St")


def test_sensitive_fields_make_every_value_a_secret() -> None:
    task = structured(["card_pin", "phone"])
    body = body_for(
        read_ask(task), Fields({"card_pin": "8841", "phone": "555-0142"}, sensitive=True)
    )
    assert body["sensitive"] is True
    assert is_told("8841") and is_told("555-0142")


def test_a_secret_naming_the_one_key_of_a_structured_ask_answers_it() -> None:
    body = body_for(read_ask(structured(["card_pin"])), Secret("9931", "card_pin"))
    assert body == {"info": {"field_values": {"card_pin": "9931"}}, "sensitive": True}
    assert is_told("9931")


@pytest.mark.parametrize(
    ("answer", "kind"),
    [(Message("hi"), "message"), (Value("x", "phone"), "value"), (Secret("x"), "secret")],
)
def test_a_structured_ask_refuses_a_plain_answer(answer: Answer, kind: str) -> None:
    for task in (structured(["phone"]), payment()):
        error = mismatch(task, answer)
        assert (error.problem, error.ask, error.given) == ("wrong_kind", "structured", kind)


def test_field_values_that_do_not_match_the_keys_say_which() -> None:
    task = structured(["shipping_address", "phone"], [SEAT])
    error = mismatch(task, Fields({"phone": " ", "colour": "red"}))
    assert (error.problem, error.code) == ("fields", "field_values_mismatch")
    assert error.asked == ("shipping_address", "phone", "seat")
    assert error.missing == ("shipping_address", "seat")
    assert error.extra == ("colour",)
    assert error.empty == ("phone",)
    assert error.message == (
        "the answer does not match the ask (missing shipping_address, seat; not asked for: "
        "colour; empty value for phone); it asks for: shipping_address, phone, seat"
    )


def test_a_value_outside_the_options_names_the_key_and_the_options() -> None:
    task = structured([], [SEAT])
    error = mismatch(task, Fields({"seat": "middle"}))
    assert (error.problem, error.code, error.key) == ("option", "field_values_mismatch", "seat")
    assert error.options == ("window", "aisle")
    assert error.message == (
        "seat='middle' is not one of the options the question offers: window, aisle"
    )


def test_a_value_outside_the_options_is_quoted_inert_and_short() -> None:
    task = structured([], [SEAT])
    hostile = "\x1b]8;;https://evil.example\x07click\u202e\n" + "x" * 200
    message = mismatch(task, Fields({"seat": hostile})).message
    assert message.isprintable()  # no escape, bidi override or newline reaches a terminal
    assert "\\x1b" in message and "\\u202e" in message and "x" * 90 not in message


def test_a_payment_decision_on_an_ask_not_about_a_payment_is_a_mismatch() -> None:
    task = structured(["phone"])
    for answer, kind in (
        (Approve({"phone": "1"}), "approve"),
        (Decline({"phone": "1"}), "decline"),
    ):
        error = mismatch(task, answer)
        assert (error.problem, error.ask, error.given) == ("not_payment", "structured", kind)
    # the values are checked first, as before: a wrong key is named before the decision
    assert mismatch(task, Approve()).problem == "fields"


# --- a payment ask ----------------------------------------------------------------------------


def test_a_payment_ask_takes_approve_or_decline() -> None:
    task = payment()
    assert body_for(read_ask(task), Approve()) == {
        "info": {"field_values": {}, "payment_approved": True},
        "sensitive": False,
    }
    assert body_for(read_ask(task), Decline())["info"] == {
        "field_values": {},
        "payment_approved": False,
    }
    # no decision: the values alone (the approval stays with the person's app)
    assert body_for(read_ask(task), Fields({}))["info"] == {"field_values": {}}


def test_a_decision_beside_secret_values_is_sensitive() -> None:
    task = payment(["card_pin"])
    body = body_for(read_ask(task), Decline({"card_pin": "7702"}, sensitive=True))
    assert body == {
        "info": {"field_values": {"card_pin": "7702"}, "payment_approved": False},
        "sensitive": True,
    }
    assert is_told("7702")
    assert mismatch(task, Approve()).missing == ("card_pin",)


# --- a task that waits on nothing -------------------------------------------------------------

ALL_KINDS: list[Answer] = [
    Message("m"),
    Value("v", "f"),
    Secret("s", "f"),
    Fields({"k": "v"}),
    Approve(),
    Decline(),
]


@pytest.mark.parametrize("answer", ALL_KINDS, ids=lambda a: type(a).__name__)
def test_a_task_not_waiting_takes_no_answer_of_any_kind(answer: Answer) -> None:
    task = TaskDetail.model_validate(task_doc(state="completed"))
    with pytest.raises(Conflict) as caught:
        body_for(read_ask(task), answer)
    assert caught.value.code == "not_waiting"
    assert caught.value.message == "task task_1 is completed, not waiting on a reply"


# --- the errors' words ------------------------------------------------------------------------

SECRET = "Zq-9931-hunter2"


def every_error() -> list[tuple[str, SvcError]]:
    """Every error body_for raises, with a secret in the answer wherever one can be."""
    cases: list[tuple[str, TaskDetail, Answer]] = [
        ("plain, fields", plain(field="note"), Fields({"note": SECRET}, sensitive=True)),
        ("plain, approve", plain(field="note"), Approve({"note": SECRET}, sensitive=True)),
        ("plain, no key", plain(message="?"), Secret(SECRET)),
        ("structured, message", structured(["pin"]), Message(SECRET)),
        ("structured, value", structured(["pin"]), Value(SECRET, "pin")),
        ("structured, keyless secret", structured(["pin"]), Secret(SECRET)),
        ("structured, wrong key", structured(["pin"]), Secret(SECRET, "pine")),
        ("structured, extra key", structured(["pin"]), Fields({"pin": "1", "x": SECRET}, True)),
        ("structured, empty key", structured(["pin", "x"]), Fields({"pin": " ", "x": SECRET})),
        ("secret outside the options", structured([], [SEAT]), Secret(SECRET, "seat")),
        ("fields outside the options", structured([], [SEAT]), Fields({"seat": SECRET}, True)),
        ("not a payment", structured(["pin"]), Decline({"pin": SECRET}, sensitive=True)),
        ("too long", plain(field="pin"), Secret(SECRET * 300)),
        ("not waiting", TaskDetail.model_validate(task_doc(state="failed")), Secret(SECRET)),
    ]
    errors = []
    for name, task, answer in cases:
        with pytest.raises(SvcError) as caught:
            body_for(read_ask(task), answer)
        errors.append((name, caught.value))
    return errors


def test_every_error_is_covered_and_typed() -> None:
    kinds = {type(error).__name__ for _, error in every_error()}
    assert kinds == {"ReplyMismatch", "UsageError", "Conflict"}
    problems = {e.problem for _, e in every_error() if isinstance(e, ReplyMismatch)}
    assert problems == {"wrong_kind", "no_field", "not_payment", "fields", "option"}
    assert all(isinstance(e, UsageError | Conflict) for _, e in every_error())


def test_no_error_speaks_a_faces_words() -> None:
    """No flag (`--...`) in any error, and no argument of the `reply_to_task` tool: none of its
    compound names (field_values, approve_payment, ...) anywhere, and none at all in the
    errors that say what to answer with (the kind mismatches), where a face's vocabulary
    would leak. Elsewhere `value` and `message` are plain words ("empty value for phone", the
    spec's length check naming the wire's `value`), as the CLI has always said them."""
    arguments = set(offered()["reply_to_task"].input_schema["properties"])
    assert {"field_values", "approve_payment", "message", "value"} <= arguments
    compound = re.compile(r"\b(" + "|".join(a for a in sorted(arguments) if "_" in a) + r")\b")
    any_name = re.compile(r"\b(" + "|".join(sorted(arguments)) + r")\b")
    instructions = 0
    for name, error in every_error():
        words = " ".join(filter(None, (error.message, error.hint)))
        assert "--" not in words, (name, words)
        assert not compound.search(words), (name, words)
        if isinstance(error, ReplyMismatch) and error.problem not in ("fields", "option"):
            instructions += 1
            assert not any_name.search(words), (name, words)
    assert instructions == 7  # every kind mismatch above was checked against every name


def test_a_secret_never_appears_in_an_error() -> None:
    for name, error in every_error():
        shown = " ".join(
            str(part) for part in (error.message, error.hint, error, error.to_json(), vars(error))
        )
        assert SECRET not in shown, name
        assert SECRET[:8] not in shown, name  # nor a part of it (the length check's cut)
    option = dict(every_error())["secret outside the options"]
    assert option.message.startswith(f"seat={HIDDEN} is not one of the options")
