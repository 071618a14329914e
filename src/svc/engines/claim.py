"""The claim ceremony: a link for a person, their code, completion, and an immediate re-exchange.

1. Mint a claim attempt; the face shows its link to a person (`ClaimPerson.code_for`: stderr,
   QR code, browser on a terminal) and reads the code the page shows after they signed in.
   Without a person (`--no-input`, or a face that has none) the face states what is required
   (`ClaimPerson.unattended`: an `action_required` object) and the ceremony stops (exit 6).
2. Or take the code given (`--code`).
3. Complete: wait while the person has not confirmed (`claim_not_confirmed`); on
   `user_code_expired` mint a fresh link (a person is needed again).
4. The claimed identity is delivered once: it is stored before anything else, then exchanged
   at once, because a token from before the claim does not carry the user link.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from svc import words
from svc.context import AppContext
from svc.errors import AuthError, HumanNeeded
from svc.identity.session import IdentitySession, credential_from
from svc.identity.store import Credential
from svc.next_step import step
from svc.origin import TrustedURL, from_server

MAX_WAIT_INTERVAL = 5.0


@dataclass(frozen=True)
class ClaimLink:
    """A claim link for a person, with the two times they meet and who signs in."""

    uri: TrustedURL
    login_hint: str
    expires_at: str  # the link's (the attempt's)
    claim_expires_at: str | None  # the claim's: a new link can be asked until then

    def expiries(self) -> str:
        """The two times a person meets, named apart (register showed the claim's,
        claim the link's, both as "expires"): this link, and the claim it belongs to."""
        again = f"; a new link can be asked until {words.when(self.claim_expires_at)}"
        shown = f"this link expires at {words.when(self.expires_at)}"
        return shown + (again if self.claim_expires_at else "")

    def action_required(self, then: str) -> dict[str, Any]:
        """What a program is told when no person is at hand: open, sign in, then the code
        (`then`: how the face's caller passes it on, e.g. the CLI's command)."""
        return {
            "action_required": "claim",
            "verification_uri": str(self.uri),
            "expires_at": self.expires_at,  # the link's (the attempt's), as before
            "link_expires_at": self.expires_at,
            "claim_expires_at": self.claim_expires_at,
            "login_hint": self.login_hint,
            "instructions": f"Open the link, sign in as {self.login_hint} and confirm; then "
            f"run `{then}` with the code the page shows.",
            "next": then,
        }


class ClaimPerson(Protocol):
    """How a face reaches the person who claims."""

    def code_for(self, link: ClaimLink) -> str:
        """Show the link; the code the page showed once they signed in (never empty)."""
        ...

    def unattended(self, link: ClaimLink) -> None:
        """No person at hand: state what is required (the ceremony then stops, exit 6)."""
        ...


class ClaimCeremony:
    def __init__(
        self,
        app: AppContext,
        session: IdentitySession,
        credential: Credential,
        login_hint: str,
        *,
        person: ClaimPerson | None = None,
        timeout: float = 600.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.app = app
        self.session = session
        self.credential = credential
        self.login_hint = login_hint
        self.person = person  # None: nobody to show a link to (unattended)
        self.timeout = timeout
        self.sleep = sleep

    def run(self, code: str | None) -> Credential:
        if code is None:
            code = self._new_link_and_code()
        deadline = time.monotonic() + self.timeout
        waiting_noted = False
        while True:
            try:
                doc = self.session.platform.complete(self._claim_token(), code)
                break
            except AuthError as exc:
                if exc.code == "claim_not_confirmed":
                    if time.monotonic() >= deadline:
                        raise AuthError(
                            "the person did not confirm the claim in time",
                            code="claim_not_confirmed",
                            next=step("claim_with_code", "confirm on the page, then "),
                        ) from None
                    if not waiting_noted:
                        self.app.report.note("waiting for the person to confirm on the page…")
                        waiting_noted = True
                    self.sleep(min(MAX_WAIT_INTERVAL, self.app.settings.default_poll_interval()))
                    continue
                if exc.code == "user_code_expired":
                    self.app.report.note("that claim link expired; minting a fresh one")
                    code = self._new_link_and_code()
                    continue
                raise
        return self._adopt(doc)

    def _claim_token(self) -> str:
        token = self.credential.claim_token
        if token is None:  # pragma: no cover - checked by the command
            raise AuthError("this credential has no claim token")
        return token

    def _adopt(self, doc: dict[str, Any]) -> Credential:
        claimed = credential_from(
            doc, self.credential.auth_base, self.credential.endpoints, previous=self.credential
        )
        claimed.email = claimed.email or self.login_hint
        self.session.save(claimed, crash_after="claim_persisted")
        self.session.exchange()  # at once: only a post-claim token carries the user link
        return claimed

    # --- the person's part -----------------------------------------------------------------

    def _new_link_and_code(self) -> str:
        attempt = self.session.platform.mint_attempt(self._claim_token(), self.login_hint)
        found = attempt.get("attempt")
        link: dict[str, Any] = found if isinstance(found, dict) else {}
        raw = link.get("verification_uri")
        if not isinstance(raw, str):
            raise AuthError("the identity platform's claim answer has no verification_uri")
        # A link for a person: on the auth base's origin or a host they confirmed, never drawn
        # or opened otherwise (svc.origin).
        uri = from_server(
            raw, self.session.platform.base, "the claim link", self.app.trusts_link_host
        )
        shown = ClaimLink(
            uri,
            self.login_hint,
            str(link.get("expires_at") or ""),
            self.credential.claim_expires_at,
        )
        person = self.person
        if person is None or self.app.settings.no_input:
            if person is not None:
                person.unattended(shown)
            raise HumanNeeded(
                "a person must open the claim link, sign in and read the code",
                code="action_required",
                next=step(
                    "claim_with_code",
                    f"open {shown.uri}, sign in as {shown.login_hint}, then "
                    if person is None  # no face said where: the link is in the error
                    else "then ",
                ),
                json_report=False,
            )
        return person.code_for(shown).strip()
