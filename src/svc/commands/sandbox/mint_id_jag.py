"""`svc sandbox mint-id-jag`: a test identity assertion signed by a running sandbox's IdP."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines import sandbox_admin
from svc.operations.sandbox import SandboxMintIdJagRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    name="mint-id-jag",
    help="Mint a test ID-JAG (identity assertion) from one of the sandbox's identity "
    "providers and print it on stdout.\n\n"
    "Asks the running sandbox at --base-url (its admin route), so the assertion is signed "
    "with that sandbox's keys. Flags produce broken assertions for testing refusals.\n\n"
    "\b\nExamples:\n"
    "  svc sandbox mint-id-jag --email me@example.com > jag.txt\n"
    "  svc sandbox mint-id-jag --email me@example.com | svc identity register --assertion-file -\n"
    "  svc sandbox mint-id-jag --email me@example.com --issuer untrusted",
)
def mint_id_jag(**given: Any) -> None:
    raise typer.Exit(run(SandboxMintIdJagRequest.model_construct(**given), current()))


# --email ... --bad-signature: as the operation declares them; an age is checked as it is parsed.
with_options_of(SandboxMintIdJagRequest, mint_id_jag, {"auth_age_seconds": {"min": 0}})


def run(opts: SandboxMintIdJagRequest, app_ctx: FaceContext) -> int:
    assertion, doc = sandbox_admin.mint_id_jag(app_ctx, route_fields(opts))
    if app_ctx.settings.json_output:  # when asked: piped, it is the bare token `register` reads
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.document(assertion)
    return 0


def route_fields(opts: SandboxMintIdJagRequest) -> dict[str, Any]:
    """The assertion asked for, in the sandbox route's names (`--unverified` is its
    email_verified, turned over)."""
    return {
        "email": opts.email,
        "issuer": opts.issuer,
        "aud": opts.aud,
        "email_verified": not opts.unverified,
        "exp_seconds": opts.exp_seconds,
        "auth_age_seconds": opts.auth_age_seconds,
        "typ": opts.typ,
        "bad_signature": opts.bad_signature,
    }
