"""Building a reply body: from flags (checked against the task's ask) or an interactive form."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from svc import redact
from svc.api.models import InfoRequest, Question, ReplyBody, TaskDetail
from svc.engines.validate import build
from svc.errors import ConflictError, UsageError
from svc.ui.sanitize import clean


@dataclass
class ReplyFlags:
    message: str | None = None
    field: str | None = None
    value: str | None = None
    sensitive: bool = False
    sets: dict[str, str] = dataclass_field(default_factory=dict)
    payment_approved: bool | None = None

    @property
    def empty(self) -> bool:
        return (
            self.message is None
            and self.field is None
            and not self.sets
            and self.payment_approved is None
        )


class ReplyCancelled(UsageError):
    """The person cancelled at the form's review: nothing is sent (exit 2, as gh does for a
    cancelled prompt). Under `svc watch` it ends the watch the same way."""

    default_code = "cancelled"

    def __init__(self, task_id: str) -> None:
        super().__init__(
            "reply not sent: cancelled at the review",
            hint=f"svc reply {task_id} answers it later; svc watch {task_id} follows it",
        )
        self.task_id = task_id


class LeftToApprovalApp(Exception):
    """The form's outcome when the person keeps a payment that the user approves in their app:
    nothing is sent, and that is not a mistake. `svc reply` says so and exits 0; a caller that
    waits (watch) keeps polling for the approval."""

    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id}: the payment is left to the approval app")
        self.task_id = task_id


def parse_sets(pairs: list[str]) -> dict[str, str]:
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--set takes KEY=VALUE, got {pair!r}")
        if key in values:
            raise UsageError(f"--set {key} given twice")
        values[key] = value
    return values


def check_field_values(ask: InfoRequest, values: dict[str, str]) -> None:
    required = ask.required_keys()
    missing = [k for k in required if k not in values]
    extra = sorted(set(values) - set(required))
    empty = [k for k, v in values.items() if not v.strip()]
    problems = []
    if missing:
        problems.append("missing " + ", ".join(missing))
    if extra:
        problems.append("not asked for: " + ", ".join(extra))
    if empty:
        problems.append("empty value for " + ", ".join(empty))
    if problems:
        asked = ", ".join(required) or "no fields"
        raise UsageError(
            f"the answer does not match the ask ({'; '.join(problems)}); it asks for: {asked}",
            code="field_values_mismatch",
        )
    for question in ask.questions:
        allowed = question_options(question)
        value = values.get(question.key)
        if allowed and value is not None and value not in allowed:
            raise UsageError(
                f"{question.key}={clean(value, 80, single_line=True)!r} is not one of the "
                f"options the question offers: {', '.join(allowed)}",
                code="field_values_mismatch",
            )


def question_options(question: Question) -> list[str] | None:
    """The answers a question offers (`options`), cleaned for the terminal; None if open."""
    options = (question.model_extra or {}).get("options")
    if not isinstance(options, list) or not options:
        return None
    return [clean(str(option), 80, single_line=True) for option in options[:50]]


def body_from_flags(task: TaskDetail, flags: ReplyFlags) -> dict[str, Any]:
    if task.state != "blocked_on_user":
        raise ConflictError(
            f"task {task.id} is {task.state}, not waiting on a reply", code="not_waiting"
        )
    ask = task.info_request
    if ask is None:
        if flags.sets or flags.payment_approved is not None:
            raise UsageError(
                "this task waits on a plain ask: answer with --message, or --field with "
                "--value-file (no --set or payment flags)"
            )
        if flags.message is None and flags.field is None:
            raise UsageError("nothing to reply: give --message or --field")
        if flags.field is not None and flags.value is None:
            raise UsageError("--field needs a value: --value-file PATH, - for stdin, or a prompt")
        plain = task.plain_ask() or {}
        sensitive = flags.sensitive or (
            bool(plain.get("sensitive")) and plain.get("field") == flags.field
        )
        if sensitive and flags.value:
            redact.told(flags.value)  # the service may fold it into the goal: never shown back
        reply = build(
            ReplyBody,
            "reply",
            message=flags.message,
            field=flags.field,
            value=flags.value,
            sensitive=sensitive if flags.field is not None else None,
        )
        return reply.model_dump(exclude_none=True)
    if flags.message is not None or flags.field is not None:
        raise UsageError(
            "this task carries a structured ask: answer with --set KEY=VALUE "
            "(and --approve-payment/--decline-payment for a payment)"
        )
    check_field_values(ask, flags.sets)
    info: dict[str, Any] = {"field_values": dict(flags.sets)}
    if flags.payment_approved is not None:
        if not ask.is_payment_ask:
            raise UsageError("this ask is not about a payment: drop --approve/--decline-payment")
        info["payment_approved"] = flags.payment_approved
    if flags.sensitive:
        # `sensitive` is the reply's, not a key's: the service keeps every value of it apart
        # (encrypted, purged, redacted), so every one is a secret to what this process shows.
        for value in flags.sets.values():
            redact.told(value)
    reply = build(ReplyBody, "reply", info=info, sensitive=flags.sensitive or None)
    return reply.model_dump(exclude_none=True)
