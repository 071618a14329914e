"""The agent credential as `svc identity` commands change it: a registration's body, whether
the stored credential is the one asked for, the registration itself (a pending claim kept
when the platform wants one first), and where the secrets are kept."""

from __future__ import annotations

from typing import Any

from svc.api.identity import ID_JAG_TOKEN_TYPE
from svc.context import AppContext
from svc.errors import AuthError
from svc.identity.idjag import check_id_jag
from svc.identity.session import credential_from
from svc.identity.store import Credential

__all__ = [
    "Credential",
    "asks_for",
    "id_jag_body",
    "id_jag_email",
    "register",
    "status_document",
    "store_name",
]


def id_jag_body(assertion: str) -> dict[str, Any]:
    """The registration body of an ID-JAG, checked first (a malformed one is a usage error)."""
    check_id_jag(assertion)
    return {
        "type": "identity_assertion",
        "assertion_type": ID_JAG_TOKEN_TYPE,
        "assertion": assertion,
    }


def id_jag_email(body: dict[str, Any]) -> str | None:
    """The person an ID-JAG registration names (its `email` claim), else None."""
    if body["type"] != "identity_assertion":
        return None
    email = check_id_jag(str(body["assertion"]), now=0).get("email")
    return str(email) if email else None


def asks_for(stored: Credential, body: dict[str, Any]) -> bool:
    """Whether the registration asked for is the stored one: the same kind, for the same
    person (an ID-JAG names its person in its `email` claim)."""
    if body["type"] != stored.type:
        return False
    if body["type"] == "anonymous":
        return True
    wanted = body.get("login_hint") or id_jag_email(body) or ""
    return wanted.casefold() == (stored.email or "").casefold() != ""


def register(app: AppContext, body: dict[str, Any], email: str | None) -> Credential:
    """Register `body` with the identity platform and store the credential it gives."""
    session = app.identity
    platform = session.platform
    try:
        doc = platform.register(body)
    except AuthError as exc:
        if exc.code == "interaction_required" and isinstance(exc.body, dict):
            _keep_pending_claim(app, exc.body, body)
        raise
    cred = credential_from(doc, app.settings.auth_base, platform.endpoints())
    if email and not cred.email:
        cred.email = email.strip()  # the login hint the claim must use
    session.save(cred, crash_after="register_persisted")
    return cred


def _keep_pending_claim(app: AppContext, body: dict[str, Any], sent: dict[str, Any]) -> None:
    """interaction_required: keep the claim it carries so `svc identity claim` can finish."""
    claim = body.get("claim")
    if not isinstance(claim, dict) or not isinstance(body.get("id"), str):
        return
    email = check_id_jag(str(sent["assertion"]), now=0).get("email")
    session = app.identity
    doc = {"id": body["id"], "type": body.get("type", "identity_assertion"), "claim": claim}
    cred = credential_from(doc, app.settings.auth_base, session.platform.endpoints())
    cred.email = str(email) if email else None
    session.save(cred, crash_after="register_persisted")


def store_name(app: AppContext) -> str:
    """Where the secrets are kept (the keyring's name, or the file)."""
    return str(app.secrets.backend.name)


def status_document(app: AppContext, cred: Credential | None, **extra: Any) -> dict[str, Any]:
    """What may be shown about a credential (`svc identity status --json`, the Client's
    IdentityStatus): its kind, person, claim and expiries, never a secret."""
    doc: dict[str, Any] = {"registered": cred is not None, "auth_base": app.settings.auth_base}
    if cred is not None:
        doc |= {
            "id": cred.id,
            "type": cred.type,
            "claimed": cred.claimed,
            "email": cred.email,
            "pending_claim": cred.pending_claim,
            "has_assertion": cred.assertion is not None,
            "has_refresh_token": cred.refresh_token is not None,
            "expires_at": cred.expires_at,
            "assertion_expires_at": cred.assertion_expires_at,
            "refresh_token_expires_at": cred.refresh_expires_at,
            "claim_expires_at": cred.claim_expires_at if cred.pending_claim else None,
            "store": store_name(app),
        }
    return doc | extra
