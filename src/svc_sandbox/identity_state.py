"""The identity platform's in-memory state: agents, claims, assertions, tokens, accounts.

One lock guards everything; every method takes `now` (sandbox clock) so expiry follows the
sandbox clock that tests can move. Secrets (assertions, refresh tokens, access tokens, user
codes) are random and single-purpose; a refresh token and a claimed identity are handed out
exactly once.
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from svc_sandbox import jose
from svc_sandbox.records import iso, new_id

ID_JAG_TYP = "oauth-id-jag+jwt"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
ID_JAG_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:id-jag"
TRUSTED_ISSUERS = ("https://idp-a.sandbox.test", "https://idp-b.sandbox.test")
UNTRUSTED_ISSUER = "https://idp-untrusted.sandbox.test"
ACCESS_TOKEN_PREFIX = "svcat_"

ASSERTION_TTL = timedelta(hours=1)
REFRESH_TTL = timedelta(days=30)
ANONYMOUS_TTL = timedelta(days=3)  # an unclaimed anonymous credential dies after a few days
CLAIM_TTL = timedelta(hours=1)  # a claim token of a service_auth registration
ATTEMPT_TTL = timedelta(minutes=5)  # a claim link
MAX_LIVE_ATTEMPTS = 3
ID_JAG_MAX_AHEAD = timedelta(minutes=10)
ID_JAG_MAX_AUTH_AGE = timedelta(days=30)
CLOCK_SKEW = timedelta(seconds=30)

_EMAIL = re.compile(r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$")
_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"


class IdentityError(Exception):
    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"error": self.code, "detail": self.detail, **self.extra}


class TokenRejected(Exception):
    """An access token that does not verify; `reason` is the spec's invalid_token reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass
class Agent:
    id: str
    type: str
    email: str | None
    claimed: bool
    created_at: datetime
    expires_at: datetime | None  # only unclaimed anonymous credentials expire as a whole
    exchanges: int = 0
    refreshes: int = 0


@dataclass
class Attempt:
    id: str
    claim_token: str
    login_hint: str
    user_code: str
    expires_at: datetime
    signed_in: bool = False
    decision: str | None = None  # "approved" | "denied"
    completed: bool = False

    def live(self, now: datetime) -> bool:
        return not self.completed and self.decision != "denied" and now < self.expires_at


@dataclass
class Claim:
    token: str
    agent_id: str
    login_hint: str | None
    expires_at: datetime
    link_issuer: str | None = None  # an ID-JAG issuer to link once the person claims
    attempts: list[Attempt] = field(default_factory=list)


@dataclass
class IssuedAssertion:
    jti: str
    agent_id: str
    expires_at: datetime
    revoked: bool = False


@dataclass
class AccessToken:
    agent_id: str
    expires_at: datetime
    user_linked: bool  # a token from before the claim does not carry the user link


@dataclass
class RefreshToken:
    agent_id: str
    expires_at: datetime
    used: bool = False


@dataclass
class Account:
    email: str
    issuers: set[str] = field(default_factory=set)
    grants: list[dict[str, Any]] = field(default_factory=list)


def normalise_email(email: str) -> str:
    return email.strip().lower()


def is_plus_alias(email: str) -> bool:
    return "+" in email.partition("@")[0]


def _user_code() -> str:
    raw = "".join(secrets.choice(_CODE_ALPHABET) for _ in range(8))
    return f"{raw[:4]}-{raw[4:]}"


def _code_key(code: str) -> str:
    return re.sub(r"[\s-]", "", code).upper()


class IdentityPlatform:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.platform_key = jose.SigningKey(kid="platform-1")
        self.idp_keys = {
            issuer: jose.SigningKey(kid=f"idp-{n}")
            for n, issuer in enumerate((*TRUSTED_ISSUERS, UNTRUSTED_ISSUER))
        }
        self._reset_locked()

    def _reset_locked(self) -> None:
        self._agents: dict[str, Agent] = {}
        self._claims: dict[str, Claim] = {}
        self._attempts: dict[str, Attempt] = {}
        self._assertions: dict[str, IssuedAssertion] = {}
        self._access: dict[str, AccessToken] = {}
        self._refresh: dict[str, RefreshToken] = {}
        self._accounts: dict[str, Account] = {}
        self._seen_jti: set[str] = set()
        self._task_agents: dict[str, str] = {}

    def reset(self) -> None:
        with self._lock:
            self._reset_locked()

    # --- registration -------------------------------------------------------------------

    def register_anonymous(self, now: datetime, issuer: str) -> dict[str, Any]:
        with self._lock:
            agent = self._new_agent("anonymous", None, claimed=False, now=now)
            agent.expires_at = now + ANONYMOUS_TTL
            claim = self._new_claim(agent, None, agent.expires_at)
            doc = self._identity_doc(agent, issuer, now, with_refresh=False)
            doc["claim"] = {"token": claim.token, "expires_at": iso(claim.expires_at)}
            return doc

    def register_service_auth(self, login_hint: str, now: datetime) -> dict[str, Any]:
        if not _EMAIL.match(login_hint) or len(login_hint) > 254:
            raise IdentityError(400, "invalid_login_hint", "login_hint must be an e-mail address")
        with self._lock:
            agent = self._new_agent("service_auth", None, claimed=False, now=now)
            claim = self._new_claim(agent, login_hint, now + CLAIM_TTL)
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
        with self._lock:
            jti = str(claims["jti"])
            if jti in self._seen_jti:
                raise IdentityError(
                    400,
                    "replay_detected",
                    "this assertion's jti was already used; mint a fresh one",
                )
            self._seen_jti.add(jti)
            account = self._accounts.get(normalise_email(email))
            if account is not None and iss not in account.issuers:
                agent = self._new_agent("identity_assertion", None, claimed=False, now=now)
                claim = self._new_claim(agent, email, now + CLAIM_TTL)
                claim.link_issuer = iss
                attempt = self._new_attempt(claim, email, verification_base, now)
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
                        "attempt": self._attempt_doc(attempt, verification_base),
                    },
                )
            if account is None:
                account = self._accounts[normalise_email(email)] = Account(email=email)
            account.issuers.add(iss)
            agent = self._new_agent("identity_assertion", email, claimed=True, now=now)
            return self._identity_doc(agent, issuer, now, with_refresh=True)

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
        if header.get("alg") != "ES256" or not self.idp_keys[iss].verify(token):
            raise IdentityError(400, "invalid_signature", "the assertion's signature is invalid")
        aud = claims.get("aud")
        auds = aud if isinstance(aud, list) else [aud]
        if not any(a in audiences for a in auds):
            raise IdentityError(
                400, "invalid_audience", f"aud must be one of {', '.join(audiences)}"
            )
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
            or not _EMAIL.match(email)
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
        return claims, str(iss)

    def refresh(self, value: str, issuer: str, now: datetime) -> dict[str, Any]:
        with self._lock:
            record = self._refresh.get(value)
            if record is None or record.used or now >= record.expires_at:
                raise IdentityError(
                    400,
                    "invalid_refresh_token",
                    "the refresh token is unknown, used or expired; register again",
                )
            record.used = True  # single use: rotation
            agent = self._agents[record.agent_id]
            agent.refreshes += 1
            for assertion in self._assertions.values():
                if assertion.agent_id == agent.id:
                    assertion.revoked = True
            return self._identity_doc(agent, issuer, now, with_refresh=True)

    # --- claim ---------------------------------------------------------------------------

    def mint_attempt(
        self, claim_token: str, login_hint: str, verification_base: str, now: datetime
    ) -> dict[str, Any]:
        with self._lock:
            claim = self._claims.get(claim_token)
            if claim is None or now >= claim.expires_at:
                raise IdentityError(
                    400,
                    "invalid_claim_token",
                    "the claim token is unknown or expired; register again",
                )
            if self._agents[claim.agent_id].claimed:
                raise IdentityError(409, "already_claimed", "this credential is already claimed")
            if not _EMAIL.match(login_hint):
                raise IdentityError(400, "invalid_login_hint", "login_hint must be an e-mail")
            if is_plus_alias(login_hint):
                raise IdentityError(
                    400,
                    "invalid_login_hint",
                    "plus-aliased e-mail addresses are refused; use the plain address",
                )
            if claim.login_hint and normalise_email(claim.login_hint) != normalise_email(
                login_hint
            ):
                raise IdentityError(
                    400,
                    "invalid_login_hint",
                    "login_hint does not match the e-mail this credential was registered for",
                )
            live = [a for a in claim.attempts if a.live(now)]
            if len(live) >= MAX_LIVE_ATTEMPTS:
                wait = max(1, int((min(a.expires_at for a in live) - now).total_seconds()) + 1)
                raise IdentityError(
                    429,
                    "too_many_attempts",
                    f"{len(live)} claim links are still pending; wait for one to expire",
                    retry_after=wait,
                )
            attempt = self._new_attempt(claim, login_hint, verification_base, now)
            return {"attempt": self._attempt_doc(attempt, verification_base)}

    def complete(
        self, claim_token: str, user_code: str, issuer: str, now: datetime
    ) -> dict[str, Any]:
        with self._lock:
            claim = self._claims.get(claim_token)
            if claim is None:
                raise IdentityError(
                    400, "invalid_claim_token", "the claim token is unknown; register again"
                )
            agent = self._agents[claim.agent_id]
            if agent.claimed:
                raise IdentityError(
                    409, "already_claimed", "this credential was already claimed; register again"
                )
            if now >= claim.expires_at:
                raise IdentityError(400, "claim_expired", "the claim expired; register again")
            key = _code_key(user_code)
            attempt = next((a for a in claim.attempts if _code_key(a.user_code) == key), None)
            if attempt is None or not attempt.signed_in:
                # a code is only shown after sign-in, so an unsigned attempt's code is a guess
                raise IdentityError(400, "invalid_user_code", "that code is not right")
            if now >= attempt.expires_at:
                raise IdentityError(
                    400, "user_code_expired", "the claim link expired; mint a fresh one"
                )
            if attempt.decision == "denied":
                raise IdentityError(403, "claim_denied", "the person declined the claim")
            if attempt.decision != "approved":
                raise IdentityError(
                    400,
                    "claim_not_confirmed",
                    "the person has not confirmed on the page yet; wait and retry",
                )
            attempt.completed = True
            agent.claimed = True
            agent.email = attempt.login_hint
            agent.expires_at = None
            account = self._accounts.setdefault(
                normalise_email(attempt.login_hint), Account(email=attempt.login_hint)
            )
            if claim.link_issuer:
                account.issuers.add(claim.link_issuer)
            for assertion in self._assertions.values():
                if assertion.agent_id == agent.id:
                    assertion.revoked = True  # the pre-claim assertion carries no user link
            return self._identity_doc(agent, issuer, now, with_refresh=True)

    # --- the verification page's actions (a person in a browser) ---------------------------

    def attempt(self, attempt_id: str) -> Attempt | None:
        with self._lock:
            found = self._attempts.get(attempt_id)
            return None if found is None else Attempt(**vars(found))

    def sign_in(self, attempt_id: str, email: str, now: datetime) -> Attempt:
        with self._lock:
            attempt = self._page_attempt(attempt_id, now)
            if normalise_email(email) != normalise_email(attempt.login_hint):
                raise IdentityError(
                    403, "wrong_account", f"this link is for {attempt.login_hint}; sign in as them"
                )
            attempt.signed_in = True
            return Attempt(**vars(attempt))

    def decide(self, attempt_id: str, approve: bool, now: datetime) -> Attempt:
        with self._lock:
            attempt = self._page_attempt(attempt_id, now)
            if not attempt.signed_in:
                raise IdentityError(403, "not_signed_in", "sign in first")
            attempt.decision = "approved" if approve else "denied"
            return Attempt(**vars(attempt))

    def _page_attempt(self, attempt_id: str, now: datetime) -> Attempt:
        attempt = self._attempts.get(attempt_id)
        if attempt is None:
            raise IdentityError(404, "not_found", "no such claim link")
        if now >= attempt.expires_at or attempt.completed:
            raise IdentityError(410, "link_expired", "this claim link has expired")
        return attempt

    # --- tokens --------------------------------------------------------------------------

    def exchange(
        self, grant_type: str | None, assertion: str | None, ttl: int, now: datetime
    ) -> dict[str, Any]:
        if not grant_type or not assertion:
            raise IdentityError(400, "invalid_request", "grant_type and assertion are required")
        if grant_type != JWT_BEARER:
            raise IdentityError(400, "unsupported_grant_type", f"only {JWT_BEARER} is supported")
        try:
            _header, claims = jose.peek(assertion)
        except jose.JoseError as exc:
            raise IdentityError(400, "invalid_request", f"assertion: {exc}") from None
        if not self.platform_key.verify(assertion):
            raise IdentityError(400, "invalid_grant", "the assertion was not issued here")
        with self._lock:
            issued = self._assertions.get(str(claims.get("jti")))
            if issued is None or issued.revoked:
                raise IdentityError(400, "invalid_grant", "the assertion was revoked")
            agent = self._agents[issued.agent_id]
            if now >= issued.expires_at or (agent.expires_at and now >= agent.expires_at):
                raise IdentityError(400, "invalid_grant", "the assertion has expired")
            value = ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)
            self._access[value] = AccessToken(
                agent.id, now + timedelta(seconds=ttl), user_linked=agent.claimed
            )
            agent.exchanges += 1
            return {
                "access_token": value,
                "token_type": "Bearer",
                "expires_in": ttl,
                "scope": "tasks entitlements",
            }

    def verify_access(self, token: str, now: datetime) -> Agent:
        if not token.startswith(ACCESS_TOKEN_PREFIX):
            raise TokenRejected(
                "unrecognized_agent_credential",
                "the bearer was not issued by the identity platform",
            )
        with self._lock:
            record = self._access.get(token)
            if record is None:
                raise TokenRejected("token_invalid", "unknown access token")
            if now >= record.expires_at:
                raise TokenRejected("token_expired", "the access token has expired")
            agent = self._agents[record.agent_id]
            if agent.expires_at and now >= agent.expires_at:
                raise TokenRejected("token_invalid", "the credential has expired")
            return Agent(**vars(agent))

    def entitlements(self, agent: Agent) -> dict[str, Any]:
        with self._lock:
            payg = {
                "plan_id": "payg",
                "service": "tasks",
                "access_mode": "payg",
                "status": "active",
                "remaining": None,
            }
            doc: dict[str, Any] = {
                "credential": agent.id,
                "claimed": agent.claimed,
                "plans": [payg],
                "credentials": [agent.id],
            }
            if agent.claimed and agent.email:
                account = self._accounts.get(normalise_email(agent.email))
                doc["credentials"] = sorted(
                    a.id
                    for a in self._agents.values()
                    if a.claimed
                    and a.email
                    and normalise_email(a.email) == normalise_email(agent.email)
                )
                doc["plans"].append(
                    {
                        "plan_id": "included",
                        "service": "tasks",
                        "meter": "task",
                        "status": "active",
                        "included_units": 0,
                        "remaining": {"units": 0},
                    }
                )
                if account:
                    doc["plans"].extend(dict(g) for g in account.grants)
            return doc

    # --- admin (tests) ----------------------------------------------------------------------

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
        key = self.idp_keys.get(issuer)
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

    def grant(self, email: str, plan: dict[str, Any]) -> None:
        with self._lock:
            account = self._accounts.setdefault(normalise_email(email), Account(email=email))
            account.grants.append(plan)

    def agent_view(self, agent_id: str) -> dict[str, Any] | None:
        with self._lock:
            agent = self._agents.get(agent_id)
            if agent is None:
                return None
            return {
                "id": agent.id,
                "type": agent.type,
                "email": agent.email,
                "claimed": agent.claimed,
                "exchanges": agent.exchanges,
                "refreshes": agent.refreshes,
                "expires_at": iso(agent.expires_at) if agent.expires_at else None,
                "tasks": sorted(t for t, a in self._task_agents.items() if a == agent.id),
            }

    def attempt_for_claim_link(self, attempt_id: str) -> dict[str, Any] | None:
        """Admin: an attempt's state, *without* its code (tests read the code off the page)."""
        with self._lock:
            attempt = self._attempts.get(attempt_id)
            if attempt is None:
                return None
            return {
                "id": attempt.id,
                "login_hint": attempt.login_hint,
                "signed_in": attempt.signed_in,
                "decision": attempt.decision,
                "completed": attempt.completed,
                "expires_at": iso(attempt.expires_at),
            }

    # --- task ownership ---------------------------------------------------------------------

    def bind_task(self, task_id: str, agent_id: str) -> None:
        with self._lock:
            self._task_agents.setdefault(task_id, agent_id)

    def task_agent(self, task_id: str) -> str | None:
        with self._lock:
            return self._task_agents.get(task_id)

    # --- internals ---------------------------------------------------------------------------

    def _new_agent(self, kind: str, email: str | None, *, claimed: bool, now: datetime) -> Agent:
        agent = Agent(new_id("agt"), kind, email, claimed, now, None)
        self._agents[agent.id] = agent
        return agent

    def _new_claim(self, agent: Agent, login_hint: str | None, expires_at: datetime) -> Claim:
        claim = Claim("clm_" + secrets.token_urlsafe(24), agent.id, login_hint, expires_at)
        self._claims[claim.token] = claim
        return claim

    def _new_attempt(
        self, claim: Claim, login_hint: str, verification_base: str, now: datetime
    ) -> Attempt:
        attempt = Attempt(new_id("att"), claim.token, login_hint, _user_code(), now + ATTEMPT_TTL)
        claim.attempts.append(attempt)
        self._attempts[attempt.id] = attempt
        return attempt

    @staticmethod
    def _attempt_doc(attempt: Attempt, verification_base: str) -> dict[str, Any]:
        return {
            "verification_uri": f"{verification_base}/{attempt.id}",
            "expires_at": iso(attempt.expires_at),
        }

    def _identity_doc(
        self, agent: Agent, issuer: str, now: datetime, *, with_refresh: bool
    ) -> dict[str, Any]:
        expires = now + ASSERTION_TTL
        if agent.expires_at is not None:
            expires = min(expires, agent.expires_at)
        jti = secrets.token_hex(12)
        assertion = self.platform_key.sign(
            {
                "iss": issuer,
                "sub": agent.id,
                "aud": issuer,
                "jti": jti,
                "iat": int(now.timestamp()),
                "exp": int(expires.timestamp()),
                "agent_type": agent.type,
                "claimed": agent.claimed,
            }
        )
        self._assertions[jti] = IssuedAssertion(jti, agent.id, expires)
        identity: dict[str, Any] = {"assertion": assertion, "expires_at": iso(expires)}
        if with_refresh:
            value = "rt_" + secrets.token_urlsafe(32)
            record = RefreshToken(agent.id, now + REFRESH_TTL)
            self._refresh[value] = record
            identity["refresh_token"] = {"value": value, "expires_at": iso(record.expires_at)}
        doc: dict[str, Any] = {
            "id": agent.id,
            "type": agent.type,
            "claimed": agent.claimed,
            "identity": identity,
        }
        if agent.email:
            doc["email"] = agent.email
        if agent.expires_at is not None:
            doc["expires_at"] = iso(agent.expires_at)
        return doc
