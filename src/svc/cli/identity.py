"""`svc identity register|claim|refresh|status|logout`: the agent's network-wide credential."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current
from svc.cli.common import read_text_source
from svc.context import AppContext
from svc.errors import AuthError, UsageError
from svc.identity.idjag import check_id_jag
from svc.identity.store import Credential
from svc.ui.prompts import ask_text

if TYPE_CHECKING:
    from svc.ui.output import Output

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Manage the agent credential (identity platform at --auth-base).\n\n"
    "Secrets (assertion, refresh token) live in the OS keyring, or a 0600 file when there is "
    "none; access tokens are never stored.\n\n"
    "\b\nExamples:\n  svc identity register --anonymous\n  svc identity status",
)


@app.callback()
def identity() -> None:
    """Manage the agent credential (identity platform at --auth-base)."""


def status_doc(app_ctx: AppContext, cred: Credential | None, **extra: Any) -> dict[str, Any]:
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
                "store": app_ctx.secrets.backend.name,
            }
        )
    doc.update(extra)
    return doc


def show(app_ctx: AppContext, doc: dict[str, Any], headline: str) -> None:
    def render(out: Output, doc: dict[str, Any]) -> None:
        out.line(headline)
        out.pairs((k, v) for k, v in doc.items() if v is not None and k != "registered")

    app_ctx.output.show(doc, render)


def _next_step(cred: Credential) -> str | None:
    if cred.pending_claim and cred.assertion is None:
        return "a person must claim it before it can be used: svc identity claim"
    if cred.pending_claim:
        return "optional: claim it for a person (svc identity claim --email EMAIL)"
    return None


@app.command(
    help="Register an agent credential, or reuse the stored one.\n\n"
    "--anonymous: an immediate credential, no e-mail (claim optional; unclaimed ones expire "
    "after a few days). --email: service_auth, a person must claim it (svc identity claim). "
    "--assertion-file: an ID-JAG from a trusted identity provider (born claimed); '-' reads "
    "stdin.\n\n"
    "\b\nExamples:\n"
    "  svc identity register --anonymous\n"
    "  svc identity register --email me@example.com && svc identity claim\n"
    "  svc sandbox mint-id-jag --email me@example.com | svc identity register --assertion-file -"
)
def register(
    anonymous: bool = typer.Option(False, "--anonymous", help="Anonymous credential, no e-mail."),
    email: str | None = typer.Option(
        None, "--email", metavar="EMAIL", help="service_auth for this person (claim needed)."
    ),
    assertion_file: str | None = typer.Option(
        None, "--assertion-file", metavar="PATH|-", help="ID-JAG file ('-' for stdin)."
    ),
    force: bool = typer.Option(False, "--force", help="Replace a stored credential."),
) -> None:
    app_ctx = current()
    chosen = [flag for flag in (anonymous, email, assertion_file) if flag]
    if len(chosen) != 1:
        raise UsageError(
            "choose exactly one of --anonymous, --email EMAIL or --assertion-file PATH|-"
        )
    session = app_ctx.identity
    existing = session.credential()
    if existing is not None and not force:
        doc = status_doc(app_ctx, existing, reused=True)
        app_ctx.output.note(
            "an agent credential is already stored; reusing it (--force replaces it)"
        )
        show(app_ctx, doc, "Reusing the stored agent credential.")
        return
    body = _registration_body(anonymous, email, assertion_file)
    cred = _register(app_ctx, body, email)
    show(app_ctx, status_doc(app_ctx, cred, reused=False), "Registered an agent credential.")
    step = _next_step(cred)
    if step:
        app_ctx.output.note(step)


def _registration_body(
    anonymous: bool, email: str | None, assertion_file: str | None
) -> dict[str, Any]:
    if anonymous:
        return {"type": "anonymous"}
    if email is not None:
        return {"type": "service_auth", "login_hint": email.strip()}
    from svc.api.identity import ID_JAG_TOKEN_TYPE

    assert assertion_file is not None
    assertion = read_text_source(assertion_file, "the assertion").strip()
    check_id_jag(assertion)
    return {
        "type": "identity_assertion",
        "assertion_type": ID_JAG_TOKEN_TYPE,
        "assertion": assertion,
    }


def _register(app_ctx: AppContext, body: dict[str, Any], email: str | None) -> Credential:
    from svc.identity.session import credential_from

    session = app_ctx.identity
    platform = session.platform
    auth_base = app_ctx.settings.auth_base
    try:
        doc = platform.register(body)
    except AuthError as exc:
        if exc.code == "interaction_required" and isinstance(exc.body, dict):
            _keep_pending_claim(app_ctx, exc.body, body)
        raise
    cred = credential_from(doc, auth_base, platform.endpoints())
    if email and not cred.email:
        cred.email = email.strip()  # the login hint the claim must use
    session.save(cred, crash_after="register_persisted")
    return cred


def _keep_pending_claim(app_ctx: AppContext, body: dict[str, Any], sent: dict[str, Any]) -> None:
    """interaction_required: keep the claim it carries so `svc identity claim` can finish."""
    from svc.identity.session import credential_from

    claim = body.get("claim")
    if not isinstance(claim, dict) or not isinstance(body.get("id"), str):
        return
    email = check_id_jag(str(sent["assertion"]), now=0).get("email")
    session = app_ctx.identity
    doc = {"id": body["id"], "type": body.get("type", "identity_assertion"), "claim": claim}
    cred = credential_from(doc, app_ctx.settings.auth_base, session.platform.endpoints())
    cred.email = str(email) if email else None
    session.save(cred, crash_after="register_persisted")


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
def claim(
    code: str | None = typer.Option(
        None, "--code", metavar="CODE", help="The code shown on the page ('-' reads stdin)."
    ),
    email: str | None = typer.Option(
        None, "--email", metavar="EMAIL", help="Who claims (needed for an anonymous credential)."
    ),
    no_browser: bool = typer.Option(False, "--no-browser", help="Do not open a browser."),
    timeout: float = typer.Option(
        600.0, "--timeout", min=1.0, help="Seconds to wait for the person to confirm."
    ),
) -> None:
    from svc.flows.claim import ClaimCeremony

    app_ctx = current()
    session = app_ctx.identity
    cred = session.credential()
    if cred is None:
        raise AuthError(
            "no agent credential to claim",
            code="no_credential",
            hint="register first: svc identity register --email EMAIL (or --anonymous)",
        )
    if cred.claimed:
        show(app_ctx, status_doc(app_ctx, cred), "Already claimed.")
        return
    if cred.claim_token is None:
        raise AuthError(
            "this credential cannot be claimed (it has no claim token)",
            code="invalid_claim_token",
            hint="register again: svc identity register --force",
        )
    hint = (email or "").strip() or cred.email or _ask_email(app_ctx)
    if code == "-":
        code = read_text_source("-", "the code").strip()
    ceremony = ClaimCeremony(
        app_ctx, session, cred, hint, open_browser=not no_browser, timeout=timeout
    )
    claimed = ceremony.run(code.strip() if code else None)
    show(app_ctx, status_doc(app_ctx, claimed), f"Claimed for {claimed.email}.")


def _ask_email(app_ctx: AppContext) -> str:
    if app_ctx.settings.no_input:
        raise UsageError("--email EMAIL is needed: who is claiming this anonymous credential?")

    return ask_text("E-mail address of the person claiming").strip()


@app.command(
    help="Rotate the credential with its refresh token.\n\n"
    "A refresh token is single use: the new one is stored before anything else.\n\n"
    "\b\nExample:\n  svc identity refresh"
)
def refresh() -> None:
    app_ctx = current()
    session = app_ctx.identity
    if session.credential() is None:
        raise AuthError(
            "no agent credential is stored",
            code="no_credential",
            hint="register one: svc identity register",
        )
    cred = session.refresh()
    show(app_ctx, status_doc(app_ctx, cred, refreshed=True), "Rotated the agent credential.")


@app.command(
    help="Show the stored credential: who and what, never the secrets.\n\n"
    "Local only; says what to do next when the credential still needs a claim.\n\n"
    "\b\nExamples:\n  svc identity status\n  svc identity status --json | jq .claimed"
)
def status() -> None:
    app_ctx = current()
    cred = app_ctx.identity.credential()
    if cred is None:
        show(app_ctx, status_doc(app_ctx, None), "No agent credential is stored.")
        return
    step = _next_step(cred)
    show(app_ctx, status_doc(app_ctx, cred), "Agent credential:")
    if step:
        app_ctx.output.note(step)


@app.command(
    help="Forget the stored credential (secrets and metadata).\n\n"
    "Local only: the service keeps the registration; register again to get a new one.\n\n"
    "\b\nExample:\n  svc identity logout"
)
def logout() -> None:
    app_ctx = current()
    removed = app_ctx.identity.forget()
    doc = {"logged_out": removed, "auth_base": app_ctx.settings.auth_base}
    said = "Forgot the agent credential." if removed else "No agent credential was stored."
    app_ctx.output.show(doc, lambda out, _: out.info(said))
