"""`svc identity register`: an anonymous, e-mail (service_auth) or ID-JAG credential."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.inputs import read_text_source
from svc.cli.options import with_options_of
from svc.commands.identity.views import next_step, show
from svc.engines.identity import Credential, asks_for, id_jag_body, id_jag_email, status_document
from svc.engines.identity import register as register_credential
from svc.errors import UsageError
from svc.operations.identity import IdentityRegisterRequest
from svc.ui.face import FaceContext
from svc.ui.prompts import confirm

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Register an agent credential, or reuse the stored one when it is the one asked for.\n\n"
    "--anonymous: an immediate credential, no e-mail (claim optional; unclaimed ones expire "
    "after a few days). --email: service_auth, a person must claim it (svc identity claim). "
    "--assertion-file: an ID-JAG from a trusted identity provider (born claimed); '-' reads "
    "stdin.\n\n"
    "With a credential stored, the same kind for the same person reuses it; another kind or "
    "person is asked about on a terminal, and refused otherwise (exit 2): --force replaces "
    "it.\n\n"
    "\b\nExamples:\n"
    "  svc identity register --anonymous\n"
    "  svc identity register --email me@example.com && svc identity claim\n"
    "  svc sandbox mint-id-jag --email me@example.com | svc identity register --assertion-file -"
)
def register(**given: Any) -> None:
    # Built unchecked: run words its own error (one of the three, naming the flags).
    raise typer.Exit(run(IdentityRegisterRequest.model_construct(**given), current()))


# --anonymous, --email, --assertion-file (where the ID-JAG is read, never the assertion),
# --force: as the operation declares them
with_options_of(IdentityRegisterRequest, register)


def run(opts: IdentityRegisterRequest, ctx: FaceContext) -> int:
    chosen = [flag for flag in (opts.anonymous, opts.email, opts.assertion_file) if flag]
    if len(chosen) != 1:
        raise UsageError(
            "choose exactly one of --anonymous, --email EMAIL or --assertion-file PATH|-"
        )
    body = _registration_body(opts)  # read and checked first: a bad input is exit 2 anyway
    existing = ctx.identity.credential()
    if existing is not None and not opts.force:
        if asks_for(existing, body):
            unsent = " (the given assertion was not sent)" if "assertion" in body else ""
            ctx.output.note(f"this agent credential is already stored; reusing it{unsent}")
            show(
                ctx,
                status_document(ctx, existing, reused=True),
                "Reusing the stored agent credential.",
            )
            return 0
        _confirm_replace(ctx, existing, body)
    cred = register_credential(ctx, body, opts.email)
    show(ctx, status_document(ctx, cred, reused=False), "Registered an agent credential.")
    step = next_step(cred)
    if step:
        ctx.output.note(step)
    return 0


def _confirm_replace(ctx: FaceContext, stored: Credential, body: dict[str, Any]) -> None:
    """Another kind or another person than the stored credential: asked on a terminal,
    exit 2 naming --force otherwise (as `svc wallet create`): never reused in silence."""
    have = _described(stored.type, stored.email)
    wanted = _described(body["type"], body.get("login_hint") or id_jag_email(body))
    if not ctx.settings.no_input and confirm(f"{have} is stored. Replace it with {wanted}?"):
        return
    raise UsageError(
        f"{have} is stored; {wanted} was not registered",
        hint="--force replaces the stored credential (svc identity logout forgets it)",
    )


def _described(kind: str, email: str | None) -> str:
    words = {"anonymous": "an anonymous credential", "service_auth": "an e-mail credential"}
    what = words.get(kind, "an ID-JAG credential" if kind == "identity_assertion" else kind)
    return f"{what} for {email}" if email and kind != "anonymous" else what


def _registration_body(opts: IdentityRegisterRequest) -> dict[str, Any]:
    if opts.anonymous:
        return {"type": "anonymous"}
    if opts.email is not None:
        return {"type": "service_auth", "login_hint": opts.email.strip()}
    assert opts.assertion_file is not None
    return id_jag_body(read_text_source(opts.assertion_file, "the assertion").strip())
