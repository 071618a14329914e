"""Resolve the effective settings: flag > environment > profile in the config file > default."""

from __future__ import annotations

import math
import os
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from svc import origin
from svc.errors import UsageError
from svc.money import AmountError, parse_usd

DEFAULT_BASE_URL = "http://127.0.0.1:8402"  # the local sandbox: never a paid service by accident
BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
DEFAULT_NETWORKS = ("eip155:8453",)
DEFAULT_ASSETS = (BASE_USDC,)
DEFAULT_MAX_PRICE = Decimal("1.50")
# A fresh home pays at most this much a day (ten tasks at 1.50 USD): a runaway loop or batch
# stops there. `none` removes the cap, on purpose only.
DEFAULT_DAILY_CAP = Decimal("15.00")
NO_CAP = "none"
DEFAULT_PROFILE = "default"
REAL_HOST_MIN_INTERVAL = 15.0  # the spec's poll interval: 15-60 s while a task is live
LOOPBACK_INTERVAL = 1.0
# An x402 authorization can be settled by whoever holds it until its validBefore: the server
# proposes the window (maxTimeoutSeconds), we never sign for longer than this.
DEFAULT_MAX_VALIDITY = 300
MIN_VALIDITY = 10
# The same task for the same person again within this many seconds is likely an accident.
DEFAULT_DUPLICATE_WINDOW = 600.0
SIGNER_STORE = "store"  # the default signer: the profile's key in the secret store
DEFAULT_SIGNER_TIMEOUT = 60.0  # a person may approve on a device: a minute, then refused


@dataclass
class Settings:
    base_url: str = DEFAULT_BASE_URL
    auth_base: str = DEFAULT_BASE_URL + "/auth"
    profile: str = DEFAULT_PROFILE
    json_output: bool = False
    no_input: bool = False
    verbose: bool = False
    email: str | None = None
    pay: str = "x402"
    max_price_usd: Decimal = DEFAULT_MAX_PRICE
    allowed_networks: tuple[str, ...] = DEFAULT_NETWORKS
    allowed_assets: tuple[str, ...] = DEFAULT_ASSETS
    poll_interval: float | None = None
    notify: bool = False  # watch: bell/OSC and a desktop notification at asks and ends
    # Payments beyond x402 (issue 4): rails, daily cap, MPP method preference, SPT source.
    allowed_rails: tuple[str, ...] = ("x402", "mpp", "card")
    daily_cap_usd: Decimal | None = DEFAULT_DAILY_CAP  # None: `none`, no cap on purpose
    mpp_methods: tuple[str, ...] = ("stripe",)
    spt_file: str | None = None
    spt_command: str | None = None
    max_validity_seconds: int = DEFAULT_MAX_VALIDITY
    duplicate_window_seconds: float = DEFAULT_DUPLICATE_WINDOW
    # `svc mcp`: paid calls up to this much are paid without asking the human (None: always
    # ask), and whether a secret typed by the model may be sent as a sensitive reply.
    mcp_preapproved_usd: Decimal | None = None
    mcp_allow_model_secrets: bool = False
    # Fleet mode (issue 24): the shared ledger on PostgreSQL (None: the local SQLite file)
    # and this runner's name in it (None: the host name).
    ledger_url: str | None = None
    runner: str | None = None
    # Plain http:// to another machine for the base URL and auth base (issue 29.4): refused
    # unless set, and then every paying or credentialed request warns.
    allow_insecure_http: bool = False
    # The wallet's signer, per profile (issue 33.2): see the signer block below.
    signer: str = SIGNER_STORE
    signer_address: str | None = None
    signer_timeout: float = DEFAULT_SIGNER_TIMEOUT
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def is_loopback(self) -> bool:
        return is_loopback_url(self.base_url)

    def labelled(self, name: str) -> str:
        """`max_price_usd (env SVC_MAX_PRICE)`: a setting and where its value came from."""
        source = self.sources.get(name)
        return f"{name} ({source})" if source else name

    def min_poll_interval(self) -> float:
        return LOOPBACK_INTERVAL / 10 if self.is_loopback else REAL_HOST_MIN_INTERVAL

    def default_poll_interval(self) -> float:
        if self.poll_interval is not None:
            return self.poll_interval
        return LOOPBACK_INTERVAL if self.is_loopback else REAL_HOST_MIN_INTERVAL


def is_loopback_url(url: str) -> bool:
    return origin.is_loopback_url(url)


def _check_url(name: str, value: str, label: str, cleartext_ok: bool) -> str:
    url = origin.setting(value, f"the {name}")
    refuse_cleartext(label, url, cleartext_ok)
    return url


def refuse_cleartext(label: str, url: str, cleartext_ok: bool) -> None:
    """A base URL or auth base on plain http:// to another machine is a usage error (nothing
    is sent): anyone on the path could rewrite the 402's payTo, which the pin then trusts, or
    read the bearer. The local sandbox (loopback) is exempt; `allow_insecure_http` allows it."""
    if cleartext_ok or not origin.is_cleartext(url):
        return
    raise UsageError(
        f"{label} is plain http:// to {origin.configured(url, label).netloc}: payments and "
        "credentials would cross the network in cleartext; use https://",
        code="cleartext_url",
        hint="only for a server you trust on a network you trust: allow_insecure_http = true "
        "(SVC_ALLOW_INSECURE_HTTP=1); the local sandbox (127.0.0.1, ::1, localhost) needs "
        "neither",
    )


def usd_amount(label: str, raw: object) -> Decimal:
    """A plain, non-negative USD amount (a price cap or a budget), or one clear usage error.

    Every source of a cap (flag, environment, config file, `svc config set`, an MCP tool's
    argument) goes through here, and so through the one amount parser: a NaN or negative cap
    would otherwise reach the payment policy and fail there, and `1_0` or fullwidth digits
    would be read as a cap the person never typed. Only the ASCII whitespace a shell or an
    editor leaves around a value is forgiven.
    """
    value = raw.strip(" \t\r\n") if isinstance(raw, str) else raw
    if isinstance(value, Decimal) and value.is_finite() and not value.is_signed():
        return value  # already a number (a setting read before)
    try:
        return parse_usd(value, label)
    except AmountError:
        text = str(value).strip().lower().lstrip("+")
        number_like = text.startswith("-") or text in _NOT_FINITE
        kind = "a non-negative USD amount" if number_like else "a USD amount like 1.50"
        raise UsageError(f"{label} must be {kind}, got {raw!r}", hint=_PLAIN_HINT) from None


_NOT_FINITE = frozenset({"nan", "snan", "inf", "infinity"})
_PLAIN_HINT = "an amount is ASCII digits with at most one dot, such as 1.50 or 20"


def daily_cap(label: str, raw: object) -> Decimal | None:
    """The daily cap: a USD amount, or `none` (no cap, said on purpose; None)."""
    if str(raw).strip().lower() == NO_CAP:
        return None
    try:
        return usd_amount(label, raw)
    except UsageError as error:
        raise UsageError(error.message, hint="or none: no daily cap, on purpose") from None


def positive_seconds(label: str, raw: object) -> float:
    """A finite, positive number of seconds (a poll interval), or one clear usage error."""
    try:
        value = float(str(raw).strip())
    except ValueError:
        raise UsageError(f"{label} must be a number of seconds, got {raw!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise UsageError(f"{label} must be positive seconds, got {raw!r}")
    return value


def profile_name(flag: str | None = None) -> str:
    """The profile in effect: --profile, else SVC_PROFILE, else the default one."""
    return flag or os.environ.get("SVC_PROFILE") or DEFAULT_PROFILE


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


def resolve(
    *,
    base_url: str | None = None,
    auth_base: str | None = None,
    profile: str | None = None,
    json_output: bool = False,
    no_input: bool = False,
    verbose: bool = False,
    profile_values: dict[str, Any] | None = None,
    stdin_is_tty: bool | None = None,
    repairing: bool = False,
) -> Settings:
    """Build Settings from flags, the environment and a profile's values (already loaded).

    `repairing`: the command helps fix the settings (`svc config`, `svc doctor`, `svc help`),
    so a cleartext URL is kept for it to show, not refused; every request still passes the
    transport's cleartext guard, so nothing is paid or credentialed over it."""
    s = Settings()
    s.profile = profile_name(profile)
    pick = _Picker(s, profile_values or {})
    _url_settings(s, pick, base_url, auth_base, repairing)
    s.email = pick("email", None, "SVC_EMAIL")
    _price_settings(s, pick)
    _payment_settings(s, pick)
    _mcp_settings(s, pick)
    _fleet_settings(s, pick)
    _watch_settings(s, pick)
    _signer_settings(s, pick)
    s.json_output = json_output
    s.verbose = verbose
    tty = sys.stdin.isatty() if stdin_is_tty is None else stdin_is_tty
    env = os.environ
    s.no_input = no_input or _truthy(env.get("SVC_NO_INPUT")) or bool(env.get("CI")) or not tty
    return s


def _url_settings(
    s: Settings, pick: _Picker, base_url: str | None, auth: str | None, repairing: bool
) -> None:
    allow = pick("allow_insecure_http", None, "SVC_ALLOW_INSECURE_HTTP")
    if allow is not None:
        s.allow_insecure_http = _strict_bool(s.labelled("allow_insecure_http"), allow)
    cleartext_ok = s.allow_insecure_http or repairing
    base = pick("base_url", base_url, "SVC_BASE_URL")
    # The default (the sandbox on loopback) is recorded as such, and is never cleartext.
    s.base_url = _check_url(
        "base URL", base or DEFAULT_BASE_URL, s.labelled("base_url"), cleartext_ok
    )
    auth = pick("auth_base", auth, "SVC_AUTH_BASE")
    if auth:
        s.auth_base = _check_url("auth base", auth, s.labelled("auth_base"), cleartext_ok)
    else:
        s.auth_base = s.base_url + "/auth"


class _Picker:
    """One setting's value by precedence (flag, environment, profile, default), recording
    where it came from for `svc config list` and for error messages."""

    def __init__(self, settings: Settings, profile_values: dict[str, Any]) -> None:
        self.settings = settings
        self.profile_values = profile_values

    def __call__(self, name: str, flag: Any, env_name: str | None) -> Any:
        sources = self.settings.sources
        if flag is not None:
            sources[name] = "flag"
            return flag
        if env_name and os.environ.get(env_name):
            sources[name] = f"env {env_name}"
            return os.environ[env_name]
        if name in self.profile_values:
            sources[name] = f"profile {self.settings.profile}"
            return self.profile_values[name]
        sources[name] = "default"
        return None


def _price_settings(s: Settings, pick: _Picker) -> None:
    s.pay = pick("pay", None, "SVC_PAY") or "x402"
    if s.pay not in ("x402", "mpp", "card"):
        raise UsageError(f"payment method must be x402, mpp or card, got {s.pay!r}")
    price = pick("max_price_usd", None, "SVC_MAX_PRICE")
    if price is not None:
        s.max_price_usd = usd_amount(s.labelled("max_price_usd"), price)
    nets = pick("allowed_networks", None, None)
    if nets:
        s.allowed_networks = tuple(nets)
    assets = pick("allowed_assets", None, None)
    if assets:
        s.allowed_assets = tuple(assets)


def _watch_settings(s: Settings, pick: _Picker) -> None:
    interval = pick("poll_interval", None, "SVC_POLL_INTERVAL")
    if interval is not None:
        s.poll_interval = positive_seconds(s.labelled("poll_interval"), interval)
    notify = pick("notify", None, "SVC_NOTIFY")
    if notify is not None:
        s.notify = _strict_bool(s.labelled("notify"), notify)


def _payment_settings(s: Settings, pick: _Picker) -> None:
    rails = pick("allowed_rails", None, None)
    if rails:
        unknown = [r for r in rails if r not in ("x402", "mpp", "card")]
        if unknown:
            raise UsageError(f"allowed_rails: unknown rail {unknown[0]!r} (x402, mpp, card)")
        s.allowed_rails = tuple(rails)
    cap = pick("daily_cap_usd", None, "SVC_DAILY_CAP")
    if cap is not None:
        s.daily_cap_usd = daily_cap(s.labelled("daily_cap_usd"), cap)
    methods = pick("mpp_methods", None, None)
    if methods:
        s.mpp_methods = tuple(methods)
    s.spt_file = pick("spt_file", None, "SVC_SPT_FILE")
    s.spt_command = pick("spt_command", None, None)
    validity = pick("max_validity_seconds", None, "SVC_MAX_VALIDITY")
    if validity is not None:
        s.max_validity_seconds = validity_seconds(s.labelled("max_validity_seconds"), validity)
    window = pick("duplicate_window_seconds", None, "SVC_DUPLICATE_WINDOW")
    if window is not None:
        s.duplicate_window_seconds = _non_negative_seconds(
            s.labelled("duplicate_window_seconds"), window
        )


def validity_seconds(label: str, raw: object) -> int:
    """An x402 validity bound: whole seconds, at least MIN_VALIDITY (verifiers want a margin
    before validBefore: a shorter window could never settle)."""
    value = positive_seconds(label, raw)
    if value < MIN_VALIDITY:
        raise UsageError(f"{label} must be at least {MIN_VALIDITY} seconds, got {raw!r}")
    return int(value)


LEDGER_SCHEMES = ("postgresql://", "postgres://")


# libpq takes a password from the URL's userinfo or from these query parameters.
LEDGER_SECRET_PARAMS = ("password", "sslpassword")


def ledger_url_secrets(url: str) -> list[str]:
    """Every secret a ledger URL carries, as written and decoded (to keep out of any text)."""
    from urllib.parse import parse_qsl, unquote, urlsplit

    parts = urlsplit(url)
    found = [parts.password] if parts.password else []
    found += [
        value
        for name, value in parse_qsl(parts.query, keep_blank_values=False)
        if name in LEDGER_SECRET_PARAMS
    ]
    return sorted({*found, *map(unquote, found)} - {""}, key=len, reverse=True)


def ledger_url(label: str, raw: object, *, in_file: bool) -> str:
    """The fleet ledger's URL: postgresql:// only, and no password in a file (the config file
    is not the secret store: PGPASSWORD, ~/.pgpass or SVC_LEDGER_URL in the environment are)."""
    url = str(raw)
    if not url.startswith(LEDGER_SCHEMES):
        raise UsageError(
            f"{label} must be a postgresql:// URL, got {url.split('://', maxsplit=1)[0][:20]!r}://...",
            hint="leave it unset for the local ledger; fleet mode: "
            'ledger_url = "postgresql://user@host/db"',
        )
    try:
        secrets = ledger_url_secrets(url)
    except ValueError:
        raise UsageError(f"{label} is not a URL svc can read") from None
    if in_file and secrets:
        raise UsageError(
            f"{label} carries a password, and the config file is no place for one",
            code="secret_in_config",
            hint="drop it from the URL and give it as PGPASSWORD or in ~/.pgpass, or put the "
            "whole URL in SVC_LEDGER_URL (a CI secret)",
        )
    return url


def _fleet_settings(s: Settings, pick: _Picker) -> None:
    url = pick("ledger_url", None, "SVC_LEDGER_URL")
    if url:
        in_file = s.sources.get("ledger_url", "").startswith("profile")
        s.ledger_url = ledger_url(s.labelled("ledger_url"), url, in_file=in_file)
    runner = pick("runner", None, "SVC_RUNNER")
    if runner:
        name = str(runner).strip()
        if not name or len(name) > 64 or not name.isprintable():
            raise UsageError(
                f"{s.labelled('runner')} must be a printable name of 1 to 64 characters"
            )
        s.runner = name


def _mcp_settings(s: Settings, pick: _Picker) -> None:
    preapproved = pick("mcp_preapproved_usd", None, "SVC_MCP_PREAPPROVED_USD")
    if preapproved is not None:
        s.mcp_preapproved_usd = usd_amount(s.labelled("mcp_preapproved_usd"), preapproved)
    allow = pick("mcp_allow_model_secrets", None, "SVC_MCP_ALLOW_MODEL_SECRETS")
    if allow is not None:
        s.mcp_allow_model_secrets = _strict_bool(s.labelled("mcp_allow_model_secrets"), allow)


def _strict_bool(label: str, raw: object) -> bool:
    """true/false and their usual spellings; anything else is an error, not a guess (this one
    widens what may reach a secret)."""
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise UsageError(f"{label} must be true or false, got {raw!r}")


def _non_negative_seconds(label: str, raw: object) -> float:
    """Seconds, where 0 turns the check off."""
    if str(raw).strip() in ("0", "0.0"):
        return 0.0
    return positive_seconds(label, raw)


# --- the wallet's signer (issue 33.2) ----------------------------------------------------------
# `signer`: `store` (the profile's key in the secret store; SVC_WALLET_KEY first, as always),
# `env` (SVC_WALLET_KEY only), `command:PATH [ARGS]` (a program run without a shell) or
# `jsonrpc:URL` (eth_signTypedData_v4 over https, or http to loopback). svc holds no key for
# the last two: `signer_address` names the address they sign for. Config file only, per profile.

SIGNER_KINDS = ("store", "env", "command:", "jsonrpc:")


def signer_setting(label: str, raw: object) -> str:
    """A signer as written, checked: a command that splits into a program, a URL the origin
    gate passes (https, or http only to loopback: a bearer token may go with it)."""
    import shlex

    value = str(raw).strip()
    if value in ("store", "env"):
        return value
    kind, _, rest = value.partition(":")
    if kind == "command":
        try:
            argv = shlex.split(rest)
        except ValueError as exc:
            raise UsageError(f"{label}: the command cannot be split: {exc}") from None
        if not argv:
            raise UsageError(f"{label}: command: names no program")
        return value
    if kind == "jsonrpc":
        url = origin.setting(rest, label)
        refuse_cleartext(label, url, False)
        return f"jsonrpc:{url}"
    raise UsageError(
        f"{label} must be store, env, command:PATH [ARGS] or jsonrpc:URL, got {value[:40]!r}"
    )


def signer_address(label: str, raw: object) -> str:
    """A 0x-prefixed 20-byte hex address (compared without regard to case)."""
    import re

    value = str(raw).strip()
    if not re.fullmatch(r"0x[0-9a-fA-F]{40}", value, re.ASCII):
        raise UsageError(f"{label} must be a 0x-prefixed 20-byte hex address, got {value[:50]!r}")
    return value


def _signer_settings(s: Settings, pick: _Picker) -> None:
    signer = pick("signer", None, None)
    if signer is not None:
        s.signer = signer_setting(s.labelled("signer"), signer)
    address = pick("signer_address", None, None)
    if address is not None:
        s.signer_address = signer_address(s.labelled("signer_address"), address)
    timeout = pick("signer_timeout", None, None)
    if timeout is not None:
        s.signer_timeout = positive_seconds(s.labelled("signer_timeout"), timeout)
