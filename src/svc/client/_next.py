"""The Python library's words for an error's next step (svc.next_step): the method and the
argument a program passes."""

from __future__ import annotations

from collections.abc import Mapping

from svc import next_step
from svc.errors import SvcError
from svc.next_step import Next, Renderer


def _rails(nxt: Next) -> str:
    return "submit(..., " + " or ".join(f'pay="{r}"' for r in nxt.fact("rails").split(",")) + ")"


WORDS: Mapping[str, Renderer] = {
    "get_wallet": lambda nxt: (
        "SVC_WALLET_KEY, or a wallet made or imported with the CLI"
        + ("; guide(goal) needs no wallet" if nxt.facts.get("guide") else "")
    ),
    "fund_wallet": lambda _: "fund the wallet (the address of its key)",
    "replace_wallet": lambda _: "a new key in SVC_WALLET_KEY, or a wallet imported with the CLI",
    "give_spt": lambda _: (
        "set SVC_SPT, or the spt_file or spt_command setting (a command that prints a fresh token)"
    ),
    "get_wallet_or_spt": lambda _: (
        "get a wallet (SVC_WALLET_KEY) or give an MPP token (SVC_SPT, "
        "the spt_file or spt_command setting); guide(goal) needs no wallet"
    ),
    "raise_max_price": lambda _: "Client(max_price=...) or submit(..., max_price=...)",
    "raise_max_price_terms": lambda _: (
        "Client(max_price=...) or submit(..., max_price=...), "
        "or the allowed_networks, allowed_assets settings"
    ),
    "choose_rail": _rails,
    "allow_rail": lambda _: (
        "the allowed_rails setting (x402,mpp,card) or submit(..., pay=...) with another rail"
    ),
    "trust_recipient": lambda _: "submit(..., trust_recipient=True)",
    "resume_submit": lambda nxt: (
        f"submit(task, email, request_id={nxt.fact('request_id')!r}) with the same task and email"
    ),
    "resume_on_base_url": lambda nxt: (
        f"Client(base_url={nxt.fact('base_url')!r}), or submit with a new request_id"
    ),
    "resume_on_runner": lambda nxt: (
        f"resume it on runner {nxt.fact('runner')} with the same request_id, or see tasks()"
    ),
    "see_tasks": lambda _: "see tasks()",
    "allow_duplicate": lambda nxt: (
        (
            f"follow the earlier one with watch({nxt.fact('task_id')!r})"
            if nxt.facts.get("task_id")
            else f"resume the earlier one with request_id={nxt.fact('request_id')!r}"
        )
        + ", or pass allow_duplicate=True to pay for it again on purpose"
    ),
    "card_not_waiting": lambda _: 'see tasks(); a card payment starts with submit(..., pay="card")',
    "raise_daily_cap": lambda _: (
        "see spend(); raise it with Client(daily_cap=...) or the daily_cap_usd setting"
    ),
    "start_card": lambda _: 'submit(..., pay="card")',
    "see_budgets": lambda _: "see budgets(); a person changes them with svc budget set",
    "reset_breaker": lambda _: "a person resets it with svc budget reset-breaker",
    "resume_card": lambda nxt: (
        f"pay_card({nxt.facts.get('request_id', '')!r})"
        if nxt.facts.get("request_id")
        else "pay_card()"
    ),
    "claim_with_code": lambda _: "identity.claim(code=...) with the code the page shows",
    "list_ledger": lambda _: "tasks() lists the task and request ids the ledger holds",
    "force_forget": lambda _: (
        "these rows are what spend() reads; forcing removes them all the same"
    ),
    "use_https": lambda _: (
        "Client(base_url='https://...'), and the allow_insecure_http setting off"
    ),
    "register_identity": lambda _: "identity.register()",
    "replace_identity": lambda _: (
        "identity.register(force=True) (a new credential), or identity.logout() to go back "
        "to pay-as-you-go"
    ),
    "set_daily_cap": lambda _: "Client(daily_cap=...) or the daily_cap_usd setting",
    "serve_sandbox": lambda _: "start the local sandbox at the base URL first",
    "unset_setting": lambda nxt: f"the {nxt.fact('key')} setting off",
}


def present(error: SvcError) -> None:
    next_step.present(error, WORDS)


def words(nxt: Next) -> str:
    """A next step outside an error (a doctor finding's fix), in the library's words."""
    return next_step.worded(nxt, WORDS)
