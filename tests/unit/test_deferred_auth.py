"""api/deferred_auth.PaymentOnChallenge (issue 34.3): a free call builds its payment auth only
when the service answers 402, and that auth then answers the 402 exactly as if it had sent the
request itself (one proof, attached to the re-sent request)."""

from __future__ import annotations

from collections.abc import Generator

import httpx
import pytest

from svc.api.deferred_auth import PaymentOnChallenge


class ProofAuth(httpx.Auth):
    """What a payment auth does: send, and on a 402 re-send once with a proof."""

    def __init__(self) -> None:
        self.challenges: list[int] = []

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        response = yield request
        if response.status_code != 402:
            return
        self.challenges.append(response.status_code)
        request.headers["x-proof"] = f"proof-{len(self.challenges)}"
        yield request


def client(answers: list[int], seen: list[str | None]) -> httpx.Client:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("x-proof"))
        return httpx.Response(answers.pop(0))

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_no_challenge_builds_nothing() -> None:
    made: list[ProofAuth] = []
    auth = PaymentOnChallenge(lambda: made.append(ProofAuth()) or made[-1])
    seen: list[str | None] = []
    assert client([200], seen).get("http://svc.test/t", auth=auth).status_code == 200
    assert made == [] and seen == [None]


def test_a_challenge_is_answered_by_the_auth_built_then() -> None:
    made: list[ProofAuth] = []
    auth = PaymentOnChallenge(lambda: made.append(ProofAuth()) or made[-1])
    seen: list[str | None] = []
    with client([402, 200, 402, 200], seen) as http:
        assert http.get("http://svc.test/t", auth=auth).status_code == 200
        assert len(made) == 1 and made[0].challenges == [402]
        assert seen == [None, "proof-1"]  # the request sent once bare, once with its proof
        # The same call again (a retry): the auth built at the first 402 serves it whole.
        assert http.get("http://svc.test/t", auth=auth).status_code == 200
    assert len(made) == 1 and seen == [None, "proof-1", None, "proof-2"]


def test_an_inner_auth_that_would_change_the_first_request_is_refused() -> None:
    class Rewrites(httpx.Auth):
        def auth_flow(
            self, request: httpx.Request
        ) -> Generator[httpx.Request, httpx.Response, None]:
            yield httpx.Request("GET", "http://elsewhere.test/")

    seen: list[str | None] = []
    with pytest.raises(RuntimeError, match="unchanged"):
        client([402], seen).get("http://svc.test/t", auth=PaymentOnChallenge(Rewrites))
