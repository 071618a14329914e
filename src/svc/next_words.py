"""Each face's words for an error's next step (svc.next_step), in one place: the CLI's exact
flags and commands a person types, `svc mcp`'s tool calls (never a CLI flag: the model has no
command line; where no tool can take the step, what to ask the person), and the library's
methods and arguments. An action a face has no words for keeps the neutral ones, so a gap is
visible in tests/unit/test_next_step.py's table of actions and faces.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from svc import next_step
from svc.errors import SvcError
from svc.next_step import Next, Renderer

# --- the CLI -------------------------------------------------------------------------------------

RESUME_TASK_CHARS = 200  # longer task texts are named by file in a resume command


def resume_command(request_id: str, email: str, task: str) -> str:
    """The exact command that resumes a request without paying again."""
    shown = shlex.quote(task) if len(task) <= RESUME_TASK_CHARS else "--file <the same task file>"
    return f"svc submit --request-id {request_id} --email {shlex.quote(email)} {shown}"


def reply_command(task_id: str, field: str) -> str:
    """What the person runs in a terminal to give a secret without the agent seeing it."""
    return (
        f"svc reply {shlex.quote(task_id)} --field {shlex.quote(field)} --sensitive --value-file -"
    )


def _reply_in_terminal(nxt: Next) -> str:
    field = nxt.facts.get("field")
    if field:
        return reply_command(nxt.fact("task_id"), field)
    return f"svc reply {shlex.quote(nxt.fact('task_id'))}"


def _resume(nxt: Next) -> str:
    return resume_command(nxt.fact("request_id"), nxt.fact("email"), nxt.fact("task"))


def _cli_rails(nxt: Next) -> str:
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


CLI_WORDS: Mapping[str, Renderer] = {
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
    "allow_network": lambda _: "`svc config set allowed_networks`",
    "allow_asset": lambda _: "`svc config set allowed_assets`",
    "choose_rail": _cli_rails,
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
    "resume_request": lambda nxt: (
        f"svc request --request-id {nxt.fact('request_id')} with the same method, URL and body"
    ),
    "see_receipt": lambda nxt: f"svc receipt {nxt.fact('request_id')}",
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
    "leave_secret_to_person": lambda nxt: f"leave {nxt.fact('names')} for the person to type",
    "answer_in_terminal": _reply_in_terminal,
}


# --- svc mcp -------------------------------------------------------------------------------------


ALLOW_MODEL_SECRETS = "; a profile may allow it with `svc config set mcp_allow_model_secrets true`"


def _mcp_leave_secret(nxt: Next) -> str:
    names = nxt.fact("names")
    words = (
        f"leave {names} out of field_values: the person is asked directly"
        if nxt.facts.get("ask") == "whole"
        else f"call reply_to_task with field={names} and no value: the person is asked directly"
    )
    return words + (ALLOW_MODEL_SECRETS if nxt.facts.get("allow") else "")


def _mcp_in_terminal(nxt: Next) -> str:
    """The person types it, not the model: the one way in for a secret this client cannot
    ask for, so these words name the person's command."""
    command = _reply_in_terminal(nxt)
    what = nxt.facts.get("what")
    words = (
        f"have the person answer {what} in a terminal: {command}"
        if what
        else f"have the person run, in a terminal: {command}"
    )
    return words + (ALLOW_MODEL_SECRETS if nxt.facts.get("allow") else "")


def _mcp_rails(nxt: Next) -> str:
    return "submit_task with " + " or ".join(f'pay="{r}"' for r in nxt.fact("rails").split(","))


MCP_WORDS: Mapping[str, Renderer] = {
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
    "allow_network": lambda _: "the person's allowed_networks setting",
    "allow_asset": lambda _: "the person's allowed_assets setting",
    "choose_rail": _mcp_rails,
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
    "resume_request": lambda nxt: (
        f'paid_request with request_id="{nxt.fact("request_id")}" and the same method, URL and body'
    ),
    "see_receipt": lambda nxt: f'get_receipt with task_or_request_id="{nxt.fact("request_id")}"',
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
    "leave_secret_to_person": _mcp_leave_secret,
    "answer_in_terminal": _mcp_in_terminal,
}


# --- the library ---------------------------------------------------------------------------------


def _library_rails(nxt: Next) -> str:
    return "submit(..., " + " or ".join(f'pay="{r}"' for r in nxt.fact("rails").split(",")) + ")"


LIBRARY_WORDS: Mapping[str, Renderer] = {
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
    "allow_network": lambda _: "the allowed_networks setting",
    "allow_asset": lambda _: "the allowed_assets setting",
    "choose_rail": _library_rails,
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
    "resume_request": lambda nxt: (
        f"request(method, url, request_id={nxt.fact('request_id')!r}) with the same method, "
        "URL and body"
    ),
    "see_receipt": lambda nxt: f"receipt({nxt.fact('request_id')!r})",
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
    "leave_secret_to_person": lambda nxt: (
        f"leave {nxt.fact('names')} out: reply(task_id, Secret(...)) with the person's own input"
    ),
    "answer_in_terminal": lambda nxt: (
        f"the person answers task {nxt.fact('task_id')} in their own program or terminal"
    ),
}


# --- the faces -----------------------------------------------------------------------------------


class FaceWords:
    """One face's words: `present` puts them in an error's hint (in place), `words` says a
    step outside an error (a warning's, a doctor finding's fix)."""

    def __init__(self, table: Mapping[str, Renderer]) -> None:
        self.table = table

    def present(self, error: SvcError) -> None:
        next_step.present(error, self.table)

    def words(self, nxt: Next) -> str:
        return next_step.worded(nxt, self.table)


cli: FaceWords = FaceWords(CLI_WORDS)
mcp: FaceWords = FaceWords(MCP_WORDS)
library: FaceWords = FaceWords(LIBRARY_WORDS)
