"""The app context a Python program gets: the CLI's settings and parts, and no terminal.

Settings resolve exactly as the CLI resolves them (svc.settings.resolve: the environment,
then the profile, then the defaults), with the Client's arguments in the place of flags and
checked by the same parsers. As under `svc mcp`, nothing is written to stdout or stderr:
svc's notes and warnings go to the `logging` logger "svc", scrubbed of every secret this
process was told (svc.redact), and nothing ever prompts (`no_input`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from svc import rail_table
from svc.client.types import PaymentOffer, rail_of
from svc.context import AppContext, FacePrompts
from svc.errors import UsageError
from svc.money import atomic_to_usd
from svc.next_words import library as _next
from svc.origin import origin_of
from svc.pay.policy import offer_in_question
from svc.report import LogReporter
from svc.settings import Settings, daily_cap, ledger_url, profile_name, resolve, usd_amount
from svc.store.config import ConfigFile

if TYPE_CHECKING:
    import httpx

LOGGER = logging.getLogger("svc")
RAILS = rail_table.NAMES

Approver = Callable[[PaymentOffer], bool]


@dataclass(frozen=True)
class Arguments:
    """The Client's arguments that stand where the CLI's flags stand (None: not given)."""

    profile: str | None = None
    base_url: str | None = None
    auth_base: str | None = None
    ledger_url: str | None = None
    max_price: object = None
    daily_cap: object = None
    pay: str | None = None
    email: str | None = None
    timeout: object = None  # seconds for a whole call, or an httpx.Timeout; None: no bound
    max_retries: object = None


def resolve_settings(args: Arguments, config: ConfigFile) -> Settings:
    """flag (argument) > environment > profile > default, as `svc` resolves them."""
    profile = profile_name(args.profile)
    settings = resolve(
        base_url=args.base_url,
        auth_base=args.auth_base,
        profile=profile,
        json_output=True,
        no_input=True,  # a library never prompts
        profile_values=config.profile(profile),
        stdin_is_tty=False,
    )
    _apply(settings, args)
    return settings


def _apply(settings: Settings, args: Arguments) -> None:
    """The arguments that `resolve` takes no flag for, read by the parsers the settings use."""
    given = settings.sources
    if args.max_price is not None:
        settings.max_price_usd = amount_argument("max_price", args.max_price)
        given["max_price_usd"] = "argument"
    if args.daily_cap is not None:
        _amount_type("daily_cap", args.daily_cap)
        settings.daily_cap_usd = daily_cap("daily_cap", args.daily_cap)
        given["daily_cap_usd"] = "argument"
    if args.ledger_url is not None:
        settings.ledger_url = ledger_url("ledger_url", args.ledger_url, in_file=False)
        given["ledger_url"] = "argument"
    if args.pay is not None:
        settings.pay = check_rail(args.pay)
        given["pay"] = "argument"
    if args.email is not None:
        settings.email = args.email
        given["email"] = "argument"
    settings.timeout = timeout_argument(args.timeout)
    settings.max_retries = retries_argument(args.max_retries)


MOST_RETRIES = 10


def count_argument(label: str, value: object, *, most: int | None = None) -> int:
    """A count a program passes: an int (TypeError else), 1 or more (and at most `most`)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{label} must be an int, not {type(value).__name__}")
    if value < 1 or (most is not None and value > most):
        bound = f" to {most}" if most is not None else " or more"
        raise UsageError(f"{label} must be 1{bound}, got {value}")
    return value


def id_argument(label: str, value: object) -> str:
    """A task or request id a program passes: a str (TypeError else), not empty (UsageError),
    refused at the call, before anything is sent."""
    if not isinstance(value, str):
        raise TypeError(f"{label} must be a str, not {type(value).__name__}")
    if not value.strip():
        raise UsageError(f"{label} is empty", hint="pass the id a submit or tasks() returned")
    return value


def timeout_argument(value: object) -> float | httpx.Timeout | None:
    """A call's bound: seconds (a finite number above 0), an httpx.Timeout, or None."""
    import httpx

    if value is None or isinstance(value, httpx.Timeout):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"timeout must be seconds or an httpx.Timeout, not {type(value).__name__}")
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"timeout must be a number of seconds above 0, got {value!r}")
    return float(value)


def retries_argument(value: object) -> int | None:
    """How many times a failed request is tried again: 0 to MOST_RETRIES, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"max_retries must be an int, not {type(value).__name__}")
    if not 0 <= value <= MOST_RETRIES:
        raise UsageError(f"max_retries must be 0 to {MOST_RETRIES}, got {value}")
    return value


def amount_argument(label: str, value: object) -> Decimal:
    """A USD amount a program passes: a Decimal or a str, never a float (its binary value is
    not the amount the person wrote), an int or a bool, refused before anything is sent."""
    _amount_type(label, value)
    return usd_amount(label, value)


def _amount_type(label: str, value: object) -> None:
    if not isinstance(value, str | Decimal):
        raise TypeError(
            f"{label} must be a Decimal or a str like '1.50', not {type(value).__name__}"
        )


def check_rail(rail: str) -> str:
    if rail not in RAILS:
        raise UsageError(f"pay must be {rail_table.in_words()}, got {rail!r}")
    return rail


LibraryContext = AppContext[LogReporter]


def library_context(
    settings: Settings, config: ConfigFile, *, approve: Approver | None, trust_recipient: bool
) -> LibraryContext:
    """The context of a Python program: its notes and warnings go to the logger "svc"
    (scrubbed), and a payment or a changed recipient is the caller's `approve(offer)`, a
    program's decision that `no_input` does not silence (without one: the limits alone, and
    a changed recipient is refused unless trusted)."""
    prompts = FacePrompts(
        confirm_recipient=_recipient_approver(settings, approve) if approve else None,
        next_words=_next.words,
        by_program=True,
    )
    app = AppContext(
        settings, LogReporter(LOGGER), config, prompts=prompts, trust_recipient=trust_recipient
    )
    app.payment_approver = _payment_approver(settings, approve) if approve else None
    return app


def _offer(
    settings: Settings, rail: str, amount_atomic: int, pay_to: str, **extra: Any
) -> PaymentOffer:
    asked = offer_in_question()
    return PaymentOffer(
        amount_usd=atomic_to_usd(amount_atomic),
        rail=rail_of(rail),
        network=asked.network if asked else None,
        asset=asked.asset if asked else None,
        pay_to=pay_to,
        origin=origin_of(settings.base_url),
        **extra,
    )


def _payment_approver(settings: Settings, approve: Approver) -> Callable[[str, int, str], bool]:
    def ask(rail: str, amount_atomic: int, pay_to: str) -> bool:
        return approve(_offer(settings, rail, amount_atomic, pay_to)) is True

    return ask


def _recipient_approver(settings: Settings, approve: Approver) -> Callable[[str, str], bool]:
    def ask(old: str, new: str) -> bool:
        asked = offer_in_question()
        if asked is None:
            return False
        offer = _offer(settings, asked.rail, asked.amount_atomic, new, previous_pay_to=old)
        return approve(offer) is True

    return ask
