"""The sandbox's identity platform: registration, ID-JAG checks, claim page, tokens, bearers."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from eth_account.signers.local import LocalAccount
from fastapi.testclient import TestClient
from sandbox_proofs import BODY, sign_proof

from svc_sandbox.state.sandbox import SandboxState

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG = "urn:ietf:params:oauth:token-type:id-jag"


def email() -> str:
    return f"person-{uuid.uuid4().hex[:8]}@example.com"


def register(client: TestClient, **body: Any) -> Any:
    return client.post("/auth/agent/identity", json=body)


def mint(client: TestClient, address: str, **overrides: Any) -> str:
    response = client.post("/_sandbox/identity/id-jag", json={"email": address, **overrides})
    assert response.status_code == 200, response.text
    return str(response.json()["assertion"])


def register_jag(client: TestClient, assertion: str) -> Any:
    return register(client, type="identity_assertion", assertion_type=ID_JAG, assertion=assertion)


def exchange(client: TestClient, assertion: str) -> Any:
    return client.post(
        "/auth/oauth2/token", data={"grant_type": JWT_BEARER, "assertion": assertion}
    )


def access_token(client: TestClient, assertion: str) -> str:
    response = exchange(client, assertion)
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def error_of(response: Any) -> tuple[int, str, str | None]:
    body = response.json()
    return response.status_code, body["error"], body.get("reason")


class Person:
    """Drives the verification page over HTTP the way a person in a browser would."""

    def __init__(self, client: TestClient, link: str) -> None:
        self.client = client
        self.path = re.sub(r"^https?://[^/]+", "", link)

    def page(self) -> str:
        response = self.client.get(self.path)
        return response.text

    def sign_in(self) -> str:
        page = self.page()
        action = re.search(r'<form method="post" action="([^"]+/sign-in)"', page)
        assert action, page
        hint = re.search(r'name="email" value="([^"]+)"', page)
        assert hint
        response = self.client.post(action.group(1), data={"email": hint.group(1)})
        code = re.search(r'<code id="user-code">([A-Z-]+)</code>', response.text)
        assert code, response.text
        return code.group(1)

    def decide(self, decision: str) -> str:
        page = self.page()
        action = re.search(r'<form method="post" action="([^"]+/decision)"', page)
        assert action, page
        return self.client.post(action.group(1), data={"decision": decision}).text


def service_auth_claim(client: TestClient, address: str | None = None) -> tuple[str, str]:
    """(claim token, login hint) of a fresh service_auth registration."""
    address = address or email()
    response = register(client, type="service_auth", login_hint=address)
    assert response.status_code == 201, response.text
    doc = response.json()
    assert doc["identity"] is None and doc["claimed"] is False
    return doc["claim"]["token"], address


def new_link(client: TestClient, token: str, address: str) -> str:
    response = client.post(
        "/auth/agent/identity/claim",
        json={"type": "service_auth", "claim_token": token, "login_hint": address},
    )
    assert response.status_code == 201, response.text
    return str(response.json()["attempt"]["verification_uri"])


def complete(client: TestClient, token: str, code: str) -> Any:
    return client.post(
        "/auth/agent/identity/claim/complete", json={"claim_token": token, "user_code": code}
    )


# --- discovery ---------------------------------------------------------------------------------


def test_discovery_documents_list_the_agent_auth_endpoints(client: TestClient) -> None:
    server = client.get("/auth/.well-known/oauth-authorization-server").json()
    base = "http://testserver/auth"
    assert server["issuer"] == base
    assert server["token_endpoint"] == f"{base}/oauth2/token"
    assert server["agent_auth"]["registration_endpoint"] == f"{base}/agent/identity"
    assert server["agent_auth"]["claim_endpoint"] == f"{base}/agent/identity/claim"
    assert server["agent_auth"]["claim_completion_endpoint"].endswith("/claim/complete")
    assert server["agent_auth"]["entitlements_endpoint"] == f"{base}/agent/entitlements"
    resource = client.get("/auth/.well-known/oauth-protected-resource").json()
    assert resource["authorization_servers"] == [base]


# --- registration --------------------------------------------------------------------------------


def test_anonymous_credential_exchanges_for_a_bearer_that_reads_entitlements(
    client: TestClient,
) -> None:
    doc = register(client, type="anonymous").json()
    assert doc["type"] == "anonymous" and doc["claimed"] is False
    assert "refresh_token" not in doc["identity"] and doc["claim"]["token"]
    token = access_token(client, doc["identity"]["assertion"])
    ents = client.get("/auth/agent/entitlements", headers={"Authorization": f"Bearer {token}"})
    assert ents.status_code == 200
    assert ents.json()["credential"] == doc["id"] and ents.json()["claimed"] is False


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"type": "nope"}, "invalid_request"),
        ({"type": "service_auth", "login_hint": "not-an-email"}, "invalid_login_hint"),
        ({"type": "identity_assertion", "assertion": "x.y.z"}, "invalid_request"),
        ({"type": "refresh"}, "invalid_request"),
    ],
)
def test_bad_registrations_are_refused(client: TestClient, body: dict[str, Any], code: str) -> None:
    response = register(client, **body)
    assert error_of(response)[:2] == (400, code)


@pytest.mark.parametrize(
    ("switch", "kind", "code"),
    [
        ("anonymous_registration", "anonymous", "anonymous_registration_disabled"),
        ("service_auth_registration", "service_auth", "service_auth_registration_disabled"),
    ],
)
def test_registration_types_can_be_switched_off(
    client: TestClient, switch: str, kind: str, code: str
) -> None:
    client.post("/_sandbox/config", json={switch: False})
    response = register(client, type=kind, login_hint=email())
    assert error_of(response)[:2] == (403, code)


def test_id_jag_registration_is_born_claimed_with_a_refresh_token(client: TestClient) -> None:
    address = email()
    response = register_jag(client, mint(client, address))
    assert response.status_code == 201, response.text
    doc = response.json()
    assert doc["claimed"] is True and doc["email"] == address
    assert doc["identity"]["refresh_token"]["value"].startswith("rt_")


@pytest.mark.parametrize(
    ("overrides", "status", "code"),
    [
        ({"issuer": "untrusted"}, 400, "issuer_not_enabled"),
        ({"bad_signature": True}, 400, "invalid_signature"),
        ({"aud": "https://elsewhere.example"}, 400, "invalid_audience"),
        ({"exp_seconds": -5}, 400, "expired"),
        ({"exp_seconds": 3600}, 400, "invalid_request"),
        ({"email_verified": False}, 400, "missing_verified_email"),
        ({"auth_age_seconds": 31 * 86400}, 401, "login_required"),
        ({"typ": "JWT"}, 400, "invalid_request"),
    ],
)
def test_id_jag_checks(
    client: TestClient, overrides: dict[str, Any], status: int, code: str
) -> None:
    response = register_jag(client, mint(client, email(), **overrides))
    assert error_of(response)[:2] == (status, code)


def test_the_storefront_resource_is_an_accepted_audience_too(client: TestClient) -> None:
    response = register_jag(client, mint(client, email(), aud="http://testserver"))
    assert response.status_code == 201


def test_an_id_jag_is_single_use(client: TestClient) -> None:
    assertion = mint(client, email())
    assert register_jag(client, assertion).status_code == 201
    assert error_of(register_jag(client, assertion))[:2] == (400, "replay_detected")


def test_id_jag_for_an_account_made_elsewhere_requires_interaction(client: TestClient) -> None:
    token, address = service_auth_claim(client)
    person = Person(client, new_link(client, token, address))
    code = person.sign_in()
    person.decide("approve")
    assert complete(client, token, code).status_code == 200

    response = register_jag(client, mint(client, address))
    status, error, _ = error_of(response)
    assert (status, error) == (401, "interaction_required")
    claim = response.json()["claim"]
    person = Person(client, claim["attempt"]["verification_uri"])
    code = person.sign_in()
    person.decide("approve")
    linked = complete(client, claim["token"], code)
    assert linked.status_code == 200 and linked.json()["claimed"] is True
    # linked now: the same provider's next assertion is born claimed
    assert register_jag(client, mint(client, address)).status_code == 201


# --- the claim ceremony ----------------------------------------------------------------------


def test_claim_ceremony_through_the_page(client: TestClient) -> None:
    token, address = service_auth_claim(client)
    person = Person(client, new_link(client, token, address))
    first = person.page()
    assert "Sign in" in first and address in first and "user-code" not in first
    code = person.sign_in()
    assert error_of(complete(client, token, code))[:2] == (400, "claim_not_confirmed")
    assert "Confirmed" in person.decide("approve")
    done = complete(client, token, code)
    assert done.status_code == 200, done.text
    doc = done.json()
    assert doc["claimed"] is True and doc["email"] == address
    assert doc["identity"]["refresh_token"]["value"]
    # delivered exactly once
    assert error_of(complete(client, token, code))[:2] == (409, "already_claimed")
    bearer = access_token(client, doc["identity"]["assertion"])
    ents = client.get("/auth/agent/entitlements", headers={"Authorization": f"Bearer {bearer}"})
    assert ents.json()["claimed"] is True
    assert any(p["plan_id"] == "included" for p in ents.json()["plans"])


def test_claim_errors(client: TestClient, state: SandboxState) -> None:
    token, address = service_auth_claim(client)
    link = new_link(client, token, address)
    person = Person(client, link)
    code = person.sign_in()
    assert error_of(complete(client, token, "BBBB-BBBB"))[:2] == (400, "invalid_user_code")
    person.decide("deny")
    assert error_of(complete(client, token, code))[:2] == (403, "claim_denied")

    second = Person(client, new_link(client, token, address))
    code2 = second.sign_in()
    state.clock.advance(301)
    assert error_of(complete(client, token, code2))[:2] == (400, "user_code_expired")
    assert client.get(second.path).status_code == 410

    state.clock.advance(3600)
    assert error_of(complete(client, token, code2))[:2] == (400, "claim_expired")
    unknown = complete(client, "clm_nope", code2)
    assert error_of(unknown)[:2] == (400, "invalid_claim_token")


def test_too_many_pending_links(client: TestClient) -> None:
    token, address = service_auth_claim(client)
    for _ in range(3):
        new_link(client, token, address)
    response = client.post(
        "/auth/agent/identity/claim",
        json={"type": "service_auth", "claim_token": token, "login_hint": address},
    )
    assert error_of(response)[:2] == (429, "too_many_attempts")
    assert int(response.headers["Retry-After"]) > 0


@pytest.mark.parametrize("hint", ["me+agents@example.com", "someone-else@example.com"])
def test_claim_refuses_plus_aliases_and_other_people(client: TestClient, hint: str) -> None:
    token, _ = service_auth_claim(client)
    response = client.post(
        "/auth/agent/identity/claim",
        json={"type": "service_auth", "claim_token": token, "login_hint": hint},
    )
    assert error_of(response)[:2] == (400, "invalid_login_hint")
    if "+" in hint:
        assert "plus-aliased" in response.json()["detail"]


def test_anonymous_credential_can_be_claimed_by_any_plain_address(client: TestClient) -> None:
    doc = register(client, type="anonymous").json()
    address = email()
    person = Person(client, new_link(client, doc["claim"]["token"], address))
    code = person.sign_in()
    person.decide("approve")
    claimed = complete(client, doc["claim"]["token"], code).json()
    assert claimed["id"] == doc["id"] and claimed["email"] == address
    assert "expires_at" not in claimed  # a claimed credential no longer dies after days
    # the pre-claim assertion is revoked: it does not carry the user link
    assert error_of(exchange(client, doc["identity"]["assertion"]))[:2] == (400, "invalid_grant")


# --- tokens ------------------------------------------------------------------------------------


def test_refresh_rotates_and_the_old_token_is_refused(client: TestClient) -> None:
    doc = register_jag(client, mint(client, email())).json()
    old_refresh = doc["identity"]["refresh_token"]["value"]
    rotated = register(client, type="refresh", refresh_token=old_refresh)
    assert rotated.status_code == 200
    new = rotated.json()["identity"]
    assert new["refresh_token"]["value"] != old_refresh
    again = register(client, type="refresh", refresh_token=old_refresh)
    assert error_of(again)[:2] == (400, "invalid_refresh_token")
    assert error_of(exchange(client, doc["identity"]["assertion"]))[:2] == (400, "invalid_grant")
    assert exchange(client, new["assertion"]).status_code == 200


def test_exchange_errors(client: TestClient, state: SandboxState) -> None:
    assertion = register(client, type="anonymous").json()["identity"]["assertion"]
    wrong_grant = client.post(
        "/auth/oauth2/token", data={"grant_type": "password", "assertion": assertion}
    )
    assert error_of(wrong_grant)[:2] == (400, "unsupported_grant_type")
    assert error_of(exchange(client, "garbage"))[:2] == (400, "invalid_request")
    foreign = mint(client, email())  # a JWT, but not issued by the platform
    assert error_of(exchange(client, foreign))[:2] == (400, "invalid_grant")
    state.clock.advance(3601)
    assert error_of(exchange(client, assertion))[:2] == (400, "invalid_grant")


def test_access_tokens_expire_on_the_sandbox_clock(client: TestClient, state: SandboxState) -> None:
    token = access_token(client, register(client, type="anonymous").json()["identity"]["assertion"])
    state.clock.advance(301)
    response = client.get("/auth/agent/entitlements", headers={"Authorization": f"Bearer {token}"})
    assert error_of(response) == (401, "invalid_token", "token_expired")
    missing = client.get("/auth/agent/entitlements")
    assert error_of(missing)[:2] == (401, "bearer_required")


# --- bearers on the task endpoints --------------------------------------------------------------


@pytest.fixture
def bearer(client: TestClient) -> Callable[[], tuple[str, str]]:
    def _new() -> tuple[str, str]:
        doc = register(client, type="anonymous").json()
        return doc["id"], access_token(client, doc["identity"]["assertion"])

    return _new


def test_require_bearer_makes_submit_answer_bearer_required(
    client: TestClient, payer: LocalAccount, bearer: Callable[[], tuple[str, str]]
) -> None:
    client.post("/_sandbox/config", json={"require_bearer": True})
    response = client.post("/svc/tasks", json=BODY)
    assert error_of(response)[:2] == (401, "bearer_required")
    _, token = bearer()
    challenged = client.post("/svc/tasks", json=BODY, headers={"Authorization": f"Bearer {token}"})
    assert challenged.status_code == 402
    paid = client.post(
        "/svc/tasks",
        json=BODY,
        headers={"Authorization": f"Bearer {token}", "x-payment": sign_proof(payer)},
    )
    assert paid.status_code == 202


def test_bearer_beside_a_payment_credential_scopes_the_task(
    client: TestClient, payer: LocalAccount, bearer: Callable[[], tuple[str, str]]
) -> None:
    agent, token = bearer()
    paid = client.post(
        "/svc/tasks",
        json=BODY,
        headers={
            "Authorization": "Payment eyJmYWtlIjp0cnVlfQ",
            "svc-agent-authorization": f"Bearer {token}",
            "x-payment": sign_proof(payer),
        },
    )
    assert paid.status_code == 202, paid.text
    task_id = paid.json()["id"]
    assert task_id in client.get(f"/_sandbox/identity/agents/{agent}").json()["tasks"]
    mine = client.get(f"/svc/tasks/{task_id}", headers={"Authorization": f"Bearer {token}"})
    assert mine.status_code == 200
    _, other = bearer()
    theirs = client.get(f"/svc/tasks/{task_id}", headers={"Authorization": f"Bearer {other}"})
    assert theirs.status_code == 404


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({"Authorization": "Bearer nothing-we-issued"}, "unrecognized_agent_credential"),
        ({"Authorization": "Bearer svcat_forged"}, "token_invalid"),
        ({"svc-agent-authorization": "Bearer a b"}, "malformed_agent_authorization"),
        ({"svc-agent-authorization": "Basic abc"}, "malformed_agent_authorization"),
        ({"Authorization": "Payment abc, Bearer svcat_x"}, "combined_authorization_unsupported"),
    ],
)
def test_bad_bearers_on_task_endpoints(
    client: TestClient, headers: dict[str, str], reason: str
) -> None:
    response = client.post("/svc/tasks", json=BODY, headers=headers)
    assert error_of(response) == (401, "invalid_token", reason)


def test_two_different_agent_tokens_conflict(
    client: TestClient, bearer: Callable[[], tuple[str, str]]
) -> None:
    _, one = bearer()
    _, two = bearer()
    headers = {"Authorization": f"Bearer {one}", "svc-agent-authorization": f"Bearer {two}"}
    response = client.get("/svc/tasks/task_x", headers=headers)
    assert error_of(response) == (401, "invalid_token", "conflicting_agent_credentials")
    same = {"Authorization": f"Bearer {one}", "svc-agent-authorization": f"Bearer {one}"}
    assert client.get("/svc/tasks/task_x", headers=same).status_code == 404


def test_expired_bearer_on_poll_is_token_expired(
    client: TestClient, state: SandboxState, bearer: Callable[[], tuple[str, str]]
) -> None:
    _, token = bearer()
    state.clock.advance(301)
    response = client.get("/svc/tasks/task_x", headers={"Authorization": f"Bearer {token}"})
    assert error_of(response) == (401, "invalid_token", "token_expired")
