"""The identity platform's records: agents, claims, attempts, assertions, tokens, accounts.

`IdentityStore` keeps them all under one lock, and issues identities (a platform assertion and,
once claimed, a refresh token), which registration, refresh and claim completion all hand out.
The operations live by concern: `registrations`, `claims`, `tokens`; `platform.IdentityPlatform`
puts them together. Every operation takes `now` (sandbox clock) so expiry follows the clock
tests can move. Secrets (assertions, refresh tokens, access
tokens, user codes) are random and single-purpose; a refresh token and a claimed identity are
handed out exactly once.
"""

from __future__ import annotations

import re
import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from svc_sandbox.identity import jose
from svc_sandbox.state.records import iso, new_id

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

EMAIL_PATTERN = re.compile(r"^[^@\s]+@[^@\s.]+(\.[^@\s.]+)+$")
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


def code_key(code: str) -> str:
    return re.sub(r"[\s-]", "", code).upper()


class IdentityStore:
    """Every identity record, one lock, and the keys that sign (they outlive a reset)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.platform_key = jose.SigningKey(kid="platform-1")
        self.idp_keys = {
            issuer: jose.SigningKey(kid=f"idp-{n}")
            for n, issuer in enumerate((*TRUSTED_ISSUERS, UNTRUSTED_ISSUER))
        }
        with self.lock:
            self._reset_locked()

    def _reset_locked(self) -> None:
        self.agents: dict[str, Agent] = {}
        self.claims: dict[str, Claim] = {}
        self.attempts: dict[str, Attempt] = {}
        self.assertions: dict[str, IssuedAssertion] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh_tokens: dict[str, RefreshToken] = {}
        self.accounts: dict[str, Account] = {}
        self.seen_jti: set[str] = set()
        self.task_agents: dict[str, str] = {}

    def reset(self) -> None:
        with self.lock:
            self._reset_locked()

    # The helpers below run under `lock`, held by the caller.

    def new_agent(self, kind: str, email: str | None, *, claimed: bool, now: datetime) -> Agent:
        agent = Agent(new_id("agt"), kind, email, claimed, now, None)
        self.agents[agent.id] = agent
        return agent

    def new_claim(self, agent: Agent, login_hint: str | None, expires_at: datetime) -> Claim:
        claim = Claim("clm_" + secrets.token_urlsafe(24), agent.id, login_hint, expires_at)
        self.claims[claim.token] = claim
        return claim

    def new_attempt(
        self, claim: Claim, login_hint: str, verification_base: str, now: datetime
    ) -> Attempt:
        attempt = Attempt(new_id("att"), claim.token, login_hint, _user_code(), now + ATTEMPT_TTL)
        claim.attempts.append(attempt)
        self.attempts[attempt.id] = attempt
        return attempt

    def identity_doc(
        self, agent: Agent, issuer: str, now: datetime, *, with_refresh: bool
    ) -> dict[str, Any]:
        """A fresh platform assertion for the agent (and a refresh token when asked)."""
        expires = now + ASSERTION_TTL
        if agent.expires_at is not None:
            expires = min(expires, agent.expires_at)
        identity: dict[str, Any] = {
            "assertion": self._assertion(agent, issuer, now, expires),
            "expires_at": iso(expires),
        }
        if with_refresh:
            value = "rt_" + secrets.token_urlsafe(32)
            record = RefreshToken(agent.id, now + REFRESH_TTL)
            self.refresh_tokens[value] = record
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

    def _assertion(self, agent: Agent, issuer: str, now: datetime, expires: datetime) -> str:
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
        self.assertions[jti] = IssuedAssertion(jti, agent.id, expires)
        return assertion


def attempt_doc(attempt: Attempt, verification_base: str) -> dict[str, Any]:
    return {
        "verification_uri": f"{verification_base}/{attempt.id}",
        "expires_at": iso(attempt.expires_at),
    }
