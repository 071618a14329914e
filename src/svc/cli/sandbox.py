"""`svc sandbox serve`: the local emulator of the whole service."""

from __future__ import annotations

import typer

from svc.errors import UsageError

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Run the local emulator of the service: tasks, x402 payments, scenarios. No money moves.\n\n"
    "mint-id-jag is a test helper that asks a running sandbox. Scenario tags in a task's text "
    "choose what it does; see svc sandbox serve --help.\n\n"
    "\b\nExamples:\n  svc sandbox serve\n  svc sandbox serve --port 0 --clock-speed 10",
)


@app.callback()
def sandbox() -> None:
    """Run the local emulator of the service: tasks, x402 payments, scenarios. No money moves."""


@app.command(
    help="Serve the sandbox on loopback until interrupted.\n\n"
    "Scenario tags in the task text choose what a task does: #complete (default), #fail, "
    "#cancel, #2fa, #questions, #approval, #decline, #approval-expire, #ask-expire, #slow.\n\n"
    "\b\nExamples:\n"
    "  svc sandbox serve\n"
    "  svc sandbox serve --port 0 --clock-speed 10"
)
def serve(
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        metavar="ADDRESS",
        help="Address to bind (loopback only unless --allow-remote).",
    ),
    port: int = typer.Option(
        8402, "--port", min=0, max=65535, metavar="N", help="Port; 0 picks a free one."
    ),
    clock_speed: float = typer.Option(
        1.0, "--clock-speed", min=0.01, metavar="X", help="Sandbox seconds per real second."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No access log."),
    allow_remote: bool = typer.Option(
        False,
        "--allow-remote",
        help="Listen on a non-loopback address too (the sandbox has no authentication).",
    ),
) -> None:
    try:
        from svc_sandbox.server import bind_socket, is_loopback
        from svc_sandbox.server import serve_socket as run
    except ImportError as exc:
        raise UsageError(
            f"the sandbox is not installed ({exc.name}): pip install 'svc-cli[sandbox]'"
        ) from None
    if not is_loopback(host) and not allow_remote:
        raise UsageError(
            f"refusing to listen on {host}: the sandbox has no authentication",
            hint="use --host 127.0.0.1, or add --allow-remote to serve other machines",
        )
    try:
        sock = bind_socket(host, port, allow_remote=allow_remote)
    except OSError as exc:
        raise _bind_error(host, port, exc) from None
    if allow_remote and not is_loopback(host):
        from svc.cli.app import current

        current().output.warn(f"listening on {host}:{port}: anyone who can reach it may use it")
    run(sock, clock_speed=clock_speed, quiet=quiet)


def _bind_error(host: str, port: int, exc: OSError) -> UsageError:
    import errno

    shown = f"[{host}]" if ":" in host else host
    if exc.errno == errno.EADDRINUSE:
        return UsageError(
            f"port {port} on {host} is already in use (a sandbox already running at "
            f"http://{shown}:{port}?)",
            hint="use --port 0 to pick a free port, or stop what listens there",
        )
    reason = exc.strerror or str(exc)
    return UsageError(f"cannot listen on {shown}:{port}: {reason}", hint="check --host and --port")


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
    from svc.api.http import expect_json
    from svc.cli.app import current

    app_ctx = current()
    spec = {
        "email": email,
        "issuer": issuer,
        "aud": aud,
        "email_verified": not unverified,
        "exp_seconds": exp_seconds,
        "auth_age_seconds": auth_age_seconds,
        "typ": typ,
        "bad_signature": bad_signature,
    }
    url = app_ctx.settings.base_url + "/_sandbox/identity/id-jag"
    response = app_ctx.http.send("POST", url, what="mint-id-jag", json_body=spec, resend_safe=True)
    doc = expect_json(response, "mint-id-jag")
    assertion = doc.get("assertion") if isinstance(doc, dict) else None
    if not isinstance(assertion, str):
        raise UsageError(f"{app_ctx.settings.base_url} did not mint an assertion: is it a sandbox?")
    app_ctx.output.document(assertion)
