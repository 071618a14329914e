"""The reply body for a neutral answer (`svc.replies`), checked against the task's ask.

Every face ends here: the CLI's flags and form, `svc mcp`'s arguments and a Python program
each build an `Answer`, and `body_for` checks it and returns the body the service takes. Its
errors name the answer's kinds (Message, Value, Secret, Fields, Approve, Decline), never a
flag or an argument, and carry the facts as fields, so each face words them its own way
(`ReplyMismatch`). A secret's value is never part of one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from svc import redact
from svc.api.answers import Task
from svc.api.models import ReplyBody
from svc.context import AppContext
from svc.engines.asks import Asked
from svc.engines.auth import free_call_auth
from svc.engines.task_state import remember
from svc.engines.validate import build
from svc.errors import Conflict, UsageError
from svc.replies import Answer, Approve, Fields, Message, Secret, Value

AskKind = Literal["plain", "structured"]
Problem = Literal["wrong_kind", "no_field", "not_payment", "fields", "option"]

# What a value outside a question's options shows of a secret answer: never the value.
HIDDEN: Final = "(hidden)"


@dataclass(frozen=True)
class Given:
    """What an answer carries, in no face's words: its kind and its values by key."""

    kind: Literal["message", "value", "secret", "fields", "approve", "decline"]
    values: Mapping[str, str]
    sensitive: bool

    @property
    def payment(self) -> bool | None:
        """The payment decision: True (approve), False (decline), None (none given)."""
        return {"approve": True, "decline": False}.get(self.kind)


class ReplyMismatch(UsageError):
    """The answer does not fit the ask (exit 2, nothing sent). `problem` says how; the other
    fields are the facts a face words: the ask's kind, the answer's kind, the keys asked,
    missing, not asked for or empty, and for a value outside a question's options its key and
    the options. The message is the library's own wording; the CLI and `svc mcp` replace the
    ones that would name a flag or an argument."""

    def __init__(
        self,
        message: str,
        *,
        problem: Problem,
        ask: AskKind,
        given: str,
        code: str | None = None,
        asked: tuple[str, ...] = (),
        missing: tuple[str, ...] = (),
        extra: tuple[str, ...] = (),
        empty: tuple[str, ...] = (),
        key: str | None = None,
        options: tuple[str, ...] = (),
    ) -> None:
        super().__init__(message, code=code)
        self.problem = problem
        self.ask = ask
        self.given = given
        self.asked = asked
        self.missing = missing
        self.extra = extra
        self.empty = empty
        self.key = key
        self.options = options

    def reword(self, message: str) -> ReplyMismatch:
        """The same mismatch in a face's words (its flags, its arguments)."""
        self.message = message
        self.args: tuple[Any, ...] = (message,)
        return self


def tell_secrets(answer: Answer) -> None:
    """Tell svc.redact every secret an answer carries, before it is checked, sent, or could be
    quoted by an error, a log line or the service's answer (a caller that fetches the task
    first, as the library does, tells them before that fetch)."""
    if isinstance(answer, Secret):
        redact.told(answer.value)
    elif isinstance(answer, Fields) and answer.sensitive:
        for value in answer.values.values():
            redact.told(value)


def body_for(asked: Asked, answer: Answer) -> dict[str, Any]:
    """The body of `POST /tasks/{id}/reply` for `answer`, checked against the task's ask
    (`engines.asks.read_ask`).

    A sensitive value is told to `svc.redact` before the body is returned: the service may
    fold it into the goal, and nothing this process shows may carry it back."""
    if not asked.waiting:
        raise Conflict(
            f"task {asked.task_id} is {asked.state}, not waiting on a reply", code="not_waiting"
        )
    plain = asked.plain
    body = _plain_body(asked, answer) if plain else _structured_body(asked, _given(answer))
    # Told once the body is checked (a check's error never quotes a value): the service may
    # fold a secret into the goal, and nothing this process shows may carry it back.
    for value in _sensitive_values(body):
        redact.told(value)
    return body


def _sensitive_values(body: dict[str, Any]) -> list[str]:
    """The values a reply body marks sensitive: a plain ask's value, or every value of a
    structured answer (the flag is the reply's: the service keeps each of them apart)."""
    if not body.get("sensitive"):
        return []
    values = [body.get("value")] if "info" not in body else body["info"]["field_values"].values()
    return [value for value in values if isinstance(value, str) and value]


def _given(answer: Answer) -> Given:
    """The answer's kind and values, one shape for every kind."""
    if isinstance(answer, Message):
        return Given("message", {}, sensitive=False)
    if isinstance(answer, Value):
        return Given("value", _one(answer.field, answer.value), sensitive=False)
    if isinstance(answer, Secret):
        return Given("secret", _one(answer.field, answer.value), sensitive=True)
    if isinstance(answer, Fields):
        return Given("fields", dict(answer.values), sensitive=answer.sensitive)
    kind: Literal["approve", "decline"] = "approve" if isinstance(answer, Approve) else "decline"
    return Given(kind, dict(answer.values), sensitive=answer.sensitive)


def _one(key: str | None, value: str) -> dict[str, str]:
    return {} if key is None else {key: value}


def _plain_body(asked: Asked, answer: Answer) -> dict[str, Any]:
    """A plain ask takes a message, or one field's value (a secret one sent as sensitive)."""
    if isinstance(answer, Message):
        return build(ReplyBody, "reply", message=answer.text).model_dump(exclude_none=True)
    if not isinstance(answer, Value | Secret):
        raise ReplyMismatch(
            "this task waits on a plain ask: answer with a Message, a Value or a Secret "
            "(not Fields, Approve or Decline)",
            problem="wrong_kind",
            ask="plain",
            given=_given(answer).kind,
        )
    field = answer.field if answer.field is not None else asked.field
    if not field:
        raise ReplyMismatch(
            "this plain ask names no key: answer with a Message, or name the key the Value "
            "or Secret answers",
            problem="no_field",
            ask="plain",
            given=_given(answer).kind,
        )
    sensitive = isinstance(answer, Secret) or asked.secret_field == field
    reply = build(ReplyBody, "reply", field=field, value=answer.value, sensitive=sensitive)
    return reply.model_dump(exclude_none=True)


def _structured_body(asked: Asked, answer: Given) -> dict[str, Any]:
    """A structured ask takes exactly its keys' values, and a payment ask a decision."""
    if answer.kind in ("message", "value") or (answer.kind == "secret" and not answer.values):
        raise ReplyMismatch(
            "this task carries a structured ask: answer with Fields (Approve or Decline for a "
            "payment), or a Secret naming its key",
            problem="wrong_kind",
            ask="structured",
            given=answer.kind,
        )
    check_field_values(asked, answer.values, sensitive=answer.sensitive, given=answer.kind)
    info: dict[str, Any] = {"field_values": dict(answer.values)}
    if answer.payment is not None:
        if not asked.payment:
            raise ReplyMismatch(
                "this ask is not about a payment: answer with Fields, not Approve or Decline",
                problem="not_payment",
                ask="structured",
                given=answer.kind,
            )
        info["payment_approved"] = answer.payment
    reply = build(ReplyBody, "reply", info=info, sensitive=answer.sensitive or None)
    return reply.model_dump(exclude_none=True)


def check_field_values(
    asked: Asked,
    values: Mapping[str, str],
    *,
    sensitive: bool = False,
    given: str = "fields",
) -> None:
    """Exactly the ask's keys, none empty, each question's value one of its options."""
    required = asked.keys
    missing = tuple(k for k in required if k not in values)
    extra = tuple(sorted(set(values) - set(required)))
    empty = tuple(k for k, v in values.items() if not v.strip())
    problems = []
    if missing:
        problems.append("missing " + ", ".join(missing))
    if extra:
        problems.append("not asked for: " + ", ".join(extra))
    if empty:
        problems.append("empty value for " + ", ".join(empty))
    if problems:
        raise ReplyMismatch(
            f"the answer does not match the ask ({'; '.join(problems)}); it asks for: "
            f"{', '.join(required) or 'no fields'}",
            problem="fields",
            ask="structured",
            given=given,
            code="field_values_mismatch",
            asked=required,
            missing=missing,
            extra=extra,
            empty=empty,
        )
    for key, allowed in asked.options.items():
        _check_option(key, allowed, values.get(key), sensitive=sensitive, given=given)


def _check_option(
    key: str, allowed: tuple[str, ...], value: str | None, *, sensitive: bool, given: str
) -> None:
    if value is None or value in allowed:
        return
    # repr escapes every control and format character: the value is quoted inert.
    shown = HIDDEN if sensitive else repr(value if len(value) <= 80 else value[:79] + "…")
    raise ReplyMismatch(
        f"{key}={shown} is not one of the options the question offers: {', '.join(allowed)}",
        problem="option",
        ask="structured",
        given=given,
        code="field_values_mismatch",
        key=key,
        options=allowed,
    )


def send_body(app: AppContext, task_id: str, body: dict[str, Any]) -> Task:
    """Send a checked reply body (a reply is never re-sent: it is not idempotent); the task as
    the service answered it, its state kept in the ledger."""
    answered = app.tasks.reply(task_id, body, auth=free_call_auth(app))
    remember(app, answered)
    return answered


def send(app: AppContext, asked: Asked, answer: Answer) -> Task:
    """Check `answer` against the task's ask and send it."""
    return send_body(app, asked.task_id, body_for(asked, answer))
