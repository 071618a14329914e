"""Every answer the document promises for the identity, card and page routes, really served.

schemathesis (test_sandbox_discovery) sends what it can generate, and random tokens and ids
mostly reach the 400s and 404s. This walks the flows a client really runs (register, claim by
the page, exchange, entitlements, refresh, card checkout) through a client that checks each
answer against the public document, and fails when a status the document lists for these
routes is never reached: a documented answer no test has seen is not known to be true.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient

from svc_sandbox.app import create_app
from svc_sandbox.openapi import by_hand
from svc_sandbox.state.sandbox import SandboxState

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"
TASK = {"task": "Order the usual coffee beans", "email": "person@example.com"}


class Checked:
    """A sandbox client that holds every answer to the document and remembers what it saw."""

    def __init__(self, state: SandboxState) -> None:
        app = create_app(state)
        self.http = TestClient(app, follow_redirects=False)
        self.schema = schemathesis.openapi.from_dict(self._document())
        self.seen: set[tuple[str, str, str]] = set()
        self.http.event_hooks["response"] = [self._check]

    def _document(self) -> dict[str, Any]:
        doc: dict[str, Any] = self.http.get("/openapi.json").json()
        for page in range(2, doc["info"]["x-pages"] + 1):
            more = self.http.get("/openapi.json", params={"page": page}).json()
            doc["paths"].update(more["paths"])
            for name, part in more["components"].items():
                doc["components"].setdefault(name, {}).update(part)
        return doc

    def _check(self, response: httpx.Response) -> None:
        request = response.request
        if request.url.path.startswith("/_sandbox"):
            return
        found = self.schema.find_operation_by_path(request.method, request.url.path)
        assert found is not None, f"{request.method} {request.url.path} is not in the document"
        response.read()
        found.validate_response(response)  # raises with schemathesis's account of the mismatch
        self.seen.add((request.method, found.path, str(response.status_code)))

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.http.post(path, **kwargs)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.http.get(path, **kwargs)

    def register(self, **body: Any) -> httpx.Response:
        return self.post("/auth/agent/identity", json=body)

    def service_auth(self, address: str) -> str:
        """A fresh service_auth registration's claim token."""
        answer = self.register(type="service_auth", login_hint=address)
        return str(answer.json()["claim"]["token"])

    def assertion(self, address: str) -> httpx.Response:
        """Register with an ID-JAG the sandbox's trusted provider minted for this address."""
        minted = self.post("/_sandbox/identity/id-jag", json={"email": address})
        jag = minted.json()["assertion"]
        return self.register(type="identity_assertion", assertion_type=ID_JAG, assertion=jag)

    def claim(self, token: str, hint: str) -> httpx.Response:
        body = {"type": "service_auth", "claim_token": token, "login_hint": hint}
        return self.post("/auth/agent/identity/claim", json=body)

    def complete(self, token: str, code: str) -> httpx.Response:
        body = {"claim_token": token, "user_code": code}
        return self.post("/auth/agent/identity/claim/complete", json=body)

    def exchange(self, assertion: str) -> httpx.Response:
        form = {"grant_type": JWT_BEARER, "assertion": assertion}
        return self.post("/auth/oauth2/token", data=form)


@pytest.fixture
def state() -> SandboxState:
    return SandboxState()


@pytest.fixture
def checked(state: SandboxState) -> Iterator[Checked]:
    client = Checked(state)
    with client.http:
        yield client


def _path(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


def _code_on(page: str) -> str:
    found = re.search(r'<code id="user-code">([A-Z-]+)</code>', page)
    assert found, page
    return found.group(1)


def _claimed_by_the_page(checked: Checked, address: str) -> tuple[str, str]:
    """A service_auth registration claimed through its page: (claim token, its code)."""
    token = checked.service_auth(address)
    page = _path(checked.claim(token, address).json()["attempt"]["verification_uri"])
    assert checked.get(page).status_code == 200
    assert checked.post(f"{page}/decision", data={"decision": "approve"}).status_code == 403
    assert checked.post(f"{page}/sign-in", data={"email": "other@example.com"}).status_code == 403
    assert checked.post(f"{page}/sign-in", data={"email": address}).status_code == 303
    code = _code_on(checked.get(page).text)
    assert checked.complete(token, code).status_code == 400  # claim_not_confirmed
    assert checked.post(f"{page}/decision", data={"decision": "approve"}).status_code == 303
    return token, code


def _walk_identity(checked: Checked, state: SandboxState) -> None:
    anonymous = checked.register(type="anonymous")
    assert anonymous.status_code == 201
    access = checked.exchange(anonymous.json()["identity"]["assertion"]).json()["access_token"]
    bearer = {"Authorization": f"Bearer {access}"}
    assert checked.get("/auth/agent/entitlements", headers=bearer).status_code == 200
    assert checked.get("/auth/agent/entitlements").status_code == 401
    fault = {
        "kind": "code",
        "code": "entitlements_not_available",
        "path": "/auth/agent/entitlements",
    }
    checked.post("/_sandbox/faults", json={"faults": [fault]})
    assert checked.get("/auth/agent/entitlements", headers=bearer).status_code == 501
    assert checked.exchange("not-an-assertion").status_code == 400
    assert checked.register(type="sideways").status_code == 400

    token, code = _claimed_by_the_page(checked, "claimed@example.com")
    assert checked.complete(token, code).status_code == 200
    assert checked.complete(token, code).status_code == 409
    assert checked.claim(token, "claimed@example.com").status_code == 409
    assert checked.claim("clm_unknown", "claimed@example.com").status_code == 400
    born = checked.assertion("born@example.com")
    assert born.status_code == 201
    refresh = born.json()["identity"]["refresh_token"]["value"]
    access = checked.exchange(born.json()["identity"]["assertion"]).json()["access_token"]
    checked.post("/_sandbox/identity/grants", json={"email": "born@example.com"})
    plans = checked.get("/auth/agent/entitlements", headers={"Authorization": f"Bearer {access}"})
    assert {"included", "credit-pack"} <= {plan["plan_id"] for plan in plans.json()["plans"]}
    assert checked.register(type="refresh", refresh_token=refresh).status_code == 200
    asked = checked.assertion("claimed@example.com")  # an account the page made
    assert asked.status_code == 401 and asked.json()["claim"]["attempt"]["verification_uri"]

    denied = checked.service_auth("no@example.com")
    page = _path(checked.claim(denied, "no@example.com").json()["attempt"]["verification_uri"])
    checked.post(f"{page}/sign-in", data={"email": "no@example.com"})
    denied_code = _code_on(checked.get(page).text)
    checked.post(f"{page}/decision", data={"decision": "deny"})
    assert checked.complete(denied, denied_code).status_code == 403
    crowded = checked.service_auth("busy@example.com")
    links = [checked.claim(crowded, "busy@example.com").status_code for _ in range(4)]
    assert links == [201, 201, 201, 429]

    state.clock.advance(3600)
    assert checked.get(page).status_code == 410
    assert checked.post(f"{page}/sign-in", data={"email": "no@example.com"}).status_code == 410
    assert checked.post(f"{page}/decision", data={"decision": "deny"}).status_code == 410
    for tail in ("", "/sign-in", "/decision"):
        method = checked.get if not tail else checked.post
        assert method(f"/auth/verify/att_unknown{tail}").status_code == 404
    checked.post("/_sandbox/config", json={"anonymous_registration": False})
    assert checked.register(type="anonymous").status_code == 403
    assert checked.get("/auth/.well-known/oauth-authorization-server").status_code == 200
    assert checked.get("/auth/.well-known/oauth-protected-resource").status_code == 200


def _walk_card(checked: Checked) -> None:
    challenge = checked.post("/svc/tasks", json=TASK, headers={"svc-request-id": "card-1"})
    assert challenge.status_code == 402
    card = challenge.json()["card"]
    pay, status = _path(card["payUrl"]), _path(card["statusUrl"])
    checkout = status.replace("/status", "/checkout")
    assert checked.post(pay, json={"checkout": True}).status_code == 200
    assert checked.get(status).status_code == 200
    assert checked.get(checkout).status_code == 200
    assert (
        checked.post(
            checkout, content=b"{not json", headers={"content-type": "application/json"}
        ).status_code
        == 400
    )
    assert checked.post(checkout, data={"action": "fail"}).status_code == 200
    assert checked.post(checkout, json={"action": "pay"}).status_code == 200
    garbage = {"content-type": "application/json"}
    assert checked.post(pay, content=b"iD\xe9X", headers=garbage).status_code == 400
    unknown = pay.split("/")[3]
    assert checked.post(pay.replace(unknown, "pay_unknown"), json={}).status_code == 404
    for page in (status, checkout):
        assert checked.get(page.replace(unknown, "pay_unknown")).status_code == 404
    assert checked.post(checkout.replace(unknown, "pay_unknown"), json={}).status_code == 404


def test_every_documented_answer_of_these_routes_is_served_as_described(
    checked: Checked, state: SandboxState
) -> None:
    _walk_identity(checked, state)
    _walk_card(checked)
    documented = {
        (method.upper(), path, status)
        for (path, method), description in by_hand.ROUTES.items()
        for status in description["responses"]
    }
    assert documented - checked.seen == set()
