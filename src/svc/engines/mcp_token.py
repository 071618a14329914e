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
from collections.abc import Callable, Mapping

from svc.api.headers import AUTHORIZATION
from svc.context import AppContext

TOKEN_SECRET = "mcp_http_token"
TOKEN_BYTES = 32  # 256 bits: guessing it over loopback is hopeless
RELOAD_SECONDS = 2.0  # a rotated token takes over a running server within this long


def stored(app: AppContext) -> str | None:
    token = app.secrets.get(TOKEN_SECRET)
    return token if token else None


def ensure(app: AppContext) -> tuple[str, bool]:
    """(the token, whether it was made just now)."""
    token = stored(app)
    if token is not None:
        return token, False
    return rotate(app), True


def rotate(app: AppContext) -> str:
    token = "svcmcp_" + secrets.token_urlsafe(TOKEN_BYTES)
    app.secrets.set(TOKEN_SECRET, token)
    return token


def check(app: AppContext) -> TokenCheck:
    """The check a server makes of every request, against the token as stored now."""
    return TokenCheck(lambda: stored(app))


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

    def authorizes(self, headers: Mapping[str, str]) -> bool:
        """Whether a request's headers (names in lower case) carry `Authorization: Bearer`
        with the token."""
        scheme, _, presented = headers.get(AUTHORIZATION.lower(), "").partition(" ")
        return scheme.lower() == "bearer" and bool(presented) and self.matches(presented)
