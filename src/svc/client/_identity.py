"""`client.identity`: the agent credential (register, claim, refresh, status, logout).

# adapter until the identity commands' work moves to an engine: today the choice
# between reusing and replacing a stored credential and the status document live in
# commands/identity/*.py (a face, which the library must not import). This holds the least of
# them over the same IdentitySession, platform client and ClaimCeremony; the integrator
# replaces it with that engine when the faces-off-api/store branch lands.
"""

from __future__ import annotations

from typing import Any

from svc import redact
from svc.client._calls import one_call
from svc.client._context import LibraryContext
from svc.engines.claim import ClaimCeremony, ClaimLink
from svc.engines.identity import asks_for, id_jag_body, status_document
from svc.engines.identity import register as register_credential
from svc.errors import AuthError, HumanNeeded, UsageError
from svc.identity.store import Credential
from svc.operations.results import IdentityStatus

CLAIM_CALL = "identity.claim(code=...)"  # what a program calls with the code the page shows


def status_of(app: LibraryContext, cred: Credential | None, **extra: Any) -> IdentityStatus:
    """What may be shown about a credential: never a secret."""
    return IdentityStatus.model_validate(status_document(app, cred, **extra))


def status(app: LibraryContext) -> IdentityStatus:
    with one_call(app, "identity.status"):
        return status_of(app, app.identity.credential())


def register(
    app: LibraryContext, email: str | None, assertion: str | None, force: bool
) -> IdentityStatus:
    """An e-mail credential (service auth) when `email` is given, an ID-JAG one when
    `assertion` is, else an anonymous one. A stored credential of that kind and person is
    reused; another is replaced only with `force` (never in silence, as `svc identity
    register` asks). The engine's registration: an ID-JAG the platform wants claimed first
    keeps its pending claim (AuthError interaction_required), for claim() to finish."""
    if email is not None and assertion is not None:
        raise UsageError("register(email=...) and register(assertion=...) exclude each other")
    with one_call(app, "identity.register"):
        body = _body(email, assertion)  # an ID-JAG is checked before anything is sent
        stored = app.identity.credential()
        if stored is not None and not force:
            if asks_for(stored, body):
                return status_of(app, stored, reused=True)
            raise UsageError(
                f"the stored credential is {stored.type}; the {body['type']} one asked for "
                "was not registered",
                hint="register(..., force=True) replaces it (identity.logout() forgets it)",
            )
        return status_of(app, register_credential(app, body, email), reused=False)


def _body(email: str | None, assertion: str | None) -> dict[str, Any]:
    if assertion is not None:
        return id_jag_body(assertion.strip())
    if email:
        return {"type": "service_auth", "login_hint": email.strip()}
    return {"type": "anonymous"}


def claim(app: LibraryContext, email: str | None, code: str | None) -> IdentityStatus:
    """Claim the credential for a person. Without `code`: HumanNeeded whose `data` holds the
    claim link (verification_uri) the person opens; then claim again with the code the page
    shows."""
    with one_call(app, "identity.claim"):
        cred = app.identity.credential()
        if cred is None or cred.claim_token is None:
            raise AuthError(
                "no agent credential to claim" if cred is None else "it has no claim token",
                code="no_credential" if cred is None else "invalid_claim_token",
                hint="register first: client.identity.register(email=...)",
            )
        if cred.claimed:
            return status_of(app, cred)
        hint = (email or cred.email or "").strip()
        if not hint:
            raise UsageError("claim(email=...) is needed: who claims this credential?")
        person = _LinkKept()
        try:
            claimed = ClaimCeremony(app, app.identity, cred, hint, person=person).run(code)
        except HumanNeeded as need:
            if person.link is not None:
                link = person.link.action_required(CLAIM_CALL)
                need.data.update(redact.scrub(link))  # the link, as data
            raise
        return status_of(app, claimed)


class _LinkKept:
    """The library's ClaimPerson: no one to ask here, so the link is kept for the caller (the
    ceremony is unattended in a library: it never asks for a code)."""

    def __init__(self) -> None:
        self.link: ClaimLink | None = None

    def unattended(self, link: ClaimLink) -> None:
        self.link = link

    def code_for(self, link: ClaimLink) -> str:  # never called: a library sets no_input
        self.link = link
        raise HumanNeeded("a person must open the claim link", code="action_required")


def refresh(app: LibraryContext) -> IdentityStatus:
    with one_call(app, "identity.refresh"):
        if app.identity.credential() is None:
            raise AuthError("no agent credential to refresh", code="no_credential")
        return status_of(app, app.identity.refresh())


def logout(app: LibraryContext) -> bool:
    """Forget the stored credential; False if there was none."""
    with one_call(app, "identity.logout"):
        return app.identity.forget()
