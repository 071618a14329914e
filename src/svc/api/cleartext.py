"""The cleartext guard: no payment or credential leaves this machine over plain http unless the
person allowed it. The client installs `CleartextGuard.check` as a request hook."""

from __future__ import annotations

from collections.abc import Callable

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.api.headers import AUTHORIZATION, CREDENTIAL_HEADERS, PAYMENT_HEADERS
from svc.api.proxies import Proxy
from svc.errors import SvcError, UntrustedURLError, UsageError
from svc.origin import is_cleartext, is_loopback_host

_PAYMENT = frozenset(name.encode() for name in PAYMENT_HEADERS)
_CREDENTIAL = frozenset(name.encode() for name in CREDENTIAL_HEADERS)
_AUTHORIZATION = AUTHORIZATION.lower().encode()


class CleartextGuard:
    """No payment or credential leaves this machine in cleartext unless the person allowed it
    (allow_insecure_http), and then each says so. Checked on every request as it
    leaves (an httpx request hook runs after the auth flow added its proof), so a discovered
    endpoint, a next-page link or a card URL is held to the rule like the base URL: http://
    to another host, or http:// to any host through a proxy on another host."""

    def __init__(
        self,
        route: Callable[[str], Proxy | None],
        allowed: bool,
        warn: Callable[[str], None] | None,
    ) -> None:
        self.route = route
        self.allowed = allowed
        self.warn = warn
        self._warned: set[str] = set()

    def check(self, request: httpx.Request) -> None:
        raw = request.headers.raw  # bytes: httpx's decoded views cost a watch's poll a tenth
        names = {name.lower() for name, _ in raw}
        paying = not names.isdisjoint(_PAYMENT) or _mpp_credential(raw)
        if not (paying or not names.isdisjoint(_CREDENTIAL) or _has_body(request)):
            return  # nothing to protect (a plain poll): the route is not worked out for it
        url = str(request.url)
        proxy = self.route(url)
        clear = is_cleartext(url) or (
            request.url.scheme == "http" and proxy is not None and not is_loopback_host(proxy.host)
        )
        if not clear:
            return
        host = request.url.host
        if not self.allowed:
            raise _cleartext_refusal(host, proxy)
        if paying:
            self._say(
                f"paying over cleartext http to {host}: anyone on the path can read or change it"
            )
        elif host not in self._warned:  # a credential on every poll of a watch: once a host
            self._warned.add(host)
            self._say(
                f"sending credentials and data over cleartext http to {host}: "
                "anyone on the path can read or change them"
            )

    def _say(self, text: str) -> None:
        if self.warn is not None:
            self.warn(text)


def _mpp_credential(raw: list[tuple[bytes, bytes]]) -> bool:
    """An MPP credential in Authorization (`Payment ...`): the values joined as httpx's
    `headers.get` joins them."""
    values = [value for name, value in raw if name.lower() == _AUTHORIZATION]
    return b", ".join(values).lower().startswith(b"payment ")


def _has_body(request: httpx.Request) -> bool:
    try:
        return bool(request.content)
    except httpx.RequestNotRead:  # a streamed body: something is being sent
        return True


def _cleartext_refusal(host: str, proxy: Proxy | None) -> SvcError:
    if is_loopback_host(host) and proxy is not None:  # the proxy takes it off this machine
        return UsageError(
            f"{host} would be reached through the proxy {proxy.shown()} ({proxy.variable}) "
            "over plain http: a payment or credential would leave this machine in cleartext; "
            "nothing was sent",
            code="cleartext_url",
            hint=f"list it in NO_PROXY (NO_PROXY={host},localhost), or use https://",
        )
    return UntrustedURLError(
        f"refused to send a payment or credential over plain http:// to {host}; "
        "nothing was sent there",
        code="cleartext_url",
        hint="use https://; only for a server you trust on a network you trust: "
        "allow_insecure_http = true (SVC_ALLOW_INSECURE_HTTP=1)",
    )
