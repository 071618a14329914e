"""The bearer token of `svc mcp --http`: made by svc, kept in the secret store, never in argv.

One token per machine (per secret store): it proves a request comes from a host the person
configured, not from any other program or web page that can reach the loopback port. It is
shown once when made, again only on request (`svc mcp token`), and replaced by `--rotate`.
No MCP SDK here: `svc mcp token` stays light.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from svc.store.secrets import SecretStore

TOKEN_SECRET = "mcp_http_token"
TOKEN_BYTES = 32  # 256 bits: guessing it over loopback is hopeless
RELOAD_SECONDS = 2.0  # a rotated token takes over a running server within this long


def stored(store: SecretStore) -> str | None:
    token = store.get(TOKEN_SECRET)
    return token if token else None


def ensure(store: SecretStore) -> tuple[str, bool]:
    """(the token, whether it was made just now)."""
    token = stored(store)
    if token is not None:
        return token, False
    return rotate(store), True


def rotate(store: SecretStore) -> str:
    token = "svcmcp_" + secrets.token_urlsafe(TOKEN_BYTES)
    store.set(TOKEN_SECRET, token)
    return token


class TokenCheck:
    """Compares a presented token with the stored one, in constant time.

    The stored token is read again every few seconds, so `svc mcp token --rotate` shuts out
    the old token without a restart (a leaked token must stop working at once).
    """

    def __init__(self, read: Callable[[], str | None]) -> None:
        self._read = read
        self._token: str | None = None
        self._read_at = float("-inf")

    def current(self) -> str | None:
        now = time.monotonic()
        if now - self._read_at >= RELOAD_SECONDS:
            self._token, self._read_at = self._read(), now
        return self._token

    def matches(self, presented: str) -> bool:
        token = self.current()
        return token is not None and hmac.compare_digest(presented.encode(), token.encode())
