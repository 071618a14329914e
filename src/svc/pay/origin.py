"""The origin a payment proof is bound to: scheme, host and port, normalised.

A proof (x402 authorization, MPP credential, card payment id) answers one origin's challenge and
is sent only there; recipient pins are keyed by it too. The base-URL text is not an origin:
`http://LOCALHOST:8402/`, `http://127.0.0.1:8402/some/path` and `http://127.0.0.1:8402` are one
server, and must not look like three (a changed payTo would pass as a first payment).
"""

from __future__ import annotations

import functools
from urllib.parse import urlsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
# Names every resolver maps to the IPv4 loopback; `::1` stays itself (another socket).
LOOPBACK_ALIASES = frozenset({"localhost", "localhost.", "127.0.0.1"})


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
