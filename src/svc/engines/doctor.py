"""`svc doctor`: check the set-up and explain each finding, as data for `ui/` to draw.

Each check returns a `Finding`: ok, warn (works, but worth knowing) or fail (a command that
needs it will fail), with one line of detail and, when something is to be done, the command
that does it. Checks never pay, never sign, never print secrets, and one failing check does
not stop the others. The first failing check (`first_failure`) carries the contract's code the
face exits with.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from svc import numbers, rail_table
from svc.api import proxies
from svc.api.headers import DATE
from svc.api.response import expect_status
from svc.api.transport import tls_context
from svc.context import AppContext
from svc.engines.budget import report as budget_report
from svc.errors import AuthError, ExitCode, SvcError
from svc.identity.store import has_credential
from svc.money import atomic_for_people, for_people, parse_usd, usd_to_atomic
from svc.next_step import Next, step
from svc.origin import is_cleartext, is_loopback_host, origin_of
from svc.pay.daily_cap import FLEET, shown
from svc.pay.signers import described
from svc.pay.signers.external import ExternalSigner
from svc.pay.signers.probe import probe
from svc.pay.wallet import is_external, key_source, load_signer
from svc.settings import refuse_cleartext
from svc.store.ledger import cap_day_start, ledger_path
from svc.store.ledger.sqlite import SCHEMA_VERSION
from svc.store.secrets import FileBackend
from svc.words import budget_standing, plural, source

MAX_SKEW_SECONDS = 30.0  # x402 windows are minutes long; more skew than this is worth a warning


@dataclass(frozen=True)
class Finding:
    check: str
    status: str  # ok | warn | fail
    detail: str
    fix: str | None = None  # what to do, in the face's words (`next`'s, once worded)
    exit_code: int = 0  # the contract's code when status is fail
    next: Next | None = field(default=None, compare=False)  # the fix as data, when it has one

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "next"}

    def worded(self, words: Callable[[Next], str]) -> Finding:
        """This finding with its next step in a face's words (as is when it has none)."""
        return self if self.next is None else replace(self, fix=words(self.next))


def _ok(check: str, detail: str) -> Finding:
    return Finding(check, "ok", detail)


def _warn(check: str, detail: str, fix: str | Next | None = None) -> Finding:
    if isinstance(fix, Next):
        return Finding(check, "warn", detail, fix.neutral, next=fix)
    return Finding(check, "warn", detail, fix)


def _fail(check: str, error: SvcError) -> Finding:
    return Finding(check, "fail", error.message, error.hint, int(error.exit_code))


def config_check(app: AppContext) -> Finding:
    path = app.config.path
    if not path.exists():
        return _ok("config", f"no config file at {path}: built-in defaults")
    try:
        profiles = app.config.profiles()  # parses and checks every table, key and value
    except SvcError as error:  # the one place a person turns to with a broken file
        error.hint = f"{error.hint or 'fix that line'}; the checks below used the built-in defaults"
        raise
    return _ok("config", f"{path} is valid ({plural(len(profiles), 'profile')})")


def profile_check(app: AppContext) -> Finding:
    s = app.settings
    return _ok(
        "profile",
        f"{s.profile}; base URL {s.base_url} ({source(s.sources.get('base_url'))}); "
        f"max price {for_people(s.max_price_usd)}; pay {s.pay}",
    )


def secrets_check(app: AppContext) -> Finding:
    import os

    backend = app.secrets.backend
    if isinstance(backend, FileBackend):
        why = (
            "SVC_KEYRING=file"
            if os.environ.get("SVC_KEYRING", "").lower() == "file"
            else "no usable OS keyring here"
        )
        fix = None if "SVC_KEYRING" in why else "SVC_KEYRING=file says the file is meant"
        return _warn("secrets", f"a 0600 file, {backend.path} ({why})", fix)
    return _ok("secrets", "the OS keyring")


def wallet_check(app: AppContext) -> Finding:
    try:
        signer = load_signer(app.secrets, app.settings)
        if is_external(app.settings):
            return signer_check(app, signer)
    except SvcError as error:
        if app.settings.pay == rail_table.X402:
            raise
        return _warn("wallet", f"{error.message} (you pay by {app.settings.pay})", error.hint)
    return _ok("wallet", f"{signer.address} (from {key_source(app.secrets, app.settings)})")


def signer_check(app: AppContext, signer: object) -> Finding:
    """An external signer: reachable, and signing for the profile's address."""
    assert isinstance(signer, ExternalSigner)  # is_external: load_signer made one
    return _ok(
        "wallet", f"{signer.address} (signer {described(app.settings.signer)}: {probe(signer)})"
    )


def service_check(app: AppContext) -> Finding:
    """Reachable, what kind of host, and the clock: an x402 window depends on it."""
    url = app.settings.base_url
    started = time.time()
    response = expect_status(
        app.http.send("GET", app.base.join("/manifest.json"), what="manifest", resend_safe=True),
        "manifest",
    )
    kind = "loopback: the local sandbox" if app.settings.is_loopback else "a real host"
    skew = _skew(response.headers.get(DATE), started)
    detail = f"{url} answers ({kind}, {1000 * (time.time() - started):.0f} ms)"
    if skew is None:
        return _warn("service", detail + "; it sent no Date header to check the clock against")
    if abs(skew) > MAX_SKEW_SECONDS:
        return _warn(
            "service",
            detail + f"; this clock is {skew:+.0f} s off the service's: x402 windows may fail",
            "set the system clock (NTP)",
        )
    return _ok("service", detail + f"; clock within {abs(skew):.0f} s of the service's")


def network_check(app: AppContext) -> Finding:
    """The proxy the base URL is reached through (its password masked), and the CAs https is
    verified with: what curl and pip would use here (api/proxies.py)."""
    import os

    url = app.settings.base_url
    env = proxies.from_environment()  # a malformed proxy URL fails here, exit 2
    proxy = env.proxy_for(url)
    if proxy is not None:
        route = f"through the proxy {proxy.shown()} ({proxy.variable})"
    elif env.proxies:
        route = "direct (NO_PROXY lists its host)"
    else:
        route = "direct (no proxy variable set)"
    tls_context()  # an unreadable CA file fails here, exit 2
    ca = next(
        (
            f"CAs from {name} {os.environ[name]}"
            for name in ("SSL_CERT_FILE", "SSL_CERT_DIR")
            if os.environ.get(name)
        ),
        "the bundled CAs",
    )
    detail = f"{url} {route}; https verified with {ca}"
    if proxy is not None and url.startswith("http:") and not is_loopback_host(proxy.host):
        host = app.base.host
        return _warn(
            "network",
            detail + ": plain http through another machine, so payments are refused",
            f"add {host} to NO_PROXY",
        )
    if not app.settings.allow_insecure_http and is_cleartext(url):
        try:
            refuse_cleartext(app.settings.labelled("base_url"), url, cleartext_ok=False)
        except SvcError as refused:  # the same words every other command says it in
            return _fail("network", refused)
    if app.settings.allow_insecure_http and is_cleartext(url):
        return _warn(
            "network",
            detail + "; allow_insecure_http is on: payments cross the network in cleartext",
            step("use_https"),
        )
    return _ok("network", detail)


def _skew(date: str | None, sent: float) -> float | None:
    if not date:
        return None
    theirs = numbers.http_date(date)
    return None if theirs is None else sent - theirs


def identity_check(app: AppContext) -> Finding:
    """Discovery, and for a stored credential the one live call every bearer needs: the token
    exchange (refreshing, as the next command would, when the assertion was revoked). A
    marker file only says a credential was stored, not that the platform still knows it."""
    endpoints = app.identity.platform.endpoints()
    detail = f"{app.settings.auth_base} lists {len(endpoints)} endpoints"
    if not has_credential(app.settings.auth_base):
        return _warn(
            "identity",
            detail + "; no agent credential stored (pay-as-you-go needs none)",
            step("register_identity"),
        )
    try:
        app.identity.exchange()
    except AuthError as refused:
        code = f" ({refused.code})" if refused.code else ""
        return Finding(
            "identity",
            "fail",
            f"{detail}; the stored agent credential is refused{code}: {refused.message}",
            IDENTITY_WAY_OUT.neutral,
            int(refused.exit_code),
            next=IDENTITY_WAY_OUT,
        )
    return _ok("identity", detail + "; the stored agent credential passes the token exchange")


IDENTITY_WAY_OUT = step("replace_identity")


def money_check(app: AppContext) -> Finding:
    """Pinned recipients for this origin and what is left of today's cap; a warning when
    nothing caps what is paid in a day (`daily_cap_usd = none`)."""
    cap = app.daily_cap(tell=False)
    if not app.has_ledger():
        paid, exposed = "nothing paid from this machine yet; no recipient pinned", 0
    else:
        origin = origin_of(app.settings.base_url)
        exposed = app.ledger.exposure(cap_day_start())
        pins = app.ledger.pinned_recipients(origin)
        pinned = ", ".join(f"{network} {pay_to}" for network, pay_to in pins) or "none"
        paid = (
            f"{atomic_for_people(exposed)} spent or authorized today; "
            f"recipients pinned for {origin}: {pinned}"
        )
    if cap.atomic is None:
        return _warn(
            "money",
            f"no daily cap ({cap.source}): nothing limits what is paid in a day; {paid}",
            step("set_daily_cap", fleet="yes" if cap.source == FLEET else ""),
        )
    left = atomic_for_people(max(0, cap.atomic - exposed))
    detail = f"daily cap {shown(cap.usd)} ({cap.source}), {left} left; {paid}"
    overruled = cap.overruled()
    return _warn("money", f"{detail}; {overruled}") if overruled else _ok("money", detail)


def budget_check(app: AppContext) -> Finding:
    """The budgets binding this process, a warning for one at budget_warn_percent or more,
    and for an open breaker."""
    if not app.has_ledger():
        return _ok("budgets", "no budgets (nothing paid from this machine yet)")
    doc = budget_report(app)
    mine = [b for b in doc["budgets"] if b["applies"]]
    near = [b for b in mine if b["warn"]]
    words = "; ".join(_budget_words(b) for b in near or mine)
    breaker = doc["breaker"]
    if breaker["open"]:
        return _warn(
            "budgets",
            f"the breaker stopped runner {breaker['runner']} paying after "
            f"{breaker['after']} failed or refunded paid requests in a row (until "
            f"{breaker['closes_at']})",
            step("reset_breaker", "once the cause is fixed, "),
        )
    if near:
        return _warn("budgets", words, step("see_budgets", tail=", or wait for its reset"))
    return _ok("budgets", words or "no budget binds this profile or runner")


def _budget_words(entry: dict[str, Any]) -> str:
    """`...: 4.50 of 3.00 USD used (150 %), over its limit`; one that warns says where it
    stands in words that match its percentage, as `svc budget` does."""
    used, limit = entry["used_usd"][:-4], entry["limit_usd"][:-4]
    words = f"{entry['what']}: {used} of {limit} USD used ({entry['percent']} %)"
    if not entry["warn"]:
        return words
    atomic = [usd_to_atomic(parse_usd(entry[key], key)) for key in ("used_usd", "limit_usd")]
    return f"{words}, {budget_standing(*atomic)}"


def ledger_check(app: AppContext) -> Finding:
    """Which ledger keeps the money rules, at which schema, with the rights it needs: the
    local file, or the fleet's on PostgreSQL (connected to here: unreachable fails, exit 9)."""
    if not app.settings.ledger_url and not ledger_path().exists():
        return _ok("ledger", f"local (SQLite), created on the first submit: {ledger_path()}")
    info = app.ledger.describe()
    kind = "fleet" if app.settings.ledger_url else "local"
    detail = f"{kind}: {info.engine}, schema {info.schema_version}, runner {info.runner}"
    if info.schema_version > SCHEMA_VERSION:
        return _warn(
            "ledger",
            f"{detail}: the schema is newer than this svc knows ({SCHEMA_VERSION})",
            "upgrade svc on this runner before it pays",
        )
    unwritable = app.ledger.unwritable()
    if unwritable is not None:  # read all the same; a paid command would stop at exit 9
        return Finding(
            "ledger",
            "fail",
            f"{detail}; readable, but {unwritable}: nothing can be paid",
            _DISK_FIX,
            int(ExitCode.UNAVAILABLE),
        )
    if info.missing_rights:
        missing = ", ".join(info.missing_rights)
        return _warn("ledger", f"{detail}; missing rights: {missing}", _RIGHTS_FIX)
    return _ok("ledger", detail)


_RIGHTS_FIX = "grant SELECT, INSERT, UPDATE, DELETE on the ledger's tables to this role"
_DISK_FIX = "free some space or make the data directory writable (SVC_DATA_DIR moves it)"


Check = Callable[[AppContext], Finding]

# Every check in order; None: the face brings its own (`run_checks`' face_checks) or none.
CHECKS: tuple[tuple[str, Check | None], ...] = (
    ("config", config_check),
    ("profile", profile_check),
    ("secrets", secrets_check),
    ("network", network_check),
    ("wallet", wallet_check),
    ("service", service_check),
    ("identity", identity_check),
    ("ledger", ledger_check),
    ("money", money_check),
    ("budgets", budget_check),
    ("notify", None),  # a face's own check: how it reaches a person
    ("mcp", None),  # a face's own check: how an agent host starts it
)


def run_checks(
    app: AppContext,
    *,
    face_checks: Mapping[str, Check] | None = None,
    present: Callable[[SvcError], None] = lambda error: None,
    words: Callable[[Next], str] = lambda nxt: nxt.neutral,
) -> list[Finding]:
    """Every check, in order. `face_checks`: the checks only a face knows how to make (the
    CLI's `notify` and `mcp`); a face without them (a library) skips them. `present` and
    `words`: the face's words for a next step (svc.next_step), of a failed check's error and
    of a finding's fix."""
    own = face_checks or {}
    findings = []
    for name, listed in CHECKS:
        check = listed or own.get(name)
        if check is None:
            continue
        try:
            findings.append(check(app).worded(words))
        except SvcError as error:
            if error.exit_code == ExitCode.UNAVAILABLE and app.settings.is_loopback:
                error.hint = error.hint or SERVE_SANDBOX.neutral
                error.next = error.next or SERVE_SANDBOX
            present(error)
            findings.append(_fail(name, error))
    return findings


SERVE_SANDBOX = step("serve_sandbox", "the base URL is the local sandbox: ")


def first_failure(findings: list[Finding]) -> Finding | None:
    """The failing check whose code the face exits with, None when nothing failed."""
    return next((f for f in findings if f.status == "fail"), None)
