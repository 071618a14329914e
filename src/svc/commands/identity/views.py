"""What every `svc identity` command shows about the credential: never a secret."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc.engines.identity import Credential
from svc.ui.face import FaceContext

if TYPE_CHECKING:
    from svc.ui.output import Output


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
