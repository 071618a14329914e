"""The client's identity parts on their own: bearer placement and healing, the composite with a
payment step, the credential store's write order, and the local ID-JAG check."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Generator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pytest_httpx import HTTPXMock

from svc.api.http import Http
from svc.api.identity import IdentityPlatform
from svc.api.retry import RetryPolicy
from svc.errors import AuthError
from svc.identity.agent_auth import AgentAuth
from svc.identity.bearer import AGENT_HEADER, BearerAuth
from svc.identity.idjag import check_id_jag
from svc.identity.session import IdentitySession
from svc.identity.store import Credential, CredentialStore, has_credential
from svc.next_words import cli as cli_words
from svc.store.secrets import FileBackend, SecretStore

AUTH = "https://auth.test/auth"  # https: no credential goes over cleartext (29.4)
TASKS = "https://svc.test/svc/tasks"
ENDPOINTS = {
    "registration": f"{AUTH}/agent/identity",
    "claim": f"{AUTH}/agent/identity/claim",
    "claim_complete": f"{AUTH}/agent/identity/claim/complete",
    "entitlements": f"{AUTH}/agent/entitlements",
    "token": f"{AUTH}/oauth2/token",
}


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SVC_CONFIG_DIR", str(tmp_path))
    return tmp_path


def session_with(config_dir: Path, **secrets: str | None) -> IdentitySession:
    store = CredentialStore(SecretStore(FileBackend(config_dir / "secrets.json")), AUTH)
    cred = Credential(AUTH, "agt_1", "identity_assertion", claimed=True, endpoints=ENDPOINTS)
    cred.assertion = secrets.get("assertion", "assertion-1")
    cred.refresh_token = secrets.get("refresh_token", "rt-1")
    store.save(cred)
    http = Http(retry=RetryPolicy(attempts=1), sleep=lambda _s: None)
    return IdentitySession(store, lambda ep: IdentityPlatform(http, AUTH, ep))


def token_reply(httpx_mock: HTTPXMock, token: str) -> None:
    httpx_mock.add_response(
        url=f"{AUTH}/oauth2/token",
        json={"access_token": token, "token_type": "Bearer", "expires_in": 300},
    )


def invalid(reason: str) -> dict[str, Any]:
    return {"status_code": 401, "json": {"error": "invalid_token", "reason": reason}}


SEEN: list[dict[str, str]] = []


def task_reply(httpx_mock: HTTPXMock, status_code: int = 200, json: Any = None) -> None:
    """A reply to the task call that records the headers as sent (the request is reused)."""

    def reply(request: httpx.Request) -> httpx.Response:
        SEEN.append(dict(request.headers))
        return httpx.Response(status_code, json=json if json is not None else {})

    httpx_mock.add_callback(reply, url=TASKS)


@pytest.fixture(autouse=True)
def _fresh_seen() -> None:
    SEEN.clear()


def send(auth: httpx.Auth, method: str = "GET") -> httpx.Response:
    with httpx.Client() as client:
        return client.request(method, TASKS, auth=auth)


# --- the bearer step ------------------------------------------------------------------------


def test_bearer_goes_in_authorization(config_dir: Path, httpx_mock: HTTPXMock) -> None:
    token_reply(httpx_mock, "at-1")
    task_reply(httpx_mock, json={})
    assert send(BearerAuth(session_with(config_dir))).status_code == 200
    sent = SEEN[0]
    assert sent["authorization"] == "Bearer at-1" and AGENT_HEADER not in sent
    exchange = httpx_mock.get_requests(url=f"{AUTH}/oauth2/token")[0]
    assert b"assertion=assertion-1" in exchange.content
    assert b"grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer" in exchange.content


def test_expired_token_is_reexchanged_once(config_dir: Path, httpx_mock: HTTPXMock) -> None:
    token_reply(httpx_mock, "at-1")
    task_reply(httpx_mock, **invalid("token_expired"))
    token_reply(httpx_mock, "at-2")
    task_reply(httpx_mock, json={})
    assert send(BearerAuth(session_with(config_dir))).status_code == 200
    tokens = [h["authorization"] for h in SEEN]
    assert tokens == ["Bearer at-1", "Bearer at-2"]


def test_then_refresh_then_give_up_with_register(config_dir: Path, httpx_mock: HTTPXMock) -> None:
    session = session_with(config_dir)
    token_reply(httpx_mock, "at-1")
    task_reply(httpx_mock, **invalid("token_invalid"))
    token_reply(httpx_mock, "at-2")
    task_reply(httpx_mock, **invalid("token_invalid"))
    httpx_mock.add_response(
        url=f"{AUTH}/agent/identity",
        json={
            "id": "agt_1",
            "type": "identity_assertion",
            "claimed": True,
            "identity": {"assertion": "assertion-2", "refresh_token": {"value": "rt-2"}},
        },
    )
    token_reply(httpx_mock, "at-3")
    task_reply(httpx_mock, **invalid("token_invalid"))
    with pytest.raises(AuthError) as caught:
        send(BearerAuth(session))
    assert caught.value.exit_code == 4
    # Both ways out as data (issue 52): a new credential, or log out; each face words them.
    assert caught.value.next is not None and caught.value.next.action == "replace_identity"
    cli_words.present(caught.value)
    hint = caught.value.hint or ""
    assert "svc identity register --force" in hint and "svc identity logout" in hint
    refresh = json.loads(httpx_mock.get_requests(url=f"{AUTH}/agent/identity")[0].content)
    assert refresh == {"type": "refresh", "refresh_token": "rt-1"}
    stored = session.store.load()
    assert stored is not None and stored.refresh_token == "rt-2"  # rotated and kept


def test_revoked_assertion_refreshes_before_exchanging(
    config_dir: Path, httpx_mock: HTTPXMock
) -> None:
    session = session_with(config_dir)
    httpx_mock.add_response(
        url=f"{AUTH}/oauth2/token", status_code=400, json={"error": "invalid_grant"}
    )
    httpx_mock.add_response(
        url=f"{AUTH}/agent/identity",
        json={
            "id": "agt_1",
            "type": "identity_assertion",
            "claimed": True,
            "identity": {"assertion": "assertion-2", "refresh_token": {"value": "rt-2"}},
        },
    )
    token_reply(httpx_mock, "at-9")
    assert session.access_token() == "at-9"
    exchanges = httpx_mock.get_requests(url=f"{AUTH}/oauth2/token")
    assert b"assertion=assertion-2" in exchanges[1].content


def test_placement_refusals_are_not_retried(config_dir: Path, httpx_mock: HTTPXMock) -> None:
    token_reply(httpx_mock, "at-1")
    task_reply(httpx_mock, **invalid("conflicting_agent_credentials"))
    assert send(BearerAuth(session_with(config_dir))).status_code == 401
    assert len(SEEN) == 1


# --- composed with a payment step -------------------------------------------------------------


class FakePayment(httpx.Auth):
    """Pays a 402 with `Authorization: Payment ...`, as the MPP rail does."""

    requires_response_body = True

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        response = yield request
        if response.status_code == 402:
            request.headers["Authorization"] = "Payment cred-1"
            yield request


def test_payment_credential_moves_the_bearer_to_its_own_header(
    config_dir: Path, httpx_mock: HTTPXMock
) -> None:
    token_reply(httpx_mock, "at-1")
    task_reply(httpx_mock, status_code=402, json={"error": "payment_required"})
    task_reply(httpx_mock, status_code=202, json={})
    auth = AgentAuth(BearerAuth(session_with(config_dir)), FakePayment())
    assert send(auth, "POST").status_code == 202
    first, paid = SEEN
    assert first["authorization"] == "Bearer at-1" and AGENT_HEADER not in first
    assert paid["authorization"] == "Payment cred-1"
    assert paid[AGENT_HEADER] == "Bearer at-1"


def test_composite_heals_a_401_and_still_pays(config_dir: Path, httpx_mock: HTTPXMock) -> None:
    token_reply(httpx_mock, "at-1")
    task_reply(httpx_mock, **invalid("token_expired"))
    token_reply(httpx_mock, "at-2")
    task_reply(httpx_mock, status_code=402, json={"error": "payment_required"})
    task_reply(httpx_mock, status_code=202, json={})
    auth = AgentAuth(BearerAuth(session_with(config_dir)), FakePayment())
    assert send(auth, "POST").status_code == 202
    assert SEEN[-1][AGENT_HEADER] == "Bearer at-2"
    assert SEEN[-1]["authorization"] == "Payment cred-1"


# --- the store --------------------------------------------------------------------------------


def test_store_keeps_secrets_out_of_the_marker(config_dir: Path) -> None:
    assert not has_credential(AUTH)
    session_with(config_dir, assertion="SECRET-A", refresh_token="SECRET-R")
    assert has_credential(AUTH)
    marker = (config_dir / "identity.json").read_text()
    assert "SECRET" not in marker and '"claimed": true' in marker
    assert oct((config_dir / "identity.json").stat().st_mode & 0o777) == "0o600"


def test_store_repairs_a_marker_lost_between_the_two_writes(config_dir: Path) -> None:
    session = session_with(config_dir)
    (config_dir / "identity.json").unlink()  # as if the process died after the secret write
    assert not has_credential(AUTH)
    assert session.store.load() is not None
    assert has_credential(AUTH)


def test_marker_without_secrets_is_dropped(config_dir: Path) -> None:
    session = session_with(config_dir)
    (config_dir / "secrets.json").write_text("{}")
    assert session.store.load() is None
    assert not has_credential(AUTH)


# --- the local ID-JAG check -------------------------------------------------------------------


def jwt(header: dict[str, Any], claims: dict[str, Any]) -> str:
    def seg(doc: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).rstrip(b"=").decode()

    return f"{seg(header)}.{seg(claims)}.c2ln"


# Far from now, so collection time never makes it stale; `expired` cases set exp explicitly.
GOOD = {
    "iss": "https://idp.test",
    "aud": AUTH,
    "jti": "j1",
    "exp": time.time() + 10 * 365 * 86400,
    "email": "a@example.com",
    "email_verified": True,
    "auth_time": time.time() - 60,
}


@pytest.mark.parametrize(
    ("token", "code"),
    [
        ("not-a-jwt", "invalid_request"),
        (jwt({"typ": "JWT"}, GOOD), "invalid_request"),
        (jwt({"typ": "oauth-id-jag+jwt"}, {**GOOD, "jti": ""}), "invalid_request"),
        (
            jwt({"typ": "oauth-id-jag+jwt"}, {**GOOD, "email_verified": False}),
            "missing_verified_email",
        ),
        (jwt({"typ": "oauth-id-jag+jwt"}, {**GOOD, "auth_time": None}), "login_required"),
        (jwt({"typ": "oauth-id-jag+jwt"}, {**GOOD, "exp": 1_000_000}), "expired"),
    ],
)
def test_local_id_jag_check(token: str, code: str) -> None:
    with pytest.raises(AuthError) as caught:
        check_id_jag(token)
    assert caught.value.code == code and caught.value.exit_code == 4


def test_local_id_jag_check_passes_a_plausible_one() -> None:
    assert check_id_jag(jwt({"typ": "oauth-id-jag+jwt"}, GOOD))["email"] == "a@example.com"
