"""What every `svc identity` command shows about the credential: never a secret."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.engines.identity import Credential, store_name
from svc.ui.face import FaceContext

if TYPE_CHECKING:
    from svc.ui.output import Output


def status_doc(app_ctx: FaceContext, cred: Credential | None, **extra: Any) -> dict[str, Any]:
    """What may be shown about a credential: never a secret."""
    doc: dict[str, Any] = {"registered": cred is not None, "auth_base": app_ctx.settings.auth_base}
    if cred is not None:
        doc.update(
            {
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
                "store": store_name(app_ctx),
            }
        )
    doc.update(extra)
    return doc


def show(app_ctx: FaceContext, doc: dict[str, Any], headline: str) -> None:
    def render(out: Output, doc: dict[str, Any]) -> None:
        out.line(headline)
        out.pairs((k, v) for k, v in doc.items() if v is not None and k != "registered")

    app_ctx.output.show(doc, render)


def next_step(cred: Credential) -> str | None:
    """What the person does next with this credential, if anything."""
    if cred.pending_claim and cred.assertion is None:
        return "a person must claim it before it can be used: svc identity claim"
    if cred.pending_claim:
        return "optional: claim it for a person (svc identity claim --email EMAIL)"
    return None
