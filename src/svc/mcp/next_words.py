"""`svc mcp`'s words for an error's next step (svc.next_step): the tool call a model can make,
or, where no tool can take the step, what to ask the person. Never a CLI flag: the model has
no command line."""

from __future__ import annotations

from collections.abc import Mapping

from svc import next_step
from svc.errors import SvcError
from svc.next_step import Next, Renderer


def _rails(nxt: Next) -> str:
    return "submit_task with " + " or ".join(f'pay="{r}"' for r in nxt.fact("rails").split(","))


WORDS: Mapping[str, Renderer] = {
    "get_wallet": lambda nxt: (
        "the person's wallet (SVC_WALLET_KEY, or one they make or import)"
        + ("; the guide tool needs no wallet" if nxt.facts.get("guide") else "")
    ),
    "get_wallet_or_spt": lambda _: (
        "the person's wallet (SVC_WALLET_KEY) or MPP token (SVC_SPT, "
        "the spt_file or spt_command setting); the guide tool needs no wallet"
    ),
    # submit_task's max_price_usd can only lower the person's limit, never raise it.
    "raise_max_price": lambda _: (
        "the person's max_price_usd setting (submit_task's max_price_usd can only lower it)"
    ),
    "raise_max_price_terms": lambda _: (
        "the person's max_price_usd, allowed_networks or "
        "allowed_assets settings (submit_task's max_price_usd can only lower the limit)"
    ),
    "choose_rail": _rails,
    "allow_rail": lambda _: "the person's allowed_rails setting, or submit_task with another pay",
    "trust_recipient": lambda _: "the person's trust in the new recipient (no tool can give it)",
    "resume_submit": lambda nxt: (
        f'submit_task with request_id="{nxt.fact("request_id")}" and the same task and email'
    ),
    # One server serves one base URL: the person starts one for the other.
    "resume_on_base_url": lambda nxt: (
        f"a server on {nxt.fact('base_url')} (the person "
        "starts it), or submit_task with a new request_id"
    ),
    "resume_on_runner": lambda nxt: (
        f"resume it on runner {nxt.fact('runner')} with the same request_id, or see list_tasks"
    ),
    "see_tasks": lambda _: "see list_tasks",
    "allow_duplicate": lambda nxt: (
        (
            f"follow the earlier one with wait_for_task task_id={nxt.fact('task_id')}"
            if nxt.facts.get("task_id")
            else f"resume the earlier one with submit_task request_id={nxt.fact('request_id')}"
        )
        + "; to pay for it again on purpose, pass allow_duplicate=true"
    ),
    "card_not_waiting": lambda _: (
        'see list_tasks; a card payment starts with submit_task with pay="card"'
    ),
    "raise_daily_cap": lambda _: (
        "see the spend tool; the person raises it with the daily_cap_usd setting"
    ),
    "start_card": lambda _: 'submit_task with pay="card"',
    "see_budgets": lambda _: "tell the person; they see and change budgets with svc budget",
    "reset_breaker": lambda _: "tell the person; they reset it with svc budget reset-breaker",
}


def present(error: SvcError) -> None:
    next_step.present(error, WORDS)


def words(nxt: Next) -> str:
    """A next step said outside an error (a warning's), as the tool call a model makes."""
    return next_step.worded(nxt, WORDS)
