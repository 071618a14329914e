"""The CLI's words for an error's next step (svc.next_step): the flags and commands a person
types. These are the texts the engines used to hold; the e2e tests pin them byte for byte."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from svc import next_step
from svc.errors import SvcError
from svc.next_step import Next, Renderer

RESUME_TASK_CHARS = 200  # longer task texts are named by file in a resume command


def resume_command(request_id: str, email: str, task: str) -> str:
    """The exact command that resumes a request without paying again."""
    shown = shlex.quote(task) if len(task) <= RESUME_TASK_CHARS else "--file <the same task file>"
    return f"svc submit --request-id {request_id} --email {shlex.quote(email)} {shown}"


def _resume(nxt: Next) -> str:
    return resume_command(nxt.fact("request_id"), nxt.fact("email"), nxt.fact("task"))


def _rails(nxt: Next) -> str:
    return " or ".join(f"--pay {rail}" for rail in nxt.fact("rails").split(","))


def _allow_duplicate(nxt: Next) -> str:
    task_id = nxt.facts.get("task_id")
    earlier = (
        f"follow the earlier one: svc watch {task_id}"
        if task_id
        else f"resume the earlier one: svc submit --request-id {nxt.fact('request_id')}"
    )
    return f"{earlier}; or pass --allow-duplicate to pay for it again on purpose"


GET_A_WALLET = "`svc wallet create`, `svc wallet import`, or SVC_WALLET_KEY"
NO_WALLET_GUIDE = "`svc guide GOAL` needs no wallet"


def _get_wallet(nxt: Next) -> str:
    profile = nxt.facts.get("profile")  # a profile's own wallet
    words = (
        f"`svc wallet create --profile {profile}`, `svc wallet import --profile {profile}`, "
        "or SVC_WALLET_KEY"
        if profile
        else GET_A_WALLET
    )
    return words + (f"; {NO_WALLET_GUIDE}" if nxt.facts.get("guide") else "")


WORDS: Mapping[str, Renderer] = {
    "get_wallet": _get_wallet,
    "fund_wallet": lambda _: "fund the wallet (svc wallet address shows it)",
    "replace_wallet": lambda _: "svc wallet import (or svc wallet create)",
    "give_spt": lambda _: (
        "set SVC_SPT, or `svc config set spt_file PATH`, or "
        "`svc config set spt_command 'CMD'` (a command that prints a fresh token)"
    ),
    "get_wallet_or_spt": lambda _: (
        f"get a wallet with {GET_A_WALLET}, or give an MPP token "
        f"(SVC_SPT, `svc config set spt_file PATH` or `spt_command CMD`); {NO_WALLET_GUIDE}"
    ),
    "raise_max_price": lambda _: "--max-price or `svc config set max_price_usd`",
    "raise_max_price_terms": lambda _: (
        "--max-price or `svc config set max_price_usd`, allowed_networks, allowed_assets"
    ),
    "choose_rail": _rails,
    "allow_rail": lambda _: (
        "`svc config set allowed_rails x402,mpp,card` or pay with another --pay"
    ),
    "trust_recipient": lambda _: "--trust-recipient",
    "resume_submit": _resume,
    "resume_on_base_url": lambda nxt: (
        f"--base-url {nxt.fact('base_url')}, or submit with a new --request-id"
    ),
    "resume_on_runner": lambda nxt: (
        f"resume it on {nxt.fact('runner')} with the same "
        f"--request-id, or see `svc tasks --runner {nxt.fact('runner')}`"
    ),
    "see_tasks": lambda _: "see `svc tasks`",
    "allow_duplicate": _allow_duplicate,
    "card_not_waiting": lambda _: (
        "see `svc tasks`; a card payment starts with `svc submit --pay card`"
    ),
    "raise_daily_cap": lambda _: "see `svc spend`; raise it with `svc config set daily_cap_usd`",
    "start_card": lambda _: "svc submit --pay card",
    "see_budgets": lambda _: "see `svc budget`; change one with `svc budget set`",
    "reset_breaker": lambda _: "run `svc budget reset-breaker`",
    "resume_card": lambda nxt: " ".join(
        filter(None, ("svc pay card", nxt.facts.get("request_id")))
    ),
    "claim_with_code": lambda _: "run: svc identity claim --code CODE",
    "list_ledger": lambda _: "`svc tasks --all` lists the task and request ids it holds",
    "force_forget": lambda _: (
        "these rows are what `svc spend` reads; add --force to remove them all the same"
    ),
    "use_https": lambda _: "use an https:// base URL and svc config unset allow_insecure_http",
    "register_identity": lambda _: "svc identity register",
    "replace_identity": lambda _: (
        "svc identity register --force (a new credential), or svc identity logout to go back "
        "to pay-as-you-go"
    ),
    "set_daily_cap": lambda nxt: (
        "svc config set daily_cap_usd 15" + (" --fleet" if nxt.facts.get("fleet") else "")
    ),
    "unset_setting": lambda nxt: f"svc config unset {nxt.fact('key')}",
    "serve_sandbox": lambda _: "svc sandbox serve &",
}


def present(error: SvcError) -> None:
    """The error's hint in the CLI's words (in place: the line and the JSON object say it)."""
    next_step.present(error, WORDS)


def words(nxt: Next) -> str:
    """A next step outside an error (a warning's), in the CLI's words."""
    return next_step.worded(nxt, WORDS)
