"""`svc identity claim`: a person claims the stored credential (link, sign-in, code)."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.inputs import read_text_source
from svc.cli.options import with_options_of
from svc.commands.identity.views import show
from svc.engines.claim import ClaimCeremony
from svc.engines.identity import Credential, status_document
from svc.errors import AuthError, UsageError
from svc.operations.identity import IdentityClaimRequest
from svc.ui.claim import TerminalClaim
from svc.ui.face import FaceContext
from svc.ui.prompts import ask_text

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Claim the stored credential for a person: link, sign-in, code.\n\n"
    "Shows the link on stderr (with a QR code), opens the browser on a terminal unless "
    "--no-browser, reads the code the page shows, waits until the person confirmed, then "
    "exchanges the claimed credential at once. Without a terminal (or with --no-input) it "
    "prints an action_required object and exits 6; finish with --code.\n\n"
    "\b\nExamples:\n"
    "  svc identity claim\n"
    "  svc identity claim --email me@example.com      # an anonymous credential\n"
    "  svc identity claim --no-input --json           # scripts: get the link\n"
    "  svc identity claim --code ABCD-EFGH            # then finish with the code"
)
def claim(**given: Any) -> None:
    raise typer.Exit(run(IdentityClaimRequest.model_construct(**given), current()))


# --code, --email, --no-browser, --timeout: as the operation declares them; the shell's own
# bound on --timeout (Typer's, shown in --help and refused as it is parsed) is given here.
with_options_of(IdentityClaimRequest, claim, {"timeout": {"min": 1.0}})


def run(opts: IdentityClaimRequest, ctx: FaceContext) -> int:
    cred = _claimable(ctx)
    if cred is None:
        return 0
    hint = (opts.email or "").strip() or cred.email or _ask_email(ctx)
    code = read_text_source("-", "the code").strip() if opts.code == "-" else opts.code
    person = TerminalClaim(ctx.output, open_browser=not opts.no_browser)
    ceremony = ClaimCeremony(ctx, ctx.identity, cred, hint, person=person, timeout=opts.timeout)
    claimed = ceremony.run(code.strip() if code else None)
    show(ctx, status_document(ctx, claimed), f"Claimed for {claimed.email}.")
    return 0


def _claimable(ctx: FaceContext) -> Credential | None:
    """The stored credential that still needs a claim (None: already claimed, shown)."""
    cred = ctx.identity.credential()
    if cred is None:
        raise AuthError(
            "no agent credential to claim",
            code="no_credential",
            hint="register first: svc identity register --email EMAIL (or --anonymous)",
        )
    if cred.claimed:
        show(ctx, status_document(ctx, cred), "Already claimed.")
        return None
    if cred.claim_token is None:
        raise AuthError(
            "this credential cannot be claimed (it has no claim token)",
            code="invalid_claim_token",
            hint="register again: svc identity register --force",
        )
    return cred


def _ask_email(ctx: FaceContext) -> str:
    if ctx.settings.no_input:
        raise UsageError("--email EMAIL is needed: who is claiming this anonymous credential?")
    return ask_text("E-mail address of the person claiming").strip()
