"""Resolve the effective settings: flag > environment > profile in the config file > default.

What each setting is (key, environment variable, kind, default, help) is written once, in
svc.settings_table; here are the parsers of its kinds (PARSERS: one per kind, every amount
through svc.money) and `resolve`, which reads every row the same way."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from svc import origin, rail_table
from svc.address import is_address
from svc.errors import UsageError
from svc.money import AmountError, parse_usd, shown, usd_to_atomic
from svc.settings_table import BY_KEY, SETTINGS, Setting

if TYPE_CHECKING:
    import httpx

NO_CAP = "none"
DEFAULT_PROFILE = "default"
REAL_HOST_MIN_INTERVAL = 15.0  # the spec's poll interval: 15-60 s while a task is live
LOOPBACK_INTERVAL = 1.0
# What a poll interval may be asked for, on every host: under a second floods even the
# loopback sandbox, and over an hour a watch looks hung (a real host is then held to the
# spec's 15-60 s by svc.engines.watch_parts.poll_interval).
POLL_INTERVAL_RANGE = (1.0, 3600.0)
# An x402 authorization can be settled by whoever holds it until its validBefore: the server
# proposes the window (maxTimeoutSeconds), we never sign for longer than this (the default,
# max_validity_seconds, is in the settings table); nor for less than this.
MIN_VALIDITY = 10


class Reading(NamedTuple):
    """How a value is read: `in_file` it came from the config file (no password may), and
    `cleartext_ok` a plain http:// URL to another machine may stand (allow_insecure_http, or a
    command that helps repair the settings)."""

    in_file: bool = False
    cleartext_ok: bool = False


def usd_amount(label: str, raw: object) -> Decimal:
    """A plain, non-negative USD amount (a price cap or a budget), or one clear usage error.

    Every source of a cap (flag, environment, config file, `svc config set`, an MCP tool's
    argument) goes through here, and so through the one amount parser: a NaN or negative cap
    would otherwise reach the payment policy and fail there, and `1_0` or fullwidth digits
    would be read as a cap the person never typed. Whitespace around it is refused too: a
    cap is plain digits, wherever it is written.
    """
    value = raw
    if isinstance(value, Decimal) and value.is_finite() and not value.is_signed():
        return value  # already a number (a setting read before)
    try:
        amount = parse_usd(value, label)
    except AmountError:
        text = str(value).strip().lower().lstrip("+")
        number_like = text.startswith("-") or text in _NOT_FINITE
        kind = "a non-negative USD amount" if number_like else "a USD amount like 1.50"
        raise UsageError(f"{label} must be {kind}, got {_quoted(raw)}", hint=_PLAIN_HINT) from None
    try:  # every cap and budget is counted in micro-USD: a finer one could never be applied
        usd_to_atomic(amount)
    except AmountError:
        raise UsageError(
            f"{label} must have at most 6 decimal places, got {_quoted(raw)}", hint=_PLAIN_HINT
        ) from None
    return amount


_NOT_FINITE = frozenset({"nan", "snan", "inf", "infinity"})


def _quoted(raw: object) -> str:
    """A refused value as the refusal shows it: text by its start only (a fleet's stored value
    may be endless), anything else as Python spells it."""
    return shown(raw) if isinstance(raw, str) else repr(raw)


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


def poll_seconds(label: str, raw: object) -> float:
    """A poll interval (`--interval`, poll_interval): 1 to 3600 seconds, or one usage error
    in svc's words (a NaN fails the comparison, so it is refused too)."""
    low, high = POLL_INTERVAL_RANGE
    try:
        value = float(str(raw).strip())
    except ValueError:
        value = math.nan
    if not low <= value <= high:
        raise UsageError(
            f"{label} must be a number of seconds from {low:g} to {high:g}, got {str(raw)[:40]!r}"
        )
    return value


def validity_seconds(label: str, raw: object) -> int:
    """An x402 validity bound: whole seconds, at least MIN_VALIDITY (verifiers want a margin
    before validBefore: a shorter window could never settle)."""
    value = positive_seconds(label, raw)
    if value < MIN_VALIDITY:
        raise UsageError(f"{label} must be at least {MIN_VALIDITY} seconds, got {raw!r}")
    return int(value)


def _non_negative_seconds(label: str, raw: object) -> float:
    """Seconds, where 0 turns the check off."""
    if str(raw).strip() in ("0", "0.0"):
        return 0.0
    return positive_seconds(label, raw)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() not in ("", "0", "false", "no", "off")


def _strict_bool(label: str, raw: object) -> bool:
    """true/false and their usual spellings; anything else is an error, not a guess (this one
    widens what may reach a secret)."""
    text = str(raw).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise UsageError(f"{label} must be true or false, got {raw!r}")


def _names(raw: object) -> tuple[str, ...]:
    """A list setting: a TOML list as it is, or comma-separated text (a value typed)."""
    parts = raw if isinstance(raw, list | tuple) else str(raw).split(",")
    return tuple(str(part).strip() for part in parts if str(part).strip())


def _origins(label: str, raw: object) -> tuple[str, ...]:
    """A list of origins (`scheme://host[:port]`, normalised): each through the URL gate, and
    none in cleartext to another machine (a proof would cross the network in the clear)."""
    found = []
    for name in _names(raw):
        url = origin.setting(name, label)
        if origin.is_cleartext(url):
            raise UsageError(
                f"{label}: {origin.origin_of(url)} is plain http:// to another machine"
            )
        found.append(origin.origin_of(url))
    return tuple(found)


def _rail(label: str, raw: object) -> str:
    name = str(raw)
    if name not in rail_table.NAMES:
        raise UsageError(f"{label} must be one of {', '.join(rail_table.NAMES)}, got {name!r}")
    return name


def _rails(label: str, raw: object) -> tuple[str, ...]:
    names = _names(raw)
    unknown = [name for name in names if name not in rail_table.NAMES]
    if unknown:
        raise UsageError(f"{label}: unknown rail {unknown[0]!r} ({', '.join(rail_table.NAMES)})")
    return names


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


# The counts among the settings and the range each may take.
COUNTS = {
    "max_paid_per_hour": (0, 1_000_000),
    "breaker_after": (0, 1000),
    "budget_warn_percent": (1, 100),
}


def count_setting(label: str, key: str, raw: object) -> int:
    low, high = COUNTS[key]
    return whole_number(label, raw, low, high)


def whole_number(label: str, raw: object, low: int, high: int) -> int:
    """A count given as ASCII digits, within [low, high], or one clear usage error."""
    import re

    text = str(raw).strip()
    if re.fullmatch(r"[0-9]{1,7}", text, re.ASCII) is None or not low <= int(text) <= high:
        raise UsageError(f"{label} must be a whole number from {low} to {high}, got {raw!r}")
    return int(text)


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
        if "?" in url or "#" in url:  # shown and logged as where the signer is: never a secret
            raise UsageError(
                f"{label}: a jsonrpc: URL takes no query or fragment",
                hint="a bearer token belongs in the secret store: svc wallet import --signer-token",
            )
        return f"jsonrpc:{url}"
    # The value is not repeated: a signer's arguments or URL may hold a secret.
    raise UsageError(f"{label} must be store, env, command:PATH [ARGS] or jsonrpc:URL")


def signer_address(label: str, raw: object) -> str:
    """A 0x-prefixed 20-byte hex address (compared without regard to case)."""
    import re

    value = str(raw).strip()
    if not is_address(value):
        # Not repeated back: a private key pasted here is the likeliest mistake.
        key_like = re.fullmatch(r"(0x)?[0-9a-fA-F]{64}", value, re.ASCII)
        raise UsageError(
            f"{label} must be a 0x-prefixed 20-byte hex address"
            + (" (that looks like a private key: never put one in the config)" if key_like else "")
        )
    return value


def _runner(label: str, raw: object) -> str:
    name = str(raw).strip()
    if not name or len(name) > 64 or not name.isprintable():
        raise UsageError(f"{label} must be a printable name of 1 to 64 characters")
    return name


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


def url_setting(row: Setting, label: str, raw: object, how: Reading) -> str:
    """A URL setting (`base_url`: "the base URL setting ..."), cleartext refused unless allowed."""
    words = row.key.replace("_url", " URL").replace("_", " ")
    url = origin.setting(str(raw), f"the {words}")
    refuse_cleartext(label, url, how.cleartext_ok)
    return url


# One parser per kind: (the row, its label for messages, the raw value, how it is read) -> the
# value Settings holds. The label names the setting and where its value came from.
Parser = Callable[[Setting, str, object, Reading], Any]
PARSERS: dict[str, Parser] = {
    "url": url_setting,
    "text": lambda row, label, raw, how: str(raw),
    "bool": lambda row, label, raw, how: _strict_bool(label, raw),
    "usd": lambda row, label, raw, how: usd_amount(label, raw),
    "cap": lambda row, label, raw, how: daily_cap(label, raw),
    "list": lambda row, label, raw, how: _names(raw),
    "origins": lambda row, label, raw, how: _origins(label, raw),
    "rail": lambda row, label, raw, how: _rail(label, raw),
    "rails": lambda row, label, raw, how: _rails(label, raw),
    "seconds": lambda row, label, raw, how: positive_seconds(label, raw),
    "interval": lambda row, label, raw, how: poll_seconds(label, raw),
    "seconds_or_off": lambda row, label, raw, how: _non_negative_seconds(label, raw),
    "validity": lambda row, label, raw, how: validity_seconds(label, raw),
    "ledger_url": lambda row, label, raw, how: ledger_url(label, raw, in_file=how.in_file),
    "runner": lambda row, label, raw, how: _runner(label, raw),
    "profile": lambda row, label, raw, how: str(raw),
    "count": lambda row, label, raw, how: count_setting(label, row.key, raw),
    "signer": lambda row, label, raw, how: signer_setting(label, raw),
    "address": lambda row, label, raw, how: signer_address(label, raw),
    "count_or_off": lambda row, label, raw, how: count_setting(label, row.key, raw) or None,
}


PLAIN = Reading()  # a value typed or written by us: not from the file, no cleartext allowed


def parse(key: str, raw: object, how: Reading = PLAIN, label: str | None = None) -> Any:
    """The value of setting `key` read from `raw` by its kind's parser (a usage error if not)."""
    row = BY_KEY[key]
    return PARSERS[row.kind](row, label or key, raw, how)


# Every default, read from the settings table by its setting's own parser (once, at import:
# about 20 small values). Settings' fields take theirs from here, so a default is written once.
DEFAULTS: dict[str, Any] = {
    row.key: parse(row.key, row.default) for row in SETTINGS if row.default is not None
}


@dataclass
class Settings:
    base_url: str = DEFAULTS["base_url"]
    auth_base: str = DEFAULTS["base_url"] + "/auth"
    profile: str = DEFAULT_PROFILE
    json_output: bool = False
    no_input: bool = False
    verbose: bool = False
    # A library caller's bounds (Client(timeout=, max_retries=)): seconds for a whole call,
    # its retries included (an httpx.Timeout also sets each request's own); None: each
    # request's SVC_TIMEOUT and the default retries, no bound on a whole call (the CLI's).
    timeout: float | httpx.Timeout | None = None
    max_retries: int | None = None
    email: str | None = None
    pay: str = DEFAULTS["pay"]
    max_price_usd: Decimal = DEFAULTS["max_price_usd"]
    allowed_networks: tuple[str, ...] = DEFAULTS["allowed_networks"]
    allowed_assets: tuple[str, ...] = DEFAULTS["allowed_assets"]
    poll_interval: float | None = None
    notify: bool = DEFAULTS["notify"]  # watch: bell/OSC and a notification at asks and ends
    # Payments beyond x402: rails, daily cap, MPP method preference, SPT source.
    allowed_rails: tuple[str, ...] = DEFAULTS["allowed_rails"]
    daily_cap_usd: Decimal | None = DEFAULTS["daily_cap_usd"]  # None: `none`, on purpose
    mpp_methods: tuple[str, ...] = DEFAULTS["mpp_methods"]
    spt_file: str | None = None
    spt_command: str | None = None
    max_validity_seconds: int = DEFAULTS["max_validity_seconds"]
    duplicate_window_seconds: float = DEFAULTS["duplicate_window_seconds"]
    # `svc mcp`: paid calls up to this much are paid without asking the human (None: always
    # ask), and whether a secret typed by the model may be sent as a sensitive reply.
    mcp_preapproved_usd: Decimal | None = None
    mcp_allow_model_secrets: bool = DEFAULTS["mcp_allow_model_secrets"]
    request_origins: tuple[str, ...] = ()  # origins svc mcp's paid_request may pay
    # Fleet mode: the shared ledger on PostgreSQL (None: the local SQLite file)
    # and this runner's name in it (None: the host name).
    ledger_url: str | None = None
    runner: str | None = None
    # Plain http:// to another machine for the base URL and auth base: refused
    # unless set, and then every paying or credentialed request warns.
    allow_insecure_http: bool = DEFAULTS["allow_insecure_http"]
    # The wallet's signer, per profile: `store`, `env`, `command:...` or
    # `jsonrpc:URL`, the address an external one signs for, and how long it may take.
    signer: str = DEFAULTS["signer"]
    signer_address: str | None = None
    signer_timeout: float = DEFAULTS["signer_timeout"]
    # Budgets: paid requests this runner may start per hour (None: no limit), the
    # failed or refunded paid requests in a row that stop it paying (0: no breaker), the
    # share of a budget that warns, and the budget of each svc mcp session (None: none).
    max_paid_per_hour: int | None = None
    breaker_after: int = DEFAULTS["breaker_after"]
    budget_warn_percent: int = DEFAULTS["budget_warn_percent"]
    session_budget_usd: Decimal | None = None
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


def profile_name(flag: str | None = None) -> str:
    """The profile in effect: --profile, else SVC_PROFILE, else the default one."""
    return flag or os.environ.get("SVC_PROFILE") or DEFAULT_PROFILE


# Resolved before the rest (the URLs read it) or by hand (the profile picks the profile the
# others are read from): every other row is read the same way.
_FIRST = ("allow_insecure_http",)
_BY_HAND = ("profile",)


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
    named = "flag" if profile else "env SVC_PROFILE" if os.environ.get("SVC_PROFILE") else None
    s.sources["profile"] = named or "default"
    pick = _Picker(s, profile_values or {})
    flags = {"base_url": base_url, "auth_base": auth_base}
    for key in _FIRST:
        pick.read(BY_KEY[key], None, Reading())
    cleartext_ok = s.allow_insecure_http or repairing
    read = {
        row.key
        for row in SETTINGS
        if row.key not in _FIRST + _BY_HAND
        and pick.read(row, flags.get(row.key), Reading(cleartext_ok=cleartext_ok))
    }
    if "auth_base" not in read:  # its default follows the base URL in effect
        s.auth_base = s.base_url + "/auth"
    s.json_output = json_output
    s.verbose = verbose
    tty = sys.stdin.isatty() if stdin_is_tty is None else stdin_is_tty
    env = os.environ
    s.no_input = no_input or _truthy(env.get("SVC_NO_INPUT")) or bool(env.get("CI")) or not tty
    return s


def reread(old: Settings, profile_values: dict[str, Any]) -> Settings:
    """`old` resolved again over a profile's values read anew: what a flag gave stays (the
    command line does not change), the rest follows the environment and the file, as a new
    command would see them. A long-lived server (`svc mcp`) takes a person's `svc config set`
    at its next call this way."""
    given = old.sources
    fresh = resolve(
        base_url=old.base_url if given.get("base_url") == "flag" else None,
        auth_base=old.auth_base if given.get("auth_base") == "flag" else None,
        profile=old.profile if given.get("profile") == "flag" else None,
        json_output=old.json_output,
        no_input=old.no_input,
        verbose=old.verbose,
        profile_values=profile_values,
        stdin_is_tty=False,
    )
    fresh.no_input = old.no_input
    return fresh


# Kinds whose empty value is no value (the default applies); any other kind's parser refuses it.
_EMPTY_IS_UNSET = ("text", "url", "list", "origins", "rails", "rail", "ledger_url", "runner")


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

    def read(self, row: Setting, flag: Any, how: Reading) -> bool:
        """Set `row`'s value on the settings, read by its kind's parser (True), or keep its
        default (False): unset, or empty where empty means unset (a name, a URL, a list). An
        empty limit is refused by its parser: `daily_cap_usd = ""` is no cap said by nobody."""
        raw = self(row.key, flag, row.env)
        if raw is None or (raw in ("", []) and row.kind in _EMPTY_IS_UNSET):
            return False
        in_file = self.settings.sources[row.key].startswith("profile")
        how = Reading(in_file=in_file, cleartext_ok=how.cleartext_ok)
        label = self.settings.labelled(row.key)
        setattr(self.settings, row.key, PARSERS[row.kind](row, label, raw, how))
        return True
