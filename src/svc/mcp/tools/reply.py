"""`reply_to_task`: the CLI's reply flow (`svc.engines.reply`), with secrets kept from the model.

A secret (a field the ask marks sensitive, a field flagged sensitive, or one whose name reads
like a password or a code) is asked of the person (elicitation, or a 2026-07-28 round) and
never taken from the model, unless the profile sets `mcp_allow_model_secrets`. A structured
ask mixes both: the model gives the plain keys, leaves the secret ones out, and the person is
asked for each of those before the one reply, marked sensitive, carries them all.
"""

from __future__ import annotations

from typing import Any

from svc.api.models import TaskDetail
from svc.engines.asks import looks_secret
from svc.engines.reply import ReplyFlags, body_from_flags, check_field_values
from svc.errors import HumanNeededError, SvcError, UsageError
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

# The reply flow speaks in `svc reply` flags; a tool error speaks in tool arguments.
_TERMS = (
    ("--set KEY=VALUE", "field_values"),
    ("--approve/--decline-payment", "approve_payment/decline_payment"),
    ("--approve-payment/--decline-payment", "approve_payment/decline_payment"),
    ("--field with --value-file", "field with value"),
    ("--value-file", "value"),
    ("--message", "message"),
    ("--field", "field"),
    (" or a prompt", ""),
    ("no --set or payment flags", "no field_values or payment arguments"),
)


def _flags(args: dict[str, Any]) -> ReplyFlags:
    if args.get("approve_payment") and args.get("decline_payment"):
        raise UsageError("approve_payment and decline_payment exclude each other")
    if args.get("value") is not None and args.get("field") is None:
        raise UsageError("value goes with field")
    approved = True if args.get("approve_payment") else None
    return ReplyFlags(
        message=args.get("message"),
        field=args.get("field"),
        value=args.get("value"),
        sensitive=bool(args.get("sensitive")),
        sets=dict(args.get("field_values") or {}),
        payment_approved=False if args.get("decline_payment") else approved,
    )


def _wants_secret(task: TaskDetail, flags: ReplyFlags) -> bool:
    asked = secret_field(task)
    if flags.field is not None:
        return flags.sensitive or looks_secret(flags.field) or asked == flags.field
    return asked is not None and flags.message is not None  # a code sent as a message


def _refuse_model_secret(task: TaskDetail, flags: ReplyFlags, can_ask: bool) -> None:
    field = flags.field or secret_field(task) or "value"
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


def _model_set_secrets(call: Call, task: TaskDetail, flags: ReplyFlags) -> None:
    """Refuse a secret value the model put in field_values (a key named with no value is a
    request to ask the person, not a value); vault one the profile allows."""
    given = [key for key, value in flags.sets.items() if looks_secret(key) and value]
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
        call.vault.add(str(flags.sets[key]))
        flags.sensitive = True


async def _complete_structured(call: Call, task: TaskDetail, flags: ReplyFlags) -> None:
    """Ask the person for each secret key the model left out, once the rest is known to fit
    the ask: a wrong address must not cost the person a typed PIN that is then thrown away."""
    missing = [key for key in secret_keys(task) if not flags.sets.get(key)]
    if not missing or task.state != "blocked_on_user" or flags.field or flags.message:
        return  # nothing to ask, or the reply flow refuses the reply as it stands
    ask = task.info_request
    assert ask is not None
    check_field_values(ask, {**flags.sets, **dict.fromkeys(missing, "asked")})
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
        flags.sets[key] = value
    flags.sensitive = True  # the reply's flag: the service keeps every value of it apart


async def _complete(call: Call, task: TaskDetail, flags: ReplyFlags) -> None:
    """Fill in the secrets (from the person) or refuse ones from the model."""
    allowed = call.settings.mcp_allow_model_secrets
    _model_set_secrets(call, task, flags)
    if task.info_request is not None:
        await _complete_structured(call, task, flags)
        return
    if not _wants_secret(task, flags):
        if flags.field is not None and flags.value is None:
            raise UsageError(f"field {flags.field} needs a value")
        return
    from_model = flags.value is not None or flags.message is not None
    if from_model and not allowed:
        _refuse_model_secret(task, flags, call.human.reachable)
    if flags.value is not None or flags.message is not None:
        call.vault.add(str(flags.value if flags.value is not None else flags.message))
    elif flags.field is not None:
        flags.value = await _value_from_person(call, task, flags.field)
    flags.sensitive = flags.field is not None


def _body(task: TaskDetail, flags: ReplyFlags) -> dict[str, Any]:
    try:
        return body_from_flags(task, flags)
    except SvcError as exc:
        for cli, tool in _TERMS:
            exc.message = exc.message.replace(cli, tool)
        raise


async def reply_to_task(call: Call, args: dict[str, Any]) -> Outcome:
    flags = _flags(args)
    if flags.empty:
        raise UsageError(
            "nothing to reply: give message, field (and value), field_values, "
            "approve_payment or decline_payment"
        )
    task = detail(await poll(call, str(args["task_id"])))
    await _complete(call, task, flags)
    body = _body(task, flags)
    answered = await send_reply(call, task.id, body)
    return Outcome(
        {"task": answered},
        "Answer sent. " + describe(detail(answered), can_ask=call.human.reachable),
    )
