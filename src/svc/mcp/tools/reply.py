"""`reply_to_task`: the tool's arguments as a neutral answer (`svc.replies`), checked by the
reply engine (`body_for`), with secrets kept from the model.

A secret (a field the ask marks sensitive, a field flagged sensitive, or one whose name reads
like a password or a code) is asked of the person (elicitation, or a 2026-07-28 round) and
never taken from the model, unless the profile sets `mcp_allow_model_secrets`. A structured
ask mixes both: the model gives the plain keys, leaves the secret ones out, and the person is
asked for each of those before the one reply, marked sensitive, carries them all. The engine's
mismatches name the answer's parts; this tool words them as its own arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from typing import Any

from svc.engines.reply import ReplyMismatch, body_for, check_field_values
from svc.engines.types import TaskDetail
from svc.errors import HumanNeededError, UsageError
from svc.mcp.asks import (
    describe,
    reply_command,
    secret_field,
    secret_keys,
    secret_prompt,
)
from svc.mcp.results import Outcome
from svc.mcp.state import Call
from svc.mcp.tools.follow import detail, poll, send_reply
from svc.replies import Answer, Approve, Decline, Fields, Message, Secret, Value, is_secret


@dataclass
class _Args:
    """The tool's answer arguments, completed with the person's secrets before the answer."""

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


def _parsed(args: dict[str, Any]) -> _Args:
    if args.get("approve_payment") and args.get("decline_payment"):
        raise UsageError("approve_payment and decline_payment exclude each other")
    if args.get("value") is not None and args.get("field") is None:
        raise UsageError("value goes with field")
    parsed = _Args(
        message=args.get("message"),
        field=args.get("field"),
        value=args.get("value"),
        sensitive=bool(args.get("sensitive")),
        sets=dict(args.get("field_values") or {}),
        payment_approved=True if args.get("approve_payment") else None,
    )
    if args.get("decline_payment"):
        parsed.payment_approved = False
    _one_kind(parsed)
    return parsed


def _one_kind(args: _Args) -> None:
    """One answer is one kind: a message, a field's value, or field_values (with a payment
    decision). A plain ask takes the first two, a structured ask the last."""
    if args.message is not None and args.field is not None:
        raise UsageError("message and field exclude each other")
    if (args.message is not None or args.field is not None) and (
        args.sets or args.payment_approved is not None
    ):
        given = "message" if args.message is not None else "field"
        raise UsageError(
            f"{given} (a plain ask's answer) and field_values or a payment argument (a "
            "structured ask's) exclude each other"
        )


def _wants_secret(task: TaskDetail, parsed: _Args) -> bool:
    asked = secret_field(task)
    if parsed.field is not None:
        return is_secret(parsed.field, parsed.sensitive) or asked == parsed.field
    return asked is not None and parsed.message is not None  # a code sent as a message


def _refuse_model_secret(task: TaskDetail, parsed: _Args, can_ask: bool) -> None:
    field = parsed.field or secret_field(task) or "value"
    how = (
        f"call reply_to_task with field={field} and no value: the person is asked directly"
        if can_ask
        else f"have the person run, in a terminal: {reply_command(task.id, field)}"
    )
    raise UsageError(
        f"refused: {field} is a secret and must come from the person, not from the model "
        "(nothing was sent)",
        code="secret_from_model",
        hint=how + "; a profile may allow it with `svc config set mcp_allow_model_secrets true`",
    )


async def _value_from_person(call: Call, task: TaskDetail, field: str) -> str:
    if not call.human.reachable:
        raise HumanNeededError(
            f"{field} is a secret and this MCP client cannot ask the person for it",
            code="human_needed",
            hint="have the person run, in a terminal: " + reply_command(task.id, field),
        )
    value = await call.human.secret(secret_prompt(task, field), field, task.id)
    if value is None:
        raise HumanNeededError(f"the person gave no {field}; nothing was sent", code="human_needed")
    call.vault.add(value)
    return value


def _model_set_secrets(call: Call, task: TaskDetail, parsed: _Args) -> None:
    """Refuse a secret value the model put in field_values (a key named with no value is a
    request to ask the person, not a value); vault one the profile allows."""
    given = [key for key, value in parsed.sets.items() if is_secret(key) and value]
    if given and not call.settings.mcp_allow_model_secrets:
        how = (
            f"leave {', '.join(given)} out of field_values: the person is asked directly"
            if call.human.reachable
            else f"have the person answer it in a terminal: svc reply {task.id}"
        )
        raise UsageError(
            f"refused: field_values carries a secret ({', '.join(given)}) from the model "
            "(nothing was sent)",
            code="secret_from_model",
            hint=how,
        )
    for key in given:  # allowed from the model, still a secret to every later answer
        call.vault.add(str(parsed.sets[key]))
        parsed.sensitive = True


async def _complete_structured(call: Call, task: TaskDetail, parsed: _Args) -> None:
    """Ask the person for each secret key the model left out, once the rest is known to fit
    the ask: a wrong address must not cost the person a typed PIN that is then thrown away."""
    missing = [key for key in secret_keys(task) if not parsed.sets.get(key)]
    if not missing or task.state != "blocked_on_user" or parsed.field or parsed.message:
        return  # nothing to ask, or the reply engine refuses the answer as it stands
    ask = task.info_request
    assert ask is not None
    check_field_values(ask, {**parsed.sets, **dict.fromkeys(missing, "asked")})
    names = ", ".join(missing)
    if not call.human.reachable:
        raise HumanNeededError(
            f"{names}: a secret, and this MCP client cannot ask the person for it; "
            "nothing was sent",
            code="human_needed",
            hint=f"have the person answer the whole ask in a terminal: svc reply {task.id}",
        )
    for key in missing:  # one after another: under 2026-07-28 each is a round of its own
        await call.progress(f"task {task.id} waits for the person's {key}")
        value = await call.human.secret(secret_prompt(task, key), key, task.id)
        if value is None:
            raise HumanNeededError(
                f"the person gave no {key}; nothing was sent", code="human_needed"
            )
        call.vault.add(value)
        parsed.sets[key] = value
    parsed.sensitive = True  # the reply's flag: the service keeps every value of it apart


async def _complete(call: Call, task: TaskDetail, parsed: _Args) -> None:
    """Fill in the secrets (from the person) or refuse ones from the model."""
    allowed = call.settings.mcp_allow_model_secrets
    _model_set_secrets(call, task, parsed)
    if task.info_request is not None:
        await _complete_structured(call, task, parsed)
        return
    if not _wants_secret(task, parsed):
        if parsed.field is not None and parsed.value is None:
            raise UsageError(f"field {parsed.field} needs a value")
        return
    from_model = parsed.value is not None or parsed.message is not None
    if from_model and not allowed:
        _refuse_model_secret(task, parsed, call.human.reachable)
    if parsed.value is not None or parsed.message is not None:
        call.vault.add(str(parsed.value if parsed.value is not None else parsed.message))
    elif parsed.field is not None:
        parsed.value = await _value_from_person(call, task, parsed.field)
    parsed.sensitive = parsed.field is not None


def _answer(args: _Args) -> Answer:
    """The completed arguments as a neutral answer (one kind, as `_one_kind` made sure)."""
    if args.payment_approved is not None:
        decision = Approve if args.payment_approved else Decline
        return decision(dict(args.sets), sensitive=args.sensitive)
    if args.message is not None:
        return Message(args.message)
    if args.field is None:
        return Fields(dict(args.sets), sensitive=args.sensitive)
    # `_complete` filled a plain ask's value (or refused); a structured ask refuses a field
    # whatever its value, so an absent one is no value at all.
    value = args.value if args.value is not None else ""
    return Secret(value, args.field) if args.sensitive else Value(value, args.field)


# The engine's mismatches that name an answer's part, in this tool's argument names.
ARGUMENT_WORDS = {
    ("wrong_kind", "plain"): "this task waits on a plain ask: answer with message, or field "
    "with value (no field_values or payment arguments)",
    ("wrong_kind", "structured"): "this task carries a structured ask: answer with "
    "field_values (and approve_payment/decline_payment for a payment)",
    ("not_payment", "structured"): "this ask is not about a payment: drop "
    "approve_payment/decline_payment",
}


def _body(task: TaskDetail, answer: Answer) -> dict[str, Any]:
    try:
        return body_for(task, answer)
    except ReplyMismatch as mismatch:
        worded = ARGUMENT_WORDS.get((mismatch.problem, mismatch.ask))
        if worded is not None:
            mismatch.reword(worded)
        raise


async def reply_to_task(call: Call, args: dict[str, Any]) -> Outcome:
    parsed = _parsed(args)
    if parsed.empty:
        raise UsageError(
            "nothing to reply: give message, field (and value), field_values, "
            "approve_payment or decline_payment"
        )
    task = detail(await poll(call, str(args["task_id"])))
    await _complete(call, task, parsed)
    body = _body(task, _answer(parsed))
    answered = await send_reply(call, task.id, body)
    return Outcome(
        {"task": answered},
        "Answer sent. " + describe(detail(answered), can_ask=call.human.reachable),
    )
