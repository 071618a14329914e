"""`svc sandbox mint-id-jag`: a test identity assertion signed by a running sandbox's IdP."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import typer

from svc.cli.app import current
from svc.engines import sandbox_admin
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class MintOptions:
    """The assertion asked for; the field names are the sandbox route's."""

    email: str
    issuer: str = "a"
    aud: str | None = None
    email_verified: bool = True
    exp_seconds: int = 300
    auth_age_seconds: int = 60
    typ: str = "oauth-id-jag+jwt"
    bad_signature: bool = False


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
def mint_id_jag(
    email: str = typer.Option(..., "--email", metavar="EMAIL", help="The person's e-mail."),
    issuer: str = typer.Option(
        "a", "--issuer", help="Provider: a, b (trusted), untrusted, or an issuer URL."
    ),
    aud: str | None = typer.Option(None, "--aud", help="Audience (default: the platform's)."),
    unverified: bool = typer.Option(False, "--unverified", help="email_verified: false."),
    exp_seconds: int = typer.Option(300, "--exp-seconds", help="exp, seconds from now."),
    auth_age_seconds: int = typer.Option(
        60, "--auth-age-seconds", min=0, help="How long ago the person signed in."
    ),
    typ: str = typer.Option("oauth-id-jag+jwt", "--typ", help="JWT header typ."),
    bad_signature: bool = typer.Option(False, "--bad-signature", help="Break the signature."),
) -> None:
    opts = MintOptions(
        email, issuer, aud, not unverified, exp_seconds, auth_age_seconds, typ, bad_signature
    )
    raise typer.Exit(run(opts, current()))


def run(opts: MintOptions, app_ctx: FaceContext) -> int:
    assertion, doc = sandbox_admin.mint_id_jag(app_ctx, asdict(opts))
    if app_ctx.settings.json_output:  # when asked: piped, it is the bare token `register` reads
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.document(assertion)
    return 0
