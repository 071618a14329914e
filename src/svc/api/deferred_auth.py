"""An auth that costs nothing until the service asks for a payment.

A free task call (a poll, a reply, a watch's polls) answers a 402 with a zero-amount proof.
Making that proof's auth means the payment policy, the recipient pins, the rail and the signer's
code: most of a `svc poll`'s start-up, for a question the service seldom asks.
`PaymentOnChallenge` sends the request as it is and builds the real auth only when a 402 comes
back, then lets it answer that very 402 as if it had sent the request itself.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

import httpx

from svc.api.status import is_payment_challenge


class PaymentOnChallenge(httpx.Auth):
    """`make()` is called at the first 402 and must return an auth whose first step sends the
    request unchanged (a payment auth with nothing journaled yet: pay/rails.PaidAuth over a new
    MemoryJournal). Later requests (a retry of the same call) go through that auth whole."""

    requires_response_body = True

    def __init__(self, make: Callable[[], httpx.Auth]) -> None:
        self.make = make
        self.inner: httpx.Auth | None = None

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        if self.inner is not None:
            yield from self.inner.auth_flow(request)
            return
        response = yield request
        if not is_payment_challenge(response):
            return
        self.inner = self.make()
        flow = self.inner.auth_flow(request)
        if next(flow) is not request:  # it would have sent something else: a wiring bug
            raise RuntimeError("a deferred payment auth must first send the request unchanged")
        try:
            outgoing = flow.send(response)  # the 402, as the inner auth's own first answer
            while True:
                response = yield outgoing
                outgoing = flow.send(response)
        except StopIteration:
            return
