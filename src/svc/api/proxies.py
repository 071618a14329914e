"""The proxy and CA environment, read as curl and pip read it.

svc hands httpx its own transport (the size cap and the whole-answer deadline), and httpx then
ignores the proxy variables (`allow_env_proxies = trust_env and transport is None`), so they
are read here and the transport routes each request itself (api/transport.ProxyRouter):

- `https://` URLs: `https_proxy`, else `HTTPS_PROXY`, else `all_proxy`/`ALL_PROXY`;
  `http://` URLs: `http_proxy`, else `HTTP_PROXY` (not under CGI, where a request's `Proxy:`
  header becomes HTTP_PROXY: "httpoxy"), else `all_proxy`/`ALL_PROXY`. Lowercase wins, an
  empty value is unset, a value without a scheme is `http://`.
- `no_proxy`/`NO_PROXY` (as curl): `*` means no proxy at all; each entry is a name (matching
  itself and its subdomains; a leading dot is dropped), an IP address, or a CIDR range.
  Loopback is not exempt unless listed, as in curl.

Pure text and `ipaddress`: no httpx here, so doctor and the tests read the same rules.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from svc.errors import UsageError

PROXY_SCHEMES = ("http", "https")
_IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
_IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True)
class Proxy:
    url: str  # as the transport needs it (a password kept: httpx sends Proxy-Authorization)
    variable: str  # where it came from (HTTPS_PROXY, all_proxy, ...)

    def shown(self) -> str:
        """The URL for people and logs: a password in it is masked."""
        parts = urlsplit(self.url)
        if parts.password is None:
            return self.url
        user = parts.username or ""
        host = parts.netloc.rpartition("@")[2]
        return parts._replace(netloc=f"{user}:***@{host}").geturl()

    @property
    def host(self) -> str:
        return urlsplit(self.url).hostname or ""


@dataclass(frozen=True)
class NoProxy:
    everything: bool = False
    names: tuple[str, ...] = ()
    networks: tuple[_IPNetwork, ...] = ()
    text: str = ""  # as given, for doctor

    def matches(self, host: str) -> bool:
        if self.everything:
            return True
        host = host.lower().strip("[]").rstrip(".")
        address = _address(host)
        if address is not None:
            return any(address in network for network in self.networks)
        return any(host == name or host.endswith("." + name) for name in self.names)


@dataclass(frozen=True)
class ProxyEnv:
    http: Proxy | None = None
    https: Proxy | None = None
    no_proxy: NoProxy = NoProxy()

    def proxy_for(self, url: str) -> Proxy | None:
        """The proxy a request to `url` goes through, or None for a direct connection."""
        if self.http is None and self.https is None:
            return None  # no proxy set (the usual case): the URL need not be split
        parts = urlsplit(url)
        proxy = self.https if parts.scheme.lower() == "https" else self.http
        if proxy is None or self.no_proxy.matches(parts.hostname or ""):
            return None
        return proxy

    @property
    def proxies(self) -> tuple[Proxy, ...]:
        """The distinct proxies in use (at most two), each needing its own transport."""
        found = {p.url: p for p in (self.http, self.https) if p is not None}
        return tuple(found.values())


def from_environment(environ: Mapping[str, str] | None = None) -> ProxyEnv:
    """The proxies the environment names, each URL checked (exit 2, one line, no password)."""
    env = os.environ if environ is None else environ
    fallback = _first(env, "all_proxy", "ALL_PROXY")
    http_names = ["http_proxy"] if env.get("REQUEST_METHOD") else ["http_proxy", "HTTP_PROXY"]
    return ProxyEnv(
        http=_first(env, *http_names) or fallback,
        https=_first(env, "https_proxy", "HTTPS_PROXY") or fallback,
        no_proxy=no_proxy(_value(env, "no_proxy") or _value(env, "NO_PROXY") or ""),
    )


def _value(env: Mapping[str, str], name: str) -> str:
    return env.get(name, "").strip()


def _first(env: Mapping[str, str], *names: str) -> Proxy | None:
    for name in names:
        value = _value(env, name)
        if value:
            return Proxy(proxy_url(name, value), name)
    return None


def proxy_url(variable: str, raw: str) -> str:
    """A proxy URL svc can use, or one usage error naming the variable (never its value: a
    proxy URL may carry a password)."""
    url = raw if "://" in raw else f"http://{raw}"
    expected = "expected http://[user:password@]host:port"
    if any(c.isspace() or not c.isprintable() for c in url) or "\\" in url:
        raise UsageError(f"{variable} is not a proxy URL svc can read; {expected}")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise UsageError(f"{variable} has an invalid host or port; {expected}") from None
    scheme = parts.scheme.lower()
    if scheme.startswith("socks"):
        raise UsageError(
            f"{variable} names a SOCKS proxy; svc speaks to HTTP(S) proxies only",
            hint="use an HTTP proxy (http://host:port), or list the host in NO_PROXY",
        )
    if scheme not in PROXY_SCHEMES:
        raise UsageError(f"{variable} is not an http:// or https:// proxy URL; {expected}")
    if not parts.hostname:
        raise UsageError(f"{variable} has no host; {expected}")
    if port == 0:
        raise UsageError(f"{variable} has an invalid host or port; {expected}")
    return url


def no_proxy(text: str) -> NoProxy:
    """NO_PROXY as curl reads it (commas or spaces between entries)."""
    entries = [e.strip().lower() for e in text.replace(",", " ").split()]
    if "*" in entries:
        return NoProxy(everything=True, text=text)
    names: list[str] = []
    networks: list[_IPNetwork] = []
    for raw in entries:
        entry = raw.strip("[]").lstrip(".").rstrip(".")
        network = _network(entry)
        if network is not None:
            networks.append(network)
        elif entry:
            names.append(entry)
    return NoProxy(False, tuple(names), tuple(networks), text)


def _address(host: str) -> _IPAddress | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _network(entry: str) -> _IPNetwork | None:
    """An IP address (a one-address network) or a CIDR range; None for a name."""
    try:
        return ipaddress.ip_network(entry, strict=False)
    except ValueError:
        return None
