"""Claims: the person's ceremony (claim link, sign-in, confirm, code) that ties an agent to them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from svc_sandbox.identity.store import (
    EMAIL_PATTERN,
    MAX_LIVE_ATTEMPTS,
    Account,
    Attempt,
    IdentityError,
    IdentityStore,
    attempt_doc,
    code_key,
    is_plus_alias,
    normalise_email,
)
from svc_sandbox.state.records import iso


class Claims:
    """Minting claim links, the verification page's actions, and completing a claim."""

    def __init__(self, store: IdentityStore) -> None:
        self.store = store

    def mint_attempt(
        self, claim_token: str, login_hint: str, verification_base: str, now: datetime
    ) -> dict[str, Any]:
        with self.store.lock:
            claim = self.store.claims.get(claim_token)
            if claim is None or now >= claim.expires_at:
                raise IdentityError(
                    400,
                    "invalid_claim_token",
                    "the claim token is unknown or expired; register again",
                )
            if self.store.agents[claim.agent_id].claimed:
                raise IdentityError(409, "already_claimed", "this credential is already claimed")
            if not EMAIL_PATTERN.match(login_hint):
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
            attempt = self.store.new_attempt(claim, login_hint, verification_base, now)
            return {"attempt": attempt_doc(attempt, verification_base)}

    def complete(
        self, claim_token: str, user_code: str, issuer: str, now: datetime
    ) -> dict[str, Any]:
        with self.store.lock:
            claim = self.store.claims.get(claim_token)
            if claim is None:
                raise IdentityError(
                    400, "invalid_claim_token", "the claim token is unknown; register again"
                )
            agent = self.store.agents[claim.agent_id]
            if agent.claimed:
                raise IdentityError(
                    409, "already_claimed", "this credential was already claimed; register again"
                )
            if now >= claim.expires_at:
                raise IdentityError(400, "claim_expired", "the claim expired; register again")
            key = code_key(user_code)
            attempt = next((a for a in claim.attempts if code_key(a.user_code) == key), None)
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
            account = self.store.accounts.setdefault(
                normalise_email(attempt.login_hint), Account(email=attempt.login_hint)
            )
            if claim.link_issuer:
                account.issuers.add(claim.link_issuer)
            for assertion in self.store.assertions.values():
                if assertion.agent_id == agent.id:
                    assertion.revoked = True  # the pre-claim assertion carries no user link
            return self.store.identity_doc(agent, issuer, now, with_refresh=True)

    def attempt(self, attempt_id: str) -> Attempt | None:
        with self.store.lock:
            found = self.store.attempts.get(attempt_id)
            return None if found is None else Attempt(**vars(found))

    def sign_in(self, attempt_id: str, email: str, now: datetime) -> Attempt:
        with self.store.lock:
            attempt = self._page_attempt(attempt_id, now)
            if normalise_email(email) != normalise_email(attempt.login_hint):
                raise IdentityError(
                    403, "wrong_account", f"this link is for {attempt.login_hint}; sign in as them"
                )
            attempt.signed_in = True
            return Attempt(**vars(attempt))

    def decide(self, attempt_id: str, approve: bool, now: datetime) -> Attempt:
        with self.store.lock:
            attempt = self._page_attempt(attempt_id, now)
            if not attempt.signed_in:
                raise IdentityError(403, "not_signed_in", "sign in first")
            attempt.decision = "approved" if approve else "denied"
            return Attempt(**vars(attempt))

    def _page_attempt(self, attempt_id: str, now: datetime) -> Attempt:
        attempt = self.store.attempts.get(attempt_id)
        if attempt is None:
            raise IdentityError(404, "not_found", "no such claim link")
        if now >= attempt.expires_at or attempt.completed:
            raise IdentityError(410, "link_expired", "this claim link has expired")
        return attempt

    def attempt_for_claim_link(self, attempt_id: str) -> dict[str, Any] | None:
        """Admin: an attempt's state, *without* its code (tests read the code off the page)."""
        with self.store.lock:
            attempt = self.store.attempts.get(attempt_id)
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

    def sign_in_pending(self, attempt_id: str | None, now: datetime) -> Attempt | None:
        """Admin (`svc sandbox claim-code`): do the person's part of the newest live claim link
        (or `attempt_id`): sign in as its login_hint and approve, so its code becomes valid and
        a claim can be tried without a browser. None when there is no such live link."""
        with self.store.lock:
            live = [a for a in self.store.attempts.values() if a.live(now)]
            if attempt_id is not None:
                live = [a for a in live if a.id == attempt_id]
            if not live:
                return None
            attempt = max(live, key=lambda a: a.expires_at)
            attempt.signed_in = True
            attempt.decision = "approved"
            return Attempt(**vars(attempt))
