"""One process's view of the agent credential: load it, exchange it, rotate it, persist first.

Access tokens live in this object only (never written anywhere). Each answer that hands out
something single-use (a rotated refresh token, a claimed identity) is written to the store
before anything else happens with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from svc.api.identity import IdentityPlatform
from svc.errors import REGISTER_AGAIN, REPLACE_CREDENTIAL, AuthError, ProtocolError, Unavailable
from svc.identity.store import Credential, CredentialStore


def credential_from(
    doc: dict[str, Any],
    auth_base: str,
    endpoints: dict[str, str],
    previous: Credential | None = None,
) -> Credential:
    """A Credential from a registration, refresh or claim answer (secrets included)."""
    if not isinstance(doc.get("id"), str) or not isinstance(doc.get("type"), str):
        raise ProtocolError("the identity platform's answer has no id/type")
    identity = doc.get("identity") if isinstance(doc.get("identity"), dict) else None
    claim = doc.get("claim") if isinstance(doc.get("claim"), dict) else None
    refresh = identity.get("refresh_token") if identity else None
    keep = previous if previous is not None and previous.id == doc["id"] else None
    claimed = bool(doc.get("claimed", bool(refresh)))
    credential = Credential(
        auth_base=auth_base,
        id=doc["id"],
        type=doc["type"],
        claimed=claimed,
        email=doc.get("email") or (keep.email if keep else None),
        expires_at=doc.get("expires_at"),
        endpoints=endpoints,
    )
    if identity is not None:
        credential.assertion = identity.get("assertion")
        credential.assertion_expires_at = identity.get("expires_at")
    if isinstance(refresh, dict):
        credential.refresh_token = refresh.get("value")
        credential.refresh_expires_at = refresh.get("expires_at")
    if claim is not None and not claimed:
        credential.claim_token = claim.get("token")
        credential.claim_expires_at = claim.get("expires_at")
    elif keep is not None and not claimed:
        credential.claim_token = keep.claim_token
        credential.claim_expires_at = keep.claim_expires_at
    return credential


class IdentitySession:
    def __init__(
        self,
        store: CredentialStore,
        platform_factory: Callable[[dict[str, str]], IdentityPlatform],
    ) -> None:
        self.store = store
        self._platform_factory = platform_factory
        self._platform: IdentityPlatform | None = None
        self._credential: Credential | None = None
        self._loaded = False
        self._access: str | None = None

    # --- state ----------------------------------------------------------------------------

    def credential(self) -> Credential | None:
        if not self._loaded:
            self._credential = self.store.load()
            self._loaded = True
        return self._credential

    @property
    def platform(self) -> IdentityPlatform:
        if self._platform is None:
            cred = self.credential()
            self._platform = self._platform_factory(dict(cred.endpoints) if cred else {})
        return self._platform

    def save(self, credential: Credential, crash_after: str | None = None) -> None:
        """Persist first (the answer may be single-use), then adopt it in memory."""
        if not credential.endpoints:
            credential.endpoints = self.platform.endpoints()
        self.store.save(credential, crash_after)
        self._credential = credential
        self._loaded = True
        self._access = None

    def forget(self) -> bool:
        self._access = None
        self._credential = None
        self._loaded = True
        return self.store.delete()

    # --- tokens ---------------------------------------------------------------------------

    def access_token(self) -> str | None:
        """A bearer for this process (exchanging once), or None when no credential can give one."""
        if self._access is None:
            cred = self.credential()
            if cred is None or cred.assertion is None:
                return None
            self._access = self.exchange()
        return self._access

    def exchange(self) -> str:
        """Exchange the stored assertion; if it expired or was revoked, refresh and retry once."""
        cred = self.credential()
        if cred is None or cred.assertion is None:
            raise AuthError(
                "no agent credential is stored",
                code="no_credential",
                hint="register one: svc identity register",
            )
        try:
            doc = self.platform.exchange(cred.assertion)
        except AuthError as exc:
            if exc.code != "invalid_grant":
                raise
            if cred.refresh_token is None:
                raise AuthError(
                    "the stored agent credential expired or was revoked and has no refresh token",
                    code="invalid_grant",
                    status=exc.status,
                    next=REPLACE_CREDENTIAL,  # a new one, or log out: as `svc doctor` says
                ) from None
            self.refresh()
            cred = self.credential()
            assert cred is not None and cred.assertion is not None
            doc = self.platform.exchange(cred.assertion)
        self._access = str(doc["access_token"])
        return self._access

    def refresh(self) -> Credential:
        """Rotate with the refresh token; the new one is stored before it is used for anything."""
        cred = self.credential()
        if cred is None or cred.refresh_token is None:
            raise AuthError(
                "there is no refresh token to rotate (only claimed credentials have one)",
                code="no_refresh_token",
                hint="claim it (svc identity claim) or " + REGISTER_AGAIN,
            )
        try:
            doc = self.platform.refresh(cred.refresh_token)
        except Unavailable as exc:
            exc.hint = (
                "the refresh token may have been spent on the lost answer; if the next "
                "`svc identity refresh` fails, " + REGISTER_AGAIN
            )
            raise
        fresh = credential_from(doc, cred.auth_base, cred.endpoints, previous=cred)
        self.save(fresh, crash_after="refresh_persisted")
        return fresh
