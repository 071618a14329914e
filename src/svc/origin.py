"""The one gate for every URL, link and credential destination that svc acts on.

What the gate promises (and the only way to get a `TrustedURL`, which the HTTP transport, the
browser opener and the QR drawer require):

- Shape: http(s); no userinfo (httpx would turn it into a Basic header, a browser would show
  it as a host); no control, format (bidi, zero-width) or space characters and no backslash
  (parsers disagree on where its host ends); a non-empty host, shown in ASCII (punycode for
  an IDN) so a person sees where a link goes; a valid port.
- Credentials: a URL that will carry one (identity endpoints from discovery, a payment proof)
  must be on the origin it belongs to (`on_origin`), never on a host the server named.
- Links for people and the card endpoints: on the origin that served them, or on a host the
  person confirmed once for that origin (`from_server` with a `HostTrust`); else refused, with
  one line naming both hosts.

An origin is `scheme://host:port`, normalised: `http://LOCALHOST:8402/`, `http://127.0.0.1:8402/x`
and `http://127.0.0.1:8402` are one server and must not look like three (a changed payTo would
pass as a first payment). Recipient pins, journals and link pins are keyed by it.
"""

from __future__ import annotations

import functools
import ipaddress
import re
import socket
import unicodedata
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from svc.errors import UntrustedURLError, UsageError

DEFAULT_PORTS = {"http": 80, "https": 443}
# Names every resolver maps to the IPv4 loopback; `::1` stays itself (another socket).
LOOPBACK_ALIASES = frozenset({"localhost", "localhost.", "127.0.0.1"})
MAX_URL_LENGTH = 8192
_ASCII_HOST = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$")
# Only the gate holds this: TrustedURL(...) without it is refused.
_GATE = object()

# Asked when a server's link is on a host other than its own: (origin, host, what) -> trusted?
# The implementation (svc.pay.journal.LinkHosts) checks the pins, may ask the person and pin.
HostTrust = Callable[[str, str, str], bool]


class TrustedURL:
    """A URL that passed the gate: `str()` is the URL to send or show (host in ASCII)."""

    __slots__ = ("host", "netloc", "origin", "url")

    def __init__(self, url: str, origin: str, host: str, netloc: str, key: object) -> None:
        if key is not _GATE:
            raise TypeError("a TrustedURL is made only by the gate in svc.origin")
        self.url: str = url
        self.origin: str = origin
        self.host: str = host  # ASCII, lowercase; what a person is told
        self.netloc: str = netloc  # host[:port], never userinfo: what recipients are keyed by

    def __str__(self) -> str:
        return self.url

    def __repr__(self) -> str:
        return f"TrustedURL({self.url!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TrustedURL) and other.url == self.url

    def __hash__(self) -> int:
        return hash(self.url)

    def join(self, path: str) -> TrustedURL:
        """A path (and query) below this URL, as the API's paths are joined to the base URL."""
        if not path.startswith("/"):
            raise ValueError(f"not an absolute path: {path[:80]!r}")
        return self.derive(self.url.rstrip("/") + path)

    def derive(self, url: str, what: str = "a URL") -> TrustedURL:
        """`url` (this one with another path or query), gated again and held to this origin."""
        return on_origin(url, self, what)


@functools.lru_cache(maxsize=64)  # a pure function, asked several times per paid request
def origin_of(url: str) -> str:
    """`scheme://host:port` of a URL, lowercase, default port explicit, path dropped."""
    parts = urlsplit(str(url).strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().rstrip(".")
    if host in LOOPBACK_ALIASES or host.startswith("127."):
        host = "127.0.0.1" if host in LOOPBACK_ALIASES else host
    try:
        port = parts.port or DEFAULT_PORTS.get(scheme, 0)
    except ValueError:  # a port out of range: keep the text, it will never match a real one
        port = 0
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{port}"


def is_loopback_host(host: str) -> bool:
    """True only for a host whose packets never leave this machine: a loopback address literal
    (an IPv4-mapped IPv6 one judged on the IPv4 address it carries), or `localhost` when every
    address it resolves to is one (an /etc/hosts may name another machine `localhost`, and a
    proof or a bearer would then cross the network in cleartext). Judged on the parsed address,
    never on how the text begins: `127.0.0.1.evil.com` is a name anyone can register, and a
    name or number we cannot read is not loopback (the safe side)."""
    host = host.lower().rstrip(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host == "localhost":
        return _resolves_to_loopback_only(host)
    return _loopback_literal(host)


@functools.lru_cache(maxsize=256)
def _loopback_literal(host: str) -> bool:
    """Remembered: the answer for a literal never changes, and a paid request asks it for the
    same host several times (the cleartext guard, the settings' loopback checks)."""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _resolves_to_loopback_only(name: str) -> bool:
    """Asked each time (about 12 us from /etc/hosts), as the connection resolves it each time."""
    try:
        found = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
    except OSError:  # cannot say where it leads: not loopback (the safe side)
        return False
    addresses = {str(info[4][0]) for info in found}
    return bool(addresses) and all(_loopback_literal(address) for address in addresses)


def is_loopback_url(url: str) -> bool:
    """The URL's real host (after any userinfo, before any path) is loopback."""
    try:
        host = urlsplit(str(url).strip()).hostname
    except ValueError:  # an unclosed IPv6 bracket: no host we can judge
        return False
    return bool(host) and is_loopback_host(host or "")


def is_cleartext(url: str) -> bool:
    """Plain http:// to another machine: anyone on the path can read and rewrite it (a 402's
    payTo on first contact, a bearer, a proof). https and the local sandbox are not."""
    scheme = str(url).strip().partition(":")[0].lower()
    return scheme == "http" and not is_loopback_url(url)


def host_of(origin: str) -> str:
    """`host` or `host:port` (when not the scheme's default) of an origin, for people."""
    scheme, _, rest = origin.partition("://")
    host, _, port = rest.rpartition(":")
    return host if DEFAULT_PORTS.get(scheme) == int(port or 0) else rest


# --- the gate's entrances ----------------------------------------------------------------------


def configured(raw: str, what: str) -> TrustedURL:
    """A URL the person chose (the base URL, the auth base): its shape is still checked."""
    return _trusted(raw, what)


def setting(raw: str, what: str) -> str:
    """A URL setting as typed by the person (flag, environment, config file), checked by the
    same rules: a usage error (exit 2) that never echoes it, since userinfo may be a password."""
    try:
        return str(_trusted(raw.strip(), what)).rstrip("/")
    except UntrustedURLError as exc:
        raise UsageError(exc.message.replace(what, f"{what} setting", 1)) from None


def on_origin(raw: object, anchor: TrustedURL, what: str) -> TrustedURL:
    """A server's URL that will carry a credential: only on `anchor`'s own origin."""
    url = _trusted(raw, what)
    if url.origin != anchor.origin:
        raise UntrustedURLError(
            f"{what} is on {url.netloc}, not on {anchor.netloc} that sent it; "
            "nothing was sent there",
            code="foreign_origin",
            hint=f"a credential for {anchor.netloc} is only ever sent to {anchor.netloc}",
        )
    return url


def origin_if_valid(raw: object) -> str | None:
    """The origin of a server's URL that is only compared, never used; None if the gate
    would refuse it."""
    try:
        return _trusted(raw, "a URL").origin
    except UntrustedURLError:
        return None


def from_server(raw: object, served_by: TrustedURL, what: str, trusts: HostTrust) -> TrustedURL:
    """A link for a person (or a card endpoint): on the origin that served it, or on a host
    the person confirmed for that origin; else refused, naming both hosts."""
    url = _trusted(raw, what)
    if url.origin == served_by.origin or trusts(served_by.origin, url.netloc, what):
        return url
    raise UntrustedURLError(
        f"refused {what}: it is on {url.netloc}, not on {served_by.netloc} that sent it",
        code="foreign_link",
        hint=f"if {url.netloc} is really where {served_by.netloc} sends you, run the "
        "command again on a terminal and confirm it once",
    )


# --- the checks ----------------------------------------------------------------------------------


def _trusted(raw: object, what: str) -> TrustedURL:
    if not isinstance(raw, str) or not raw:
        raise UntrustedURLError(f"{what} is not a URL")
    if len(raw) > MAX_URL_LENGTH:
        raise UntrustedURLError(f"{what} is longer than {MAX_URL_LENGTH} characters")
    bad = None if _plainly_safe(raw) else next((c for c in raw if _unsafe_char(c)), None)
    if bad is not None:
        raise UntrustedURLError(f"{what} contains the character U+{ord(bad):04X}; refused")
    try:
        parts = urlsplit(raw)
    except ValueError:  # an unclosed IPv6 bracket
        raise UntrustedURLError(f"{what} has an invalid IPv6 host") from None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        raise UntrustedURLError(f"{what} is not an http(s) URL")
    if "@" in parts.netloc:
        raise UntrustedURLError(
            f"{what} carries a user name or password before its host; refused",
            code="url_userinfo",
        )
    host = _ascii_host(parts.netloc, what)
    try:
        port = parts.port
    except ValueError:
        raise UntrustedURLError(f"{what} has an invalid port") from None
    netloc = host if port is None else f"{host}:{port}"
    url = urlunsplit((scheme, netloc, parts.path, parts.query, parts.fragment))
    return TrustedURL(url, origin_of(url), host, netloc, _GATE)


def _plainly_safe(raw: str) -> bool:
    """No character of an all-ASCII `raw` is `_unsafe_char`, in C-speed string methods (a
    service's URLs are; the character-by-character look is for the rest)."""
    return raw.isascii() and raw.isprintable() and " " not in raw and "\\" not in raw


def _unsafe_char(c: str) -> bool:
    if c.isascii():
        return c in {"\\", " "} or not c.isprintable()
    return unicodedata.category(c)[0] in "CZ"


def _ascii_host(netloc: str, what: str) -> str:
    """The host of `netloc` in ASCII, lowercase; an IDN becomes its punycode (xn--) form."""
    if netloc.startswith("["):
        literal, _, _ = netloc[1:].partition("]")
        try:
            return f"[{ipaddress.IPv6Address(literal).compressed}]"
        except ValueError:
            raise UntrustedURLError(f"{what} has an invalid IPv6 host") from None
    host = netloc.rpartition(":")[0] if netloc.count(":") == 1 else netloc
    host = host.lower().rstrip(".")
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            raise UntrustedURLError(f"{what} has a host that is not a valid name") from None
    if not _ASCII_HOST.match(host):
        raise UntrustedURLError(f"{what} has no valid host")
    return host
