"""Bearer and payment as one `httpx.Auth`: the payment flow decides what to send, and the
bearer step places the agent token on every request it sends (after the payment step has set
`Authorization`, so a `Payment` credential pushes the bearer into `svc-agent-authorization`).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

import httpx

if TYPE_CHECKING:
    from svc.identity.bearer import BearerAuth


class AgentAuth(httpx.Auth):
    requires_response_body = True

    def __init__(self, bearer: BearerAuth, payment: httpx.Auth | None) -> None:
        self.bearer = bearer
        self.payment = payment

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        inner = self.payment.auth_flow(request) if self.payment is not None else _once(request)
        try:
            outgoing = next(inner)
        except StopIteration:
            return
        while True:
            response = yield from self.bearer.send(outgoing)
            try:
                outgoing = inner.send(response)
            except StopIteration:
                return


def _once(request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
    yield request
