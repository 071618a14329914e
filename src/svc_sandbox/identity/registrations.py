"""Registering agents (anonymous, service_auth, an ID-JAG assertion) and refreshing them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from svc_sandbox.identity import jose
from svc_sandbox.identity.store import (
    ANONYMOUS_TTL,
    CLAIM_TTL,
    CLOCK_SKEW,
    EMAIL_PATTERN,
    ID_JAG_MAX_AHEAD,
    ID_JAG_MAX_AUTH_AGE,
    ID_JAG_TOKEN_TYPE,
    ID_JAG_TYP,
    TRUSTED_ISSUERS,
    Account,
    IdentityError,
    IdentityStore,
    attempt_doc,
    normalise_email,
)
from svc_sandbox.state.records import iso


@dataclass(frozen=True)
class Where:
    """What a registration needs to know about the request: who issues, who may be the
    audience of an ID-JAG, and which kinds this sandbox's config allows."""

    issuer: str  # the auth base
    resource: str  # the service's base URL
    now: datetime
    anonymous_allowed: bool = True
    service_auth_allowed: bool = True


KINDS = "anonymous, service_auth, identity_assertion or refresh"


def _string(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    if not isinstance(value, str) or not value:
        raise IdentityError(400, "invalid_request", f"{name} is required")
    return value


class Registrations:
    """The ways an agent gets an identity, and the refresh that renews it."""

    def __init__(self, store: IdentityStore) -> None:
        self.store = store

    def handle(self, body: dict[str, Any], where: Where) -> tuple[dict[str, Any], int]:
        """POST /agent/identity: the body's `type` decides the kind; (document, status)."""
        kind = body.get("type")
        if kind == "anonymous":
            if not where.anonymous_allowed:
                raise IdentityError(
                    403, "anonymous_registration_disabled", "anonymous registration is off here"
                )
            return self.register_anonymous(where.now, where.issuer), 201
        if kind == "service_auth":
            if not where.service_auth_allowed:
                raise IdentityError(
                    403,
                    "service_auth_registration_disabled",
                    "service_auth registration is off here",
                )
            hint = body.get("login_hint")
            if not isinstance(hint, str):
                raise IdentityError(400, "invalid_login_hint", "login_hint (an e-mail) is required")
            return self.register_service_auth(hint, where.now), 201
        if kind == "identity_assertion":
            return self._assertion(body, where), 201
        if kind == "refresh":
            return self.refresh(_string(body, "refresh_token"), where.issuer, where.now), 200
        raise IdentityError(400, "invalid_request", f"type must be {KINDS}")

    def _assertion(self, body: dict[str, Any], where: Where) -> dict[str, Any]:
        if body.get("assertion_type") != ID_JAG_TOKEN_TYPE:
            raise IdentityError(
                400, "invalid_request", f"assertion_type must be {ID_JAG_TOKEN_TYPE}"
            )
        return self.register_assertion(
            _string(body, "assertion"),
            audiences=(where.issuer, where.resource),
            issuer=where.issuer,
            verification_base=where.issuer + "/verify",
            now=where.now,
        )

    def register_anonymous(self, now: datetime, issuer: str) -> dict[str, Any]:
        with self.store.lock:
            agent = self.store.new_agent("anonymous", None, claimed=False, now=now)
            agent.expires_at = now + ANONYMOUS_TTL
            claim = self.store.new_claim(agent, None, agent.expires_at)
            doc = self.store.identity_doc(agent, issuer, now, with_refresh=False)
            doc["claim"] = {"token": claim.token, "expires_at": iso(claim.expires_at)}
            return doc

    def register_service_auth(self, login_hint: str, now: datetime) -> dict[str, Any]:
        if not EMAIL_PATTERN.match(login_hint) or len(login_hint) > 254:
            raise IdentityError(400, "invalid_login_hint", "login_hint must be an e-mail address")
        with self.store.lock:
            agent = self.store.new_agent("service_auth", None, claimed=False, now=now)
            claim = self.store.new_claim(agent, login_hint, now + CLAIM_TTL)
            return {
                "id": agent.id,
                "type": agent.type,
                "claimed": False,
                "identity": None,
                "claim": {"token": claim.token, "expires_at": iso(claim.expires_at)},
            }

    def register_assertion(
        self,
        token: str,
        *,
        audiences: tuple[str, ...],
        issuer: str,
        verification_base: str,
        now: datetime,
    ) -> dict[str, Any]:
        claims, iss = self._verify_id_jag(token, audiences, now)
        email = str(claims["email"])
        with self.store.lock:
            jti = str(claims["jti"])
            if jti in self.store.seen_jti:
                raise IdentityError(
                    400,
                    "replay_detected",
                    "this assertion's jti was already used; mint a fresh one",
                )
            self.store.seen_jti.add(jti)
            account = self.store.accounts.get(normalise_email(email))
            if account is not None and iss not in account.issuers:
                agent = self.store.new_agent("identity_assertion", None, claimed=False, now=now)
                claim = self.store.new_claim(agent, email, now + CLAIM_TTL)
                claim.link_issuer = iss
                attempt = self.store.new_attempt(claim, email, verification_base, now)
                raise IdentityError(
                    401,
                    "interaction_required",
                    "an account already exists for this e-mail; the person must confirm the "
                    "link by completing the claim",
                    id=agent.id,
                    type=agent.type,
                    claim={
                        "token": claim.token,
                        "expires_at": iso(claim.expires_at),
                        "attempt": attempt_doc(attempt, verification_base),
                    },
                )
            if account is None:
                account = self.store.accounts[normalise_email(email)] = Account(email=email)
            account.issuers.add(iss)
            agent = self.store.new_agent("identity_assertion", email, claimed=True, now=now)
            return self.store.identity_doc(agent, issuer, now, with_refresh=True)

    def _verify_id_jag(
        self, token: str, audiences: tuple[str, ...], now: datetime
    ) -> tuple[dict[str, Any], str]:
        """The spec's checks, in order; returns (claims, issuer)."""
        try:
            header, claims = jose.peek(token)
        except jose.JoseError as exc:
            raise IdentityError(400, "invalid_request", f"assertion: {exc}") from None
        if header.get("typ") != ID_JAG_TYP:
            raise IdentityError(400, "invalid_request", f"assertion typ must be {ID_JAG_TYP!r}")
        iss = claims.get("iss")
        if iss not in TRUSTED_ISSUERS:
            raise IdentityError(
                400,
                "issuer_not_enabled",
                f"identity provider {iss!r} is not trusted here; use another registration type",
            )
        if header.get("alg") != "ES256" or not self.store.idp_keys[iss].verify(token):
            raise IdentityError(400, "invalid_signature", "the assertion's signature is invalid")
        _check_id_jag_claims(claims, audiences, now)
        return claims, str(iss)

    def refresh(self, value: str, issuer: str, now: datetime) -> dict[str, Any]:
        with self.store.lock:
            record = self.store.refresh_tokens.get(value)
            if record is None or record.used or now >= record.expires_at:
                raise IdentityError(
                    400,
                    "invalid_refresh_token",
                    "the refresh token is unknown, used or expired; register again",
                )
            record.used = True  # single use: rotation
            agent = self.store.agents[record.agent_id]
            agent.refreshes += 1
            for assertion in self.store.assertions.values():
                if assertion.agent_id == agent.id:
                    assertion.revoked = True
            return self.store.identity_doc(agent, issuer, now, with_refresh=True)

    def mint_id_jag(
        self,
        *,
        email: str,
        issuer: str,
        aud: str,
        now: datetime,
        email_verified: bool = True,
        exp_seconds: int = 300,
        auth_age_seconds: int = 60,
        typ: str = ID_JAG_TYP,
        bad_signature: bool = False,
        jti: str | None = None,
    ) -> str:
        key = self.store.idp_keys.get(issuer)
        if key is None:
            raise IdentityError(400, "invalid_request", f"unknown sandbox issuer {issuer!r}")
        iat = int(now.timestamp())
        claims = {
            "iss": issuer,
            "sub": "user-" + normalise_email(email),
            "aud": aud,
            "client_id": "svc-cli",
            "jti": jti or secrets.token_hex(12),
            "iat": iat,
            "exp": iat + exp_seconds,
            "auth_time": iat - auth_age_seconds,
            "email": email,
            "email_verified": email_verified,
        }
        token = key.sign(claims, typ=typ)
        return jose.tamper(token) if bad_signature else token


def _check_id_jag_claims(claims: dict[str, Any], audiences: tuple[str, ...], now: datetime) -> None:
    """The spec's checks after the signature, in order: aud, exp, email, auth_time, jti."""
    aud = claims.get("aud")
    auds = aud if isinstance(aud, list) else [aud]
    if not any(a in audiences for a in auds):
        raise IdentityError(400, "invalid_audience", f"aud must be one of {', '.join(audiences)}")
    exp = claims.get("exp")
    if not isinstance(exp, int | float) or exp <= now.timestamp():
        raise IdentityError(400, "expired", "the assertion has expired; mint a fresh one")
    if exp > (now + ID_JAG_MAX_AHEAD + CLOCK_SKEW).timestamp():
        raise IdentityError(
            400, "invalid_request", "the assertion's exp is more than 10 minutes ahead"
        )
    email = claims.get("email")
    if (
        not isinstance(email, str)
        or not EMAIL_PATTERN.match(email)
        or claims.get("email_verified") is not True
    ):
        raise IdentityError(
            400, "missing_verified_email", "the assertion needs an email with email_verified"
        )
    auth_time = claims.get("auth_time")
    if (
        not isinstance(auth_time, int | float)
        or auth_time < (now - ID_JAG_MAX_AUTH_AGE).timestamp()
    ):
        raise IdentityError(
            401,
            "login_required",
            "auth_time is missing or older than 30 days; sign in again at the provider",
        )
    if not isinstance(claims.get("jti"), str) or not claims["jti"]:
        raise IdentityError(400, "invalid_request", "the assertion needs a jti")
