"""Tokens and what they open: access tokens from assertions, bearer checks, entitlements."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from svc_sandbox.identity import jose
from svc_sandbox.identity.store import (
    ACCESS_TOKEN_PREFIX,
    JWT_BEARER,
    AccessToken,
    Account,
    Agent,
    IdentityError,
    IdentityStore,
    TokenRejected,
    normalise_email,
)
from svc_sandbox.state.records import iso


class Tokens:
    """Exchanging assertions for access tokens, verifying bearers, and what agents own."""

    def __init__(self, store: IdentityStore) -> None:
        self.store = store

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
        if not self.store.platform_key.verify(assertion):
            raise IdentityError(400, "invalid_grant", "the assertion was not issued here")
        with self.store.lock:
            issued = self.store.assertions.get(str(claims.get("jti")))
            if issued is None or issued.revoked:
                raise IdentityError(400, "invalid_grant", "the assertion was revoked")
            agent = self.store.agents[issued.agent_id]
            if now >= issued.expires_at or (agent.expires_at and now >= agent.expires_at):
                raise IdentityError(400, "invalid_grant", "the assertion has expired")
            value = ACCESS_TOKEN_PREFIX + secrets.token_urlsafe(32)
            self.store.access[value] = AccessToken(
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
        with self.store.lock:
            record = self.store.access.get(token)
            if record is None:
                raise TokenRejected("token_invalid", "unknown access token")
            if now >= record.expires_at:
                raise TokenRejected("token_expired", "the access token has expired")
            agent = self.store.agents[record.agent_id]
            if agent.expires_at and now >= agent.expires_at:
                raise TokenRejected("token_invalid", "the credential has expired")
            return Agent(**vars(agent))

    def entitlements(self, agent: Agent) -> dict[str, Any]:
        with self.store.lock:
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
                account = self.store.accounts.get(normalise_email(agent.email))
                doc["credentials"] = sorted(
                    a.id
                    for a in self.store.agents.values()
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

    def grant(self, email: str, plan: dict[str, Any]) -> None:
        with self.store.lock:
            account = self.store.accounts.setdefault(normalise_email(email), Account(email=email))
            account.grants.append(plan)

    def agent_view(self, agent_id: str) -> dict[str, Any] | None:
        with self.store.lock:
            agent = self.store.agents.get(agent_id)
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
                "tasks": sorted(t for t, a in self.store.task_agents.items() if a == agent.id),
            }

    def bind_task(self, task_id: str, agent_id: str) -> None:
        with self.store.lock:
            self.store.task_agents.setdefault(task_id, agent_id)

    def task_agent(self, task_id: str) -> str | None:
        with self.store.lock:
            return self.store.task_agents.get(task_id)
