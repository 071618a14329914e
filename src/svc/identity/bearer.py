"""The bearer step: an `httpx.Auth` that attaches the agent's access token and heals a 401.

On a 401 it follows the spec: re-run the exchange once (which itself refreshes when the
assertion expired or was revoked); if the fresh token is refused too, refresh and try once
more; then stop and tell the user to register. Placement: `Authorization: Bearer` unless
`Authorization` already carries a payment credential, in which case the bearer goes in
`svc-agent-authorization`. Only one agent token is ever on a request.
"""

from __future__ import annotations

from collections.abc import Generator

import httpx

from svc.api.headers import AGENT_AUTHORIZATION as AGENT_HEADER
from svc.api.headers import AUTHORIZATION
from svc.api.status import auth_refusal
from svc.errors import REPLACE_CREDENTIAL, AuthError
from svc.identity.session import IdentitySession

# Reasons that say the token itself is stale; others (placement) are our bugs, not healable.
HEALABLE_REASONS = frozenset({"token_expired", "token_invalid", None})


def place(request: httpx.Request, token: str) -> None:
    authorization = request.headers.get(AUTHORIZATION, "")
    if authorization.split(" ", 1)[0].lower() == "payment":
        request.headers[AGENT_HEADER] = f"Bearer {token}"
    else:
        request.headers[AUTHORIZATION] = f"Bearer {token}"
        if AGENT_HEADER in request.headers:
            del request.headers[AGENT_HEADER]


class BearerAuth(httpx.Auth):
    requires_response_body = True

    def __init__(self, session: IdentitySession) -> None:
        self.session = session

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        yield from self.send(request)

    def send(
        self, request: httpx.Request
    ) -> Generator[httpx.Request, httpx.Response, httpx.Response]:
        """Send `request` with the bearer; returns the final response (for composition)."""
        token = self.session.access_token()
        if token is None:
            response = yield request
            return response
        place(request, token)
        response = yield request
        if not self._healable(response):
            return response
        place(request, self.session.exchange())  # the spec: re-run the exchange once
        response = yield request
        if not self._healable(response):
            return response
        cred = self.session.credential()
        if cred is not None and cred.refresh_token is not None:
            self.session.refresh()
            place(request, self.session.exchange())
            response = yield request
            if not self._healable(response):
                return response
        code, reason = auth_refusal(response)
        raise AuthError(
            "the service keeps refusing this agent credential"
            + (f" ({code}: {reason})" if reason else f" ({code})"),
            code=code or "invalid_token",
            status=401,
            reason=reason,
            next=REPLACE_CREDENTIAL,  # a new one, or log out: as `svc doctor` says
        )

    @staticmethod
    def _healable(response: httpx.Response) -> bool:
        code, reason = auth_refusal(response)
        return code == "invalid_token" and reason in HEALABLE_REASONS
