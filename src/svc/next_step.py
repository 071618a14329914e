"""The next step an error names, as data: each face words it.

An engine knows what the caller should do next (resume the request, raise the limit, choose
another rail) but not how the caller does it: the CLI with a flag, `svc mcp` with a tool
argument, a Python program with a method's argument. So an engine raises its error with a
`Next`: an action, the facts a face needs, and the prose around the step (`lead`, `tail`).
The error's own hint is the neutral wording (`neutral`), for any face that does not know the
action; the faces replace it with their own words (svc/next_words.py: the CLI's, svc mcp's
and the library's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

# The neutral words of each action: what a reader of any face understands, naming no flag,
# argument or command. Facts fill the braces.
NEUTRAL: Mapping[str, str] = MappingProxyType(
    {
        "raise_max_price": "a higher max price (or the max_price_usd setting)",
        # x402 terms: each refusal names only the setting that refused
        "allow_network": "the allowed_networks setting",
        "allow_asset": "the allowed_assets setting",
        "choose_rail": "another payment rail ({rails})",
        "allow_rail": "the allowed_rails setting (x402,mpp,card) or another payment rail",
        "trust_recipient": "trust in the new recipient",
        "resume_submit": "a resume of request {request_id} (the same request id and task)",
        "resume_on_base_url": "the base URL {base_url}, or submit with a new request id",
        "resume_on_runner": (
            "resume it on {runner} with the same request id, or see the ledger's tasks of "
            "runner {runner}"
        ),
        "see_tasks": "see the ledger's tasks",
        "resume_request": (
            "a resume of request {request_id} (the same request id, method, URL and body): "
            "its proof is re-sent, never another signed"
        ),
        "see_receipt": "the receipt of request {request_id}",
        "allow_duplicate": (
            "follow or resume the earlier request {request_id}, or allow a duplicate to pay "
            "for it again on purpose"
        ),
        "card_not_waiting": (
            "see the ledger's tasks; a card payment starts with a new submit paid by card"
        ),
        "raise_daily_cap": "see the spend; raise it with the daily_cap_usd setting",
        "start_card": "a new submit paid by card",
        "see_budgets": "see the budgets, what each has left and when it resets",
        "reset_breaker": "reset the breaker (the person's step)",
        "resume_card": "a resume of the saved card payment",
        # A wallet or a token is the person's to give; the facts' `guide` says the free guide
        # would do (the quote's refusals).
        "get_wallet": "a wallet key in SVC_WALLET_KEY, or a wallet the person makes or imports",
        "replace_wallet": "a new wallet key, imported or made by the person",
        "fund_wallet": "fund the wallet",
        "give_spt": (
            "set SVC_SPT, or the spt_file or spt_command setting (a command that prints a "
            "fresh token)"
        ),
        "get_wallet_or_spt": (
            "get a wallet (SVC_WALLET_KEY) or give an MPP token (SVC_SPT, the spt_file or "
            "spt_command setting); the guide needs no wallet"
        ),
        "claim_with_code": "claim the credential with the code the page shows",
        "list_ledger": "the ledger's full task list holds the task and request ids",
        "force_forget": ("these rows are what the spend reads; forcing removes them all the same"),
        # svc doctor's fixes
        "use_https": "use an https:// base URL and turn the allow_insecure_http setting off",
        "register_identity": "register an agent credential",
        "replace_identity": (
            "register a new agent credential in its place, or log out to go back to pay-as-you-go"
        ),
        "set_daily_cap": "set the daily_cap_usd setting (15 USD is the default)",
        "unset_setting": "turn the {key} setting off",
        "serve_sandbox": "start the local sandbox",
        # an agent's answer that holds a secret (engines/reply_draft)
        "leave_secret_to_person": "leave {names} for the person to give directly",
        "answer_in_terminal": "have the person answer task {task_id} in a terminal",
    }
)


@dataclass(frozen=True)
class Next:
    """One next step: `action` (a key of NEUTRAL), its `facts`, and the hint's prose around it."""

    action: str
    facts: Mapping[str, str] = field(default_factory=dict)
    lead: str = ""
    tail: str = ""

    def __post_init__(self) -> None:
        if self.action not in NEUTRAL:
            raise ValueError(f"unknown next step {self.action!r}")

    def fact(self, key: str) -> str:
        return self.facts[key]

    def words(self, step: str) -> str:
        """The whole hint with a face's wording of the step."""
        return f"{self.lead}{step}{self.tail}"

    @property
    def neutral(self) -> str:
        return self.words(NEUTRAL[self.action].format_map(self.facts))

    def as_json(self) -> dict[str, str]:
        return {"action": self.action, **self.facts}


def step(action: str, lead: str = "", tail: str = "", **facts: str) -> Next:
    """`Next` with the facts as keywords: `step("resume_submit", request_id=rid, ...)`."""
    return Next(action, dict(facts), lead, tail)


Renderer = Callable[[Next], str]


def worded(nxt: Next, renderers: Mapping[str, Renderer]) -> str:
    """A next step outside an error (a warning's, a finding's), in a face's words (the
    neutral ones for an action the face has no words for)."""
    renderer = renderers.get(nxt.action)
    return nxt.words(renderer(nxt)) if renderer else nxt.neutral


class Stepped(Protocol):
    """What `present` reads and writes of an error (svc.errors.SvcError is one): its step and
    its hint. A protocol, so the errors module imports this one and not the other way."""

    next: Next | None
    hint: str | None


def present(error: Stepped, renderers: Mapping[str, Renderer]) -> None:
    """A face's words for the error's next step, in place of the neutral hint (an action the
    face has no words for keeps the neutral one). Only a hint still neutral is replaced: one
    that was presented already, or rewritten (what was paid added to it), stays as it is."""
    nxt = error.next
    if nxt is not None and nxt.action in renderers and error.hint == nxt.neutral:
        error.hint = nxt.words(renderers[nxt.action](nxt))
