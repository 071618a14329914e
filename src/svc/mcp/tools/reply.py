"""`reply_to_task`: the tool's arguments as an agent's draft answer, completed with the person's
secrets and sent by the engine (svc.engines.reply_draft), which never takes a secret from the
model unless the profile sets `mcp_allow_model_secrets`.

This face reads the arguments, reaches the person (elicitation, or a 2026-07-28 round) when
the engine asks for a secret, and words the engine's mismatches as its own arguments.
"""

from __future__ import annotations

from typing import Any

import anyio.from_thread

from svc.engines.asks import Asked
from svc.engines.reply import ReplyMismatch
from svc.engines.reply_draft import Draft, send_draft
from svc.errors import UsageError
from svc.mcp.asks import describe, secret_prompt
from svc.mcp.results import Outcome
from svc.mcp.state import Call
from svc.mcp.tools.follow import detail, poll
from svc.ui.face import FaceContext


def drafted(args: dict[str, Any]) -> Draft:
    """The arguments as a draft of one kind: a message, a field's value, or field_values
    (with a payment decision). A plain ask takes the first two, a structured ask the last."""
    if args.get("approve_payment") and args.get("decline_payment"):
        raise UsageError("approve_payment and decline_payment exclude each other")
    if args.get("value") is not None and args.get("field") is None:
        raise UsageError("value goes with field")
    decided = {"approve_payment": True, "decline_payment": False}
    draft = Draft(
        message=args.get("message"),
        field=args.get("field"),
        value=args.get("value"),
        sensitive=bool(args.get("sensitive")),
        sets=dict(args.get("field_values") or {}),
        payment_approved=next((v for k, v in decided.items() if args.get(k)), None),
    )
    if draft.message is not None and draft.field is not None:
        raise UsageError("message and field exclude each other")
    plain = "message" if draft.message is not None else "field" if draft.field else None
    if plain and (draft.sets or draft.payment_approved is not None):
        raise UsageError(
            f"{plain} (a plain ask's answer) and field_values or a payment argument (a "
            "structured ask's) exclude each other"
        )
    if not plain and not draft.sets and draft.payment_approved is None:
        raise UsageError(
            "nothing to reply: give message, field (and value), field_values, "
            "approve_payment or decline_payment"
        )
    return draft


class Person:
    """The person behind this call, reached from the engine's worker thread."""

    def __init__(self, call: Call) -> None:
        self.call = call

    @property
    def reachable(self) -> bool:
        return self.call.human.reachable

    def secret(self, asked: Asked, key: str) -> str | None:
        return anyio.from_thread.run(self._ask, asked, key)

    async def _ask(self, asked: Asked, key: str) -> str | None:
        await self.call.progress(f"task {asked.task_id} waits for the person's {key}")
        return await self.call.human.secret(secret_prompt(asked, key), key, asked.task_id)

    def keep(self, value: str) -> None:
        self.call.vault.add(value)


# The engine's mismatches that name an answer's part, in this tool's argument names.
ARGUMENT_WORDS = {
    ("wrong_kind", "plain"): "this task waits on a plain ask: answer with message, or field "
    "with value (no field_values or payment arguments)",
    ("wrong_kind", "structured"): "this task carries a structured ask: answer with "
    "field_values (and approve_payment/decline_payment for a payment)",
    ("not_payment", "structured"): "this ask is not about a payment: drop "
    "approve_payment/decline_payment",
}


async def reply_to_task(call: Call, args: dict[str, Any]) -> Outcome:
    draft = drafted(args)
    task = detail(await poll(call, str(args["task_id"])))
    allowed = call.settings.mcp_allow_model_secrets

    def work(app: FaceContext) -> dict[str, Any]:
        return send_draft(app, task, draft, Person(call), agent_secrets=allowed).raw

    try:
        answered = await call.run(work)
    except ReplyMismatch as mismatch:
        worded = ARGUMENT_WORDS.get((mismatch.problem, mismatch.ask))
        if worded is not None:
            mismatch.reword(worded)
        raise
    return Outcome(
        {"task": answered},
        "Answer sent. " + describe(detail(answered), can_ask=call.human.reachable),
    )
