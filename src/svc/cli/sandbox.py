"""`svc sandbox serve`: the local emulator of the whole service."""

from __future__ import annotations

import typer

from svc.api.ids import path_segment, request_id_arg, task_id_arg
from svc.cli.app import current
from svc.cli.sandbox_tags import CODE_FAULTS, QUOTE_TAGS, TASK_TAGS, cheat_sheet, tag_list
from svc.errors import NotFoundError, SvcError, UsageError
from svc.origin import configured

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Run the local emulator of the service: tasks, x402 payments, scenarios. No money moves.\n\n"
    "approve, claim-code and mint-id-jag drive a running sandbox by hand. Scenario tags in a "
    "task's text choose what it does; see svc sandbox tags.\n\n"
    "\b\nExamples:\n  svc sandbox serve\n  svc sandbox serve --port 0 --clock-speed 10\n"
    "  svc sandbox tags",
)


@app.callback()
def sandbox() -> None:
    """Run the local emulator of the service: tasks, x402 payments, scenarios. No money moves."""


@app.command(
    help="Serve the sandbox on loopback until interrupted.\n\n"
    "Scenario tags in the task text choose what a task does: " + tag_list() + " "
    "(svc sandbox tags explains each).\n\n"
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
        current().output.warn(f"listening on {host}:{port}: anyone who can reach it may use it")
    if not quiet:
        _banner(sock)
    run(sock, clock_speed=clock_speed, quiet=quiet)


def _banner(sock: object) -> None:
    """What to try next, on stderr (stdout carries only the SANDBOX_URL= line scripts read)."""
    from svc_sandbox.server import socket_url

    url = socket_url(sock)  # type: ignore[arg-type]
    for line in (
        f"sandbox: no money moves. In another shell: export SVC_BASE_URL={url}",
        "  svc wallet create                     a test key; sandbox wallets start funded",
        "  svc submit 'Book seats #questions' --email me@example.com    then: svc reply ID",
        "  svc submit 'Buy the flight #approval' --email me@example.com",
        "                                        then: svc sandbox approve ID",
        "  svc identity register --email me@example.com && svc identity claim",
        "                                        then: svc sandbox claim-code",
        "  svc sandbox tags                      every scenario tag (#2fa, #hostile, ...)",
    ):
        current().output.info(line)


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
    url = app_ctx.base.join("/_sandbox/identity/id-jag")
    response = app_ctx.http.send("POST", url, what="mint-id-jag", json_body=spec, resend_safe=True)
    doc = expect_json(response, "mint-id-jag")
    assertion = doc.get("assertion") if isinstance(doc, dict) else None
    if not isinstance(assertion, str):
        raise UsageError(f"{app_ctx.settings.base_url} did not mint an assertion: is it a sandbox?")
    if app_ctx.settings.json_output:  # when asked: piped, it is the bare token `register` reads
        app_ctx.output.emit_json(doc)
        return
    app_ctx.output.document(assertion)


@app.command(
    help="List the scenario tags a task's text may carry, and what each does.\n\n"
    "A tag anywhere in the task text (or a quote's goal) picks the sandbox's behaviour; the "
    "list is text even when piped, and JSON with --json.\n\n"
    "\b\nExamples:\n  svc sandbox tags\n  svc sandbox tags | grep approval"
)
def tags() -> None:
    output = current().output
    if current().settings.json_output:  # only when asked, like help topics: `| grep` is text
        tasks = [{"tag": tag, "effect": what} for tag, what in TASK_TAGS]
        faults = [{"codes": what, "post": path, "body": body} for what, path, body in CODE_FAULTS]
        output.emit_json(
            {"task_tags": tasks, "quote_tags": QUOTE_TAGS.split(), "code_faults": faults}
        )
        return
    output.document(cheat_sheet())


@app.command(
    help="Approve a task's pending payment, as the person would in their app (sandbox only).\n\n"
    "For a task submitted with #approval once it asks for the payment; the next poll or "
    "watch sees the approval and the task carries on.\n\n"
    "\b\nExamples:\n  svc sandbox approve task_0123"
)
def approve(task_id: str = typer.Argument(..., metavar="ID", help="The task.")) -> None:
    app_ctx = current()
    segment = path_segment(task_id_arg(task_id), "ID")
    url = f"{app_ctx.settings.base_url}/_sandbox/tasks/{segment}/approve"
    doc = _admin_post(url, "sandbox approve")
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.line("approved {id}; the next poll shows it: svc watch {id}", id=task_id)


@app.command(
    name="pay-card",
    help="Press Pay (or Decline) on a card payment's page, as the person would (sandbox only).\n\n"
    "For a submit with --pay card that stopped at its payment page (exit 6 without a "
    "terminal): the newest waiting one, or REQUEST_ID's. Then `svc pay card` finishes it.\n\n"
    "\b\nExamples:\n"
    "  svc submit 'Book it' --email me@example.com --pay card --no-input   # exit 6\n"
    "  svc sandbox pay-card && svc pay card\n"
    "  svc sandbox pay-card req_0123 --decline",
)
def pay_card_page(
    request_id: str | None = typer.Argument(
        None, metavar="REQUEST_ID", help="The request (default: the newest card payment waiting)."
    ),
    decline: bool = typer.Option(False, "--decline", help="Press Decline instead of Pay."),
) -> None:
    from svc.api.http import expect_status  # httpx: loaded when a command needs it

    app_ctx = current()
    rid = request_id_arg(request_id, "REQUEST_ID") if request_id is not None else None
    saved = app_ctx.ledger.card_payment(rid) if app_ctx.has_ledger() else None
    page = saved and (saved.get("checkout_url") or saved.get("pay_url"))
    if not saved or not page:
        raise NotFoundError(
            f"no card payment page is waiting for {f'request {rid}' if rid else 'any submission'}",
            hint="a card payment starts with `svc submit --pay card`",
        )
    # The page is the sandbox's own: on the base URL's origin, or not pressed at all.
    url = app_ctx.base.derive(str(page), "the card payment page")
    action = "fail" if decline else "pay"
    what = "sandbox pay-card"
    response = app_ctx.http.send(
        "POST",
        url,
        what=what,
        json_body={"action": action},
        resend_safe=True,  # pressing twice is the same press
    )
    try:
        expect_status(response, what)
    except SvcError:
        raise UsageError(
            f"{app_ctx.settings.base_url} refused the press: is it a sandbox?"
        ) from None
    doc = {"request_id": saved["request_id"], "pressed": "decline" if decline else "pay"}
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
        return
    verb = "Declined" if decline else "Paid"
    app_ctx.output.line(
        "{verb} on the card page of request {rid}; finish it with: svc pay card {rid}",
        verb=verb,
        rid=saved["request_id"],
    )


@app.command(
    name="claim-code",
    help="Print the code of a pending claim link, so a claim can be tried without a browser.\n\n"
    "Signs in to the newest pending claim link (or --attempt) as its person and approves it, "
    "as the person would on the sign-in page (sandbox only).\n\n"
    "\b\nExamples:\n  svc sandbox claim-code\n"
    '  svc identity claim --code "$(svc sandbox claim-code | jq -r .user_code)"',
)
def claim_code(
    attempt: str | None = typer.Option(
        None, "--attempt", metavar="ID", help="A claim link's attempt id (default: the newest)."
    ),
) -> None:
    app_ctx = current()
    url = app_ctx.settings.base_url + "/_sandbox/identity/claim-code"
    if attempt is not None:
        url += "?attempt_id=" + task_id_arg(attempt, "--attempt")
    doc = _admin_post(url, "sandbox claim-code")
    code = doc.get("user_code")
    if not isinstance(code, str):
        raise UsageError(f"{app_ctx.settings.base_url} did not give a code: is it a sandbox?")
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json(doc)
    else:
        app_ctx.output.line(code)


def _admin_post(url: str, what: str) -> dict[str, object]:
    """POST to a sandbox control route; a real service has none (404 -> "is it a sandbox?")."""
    from svc.api.http import expect_json

    app_ctx = current()
    target = configured(url, what)  # the person's own base URL and a sandbox path
    response = app_ctx.http.send("POST", target, what=what, json_body={}, resend_safe=True)
    doc = expect_json(response, what)
    if not isinstance(doc, dict):
        raise UsageError(f"{app_ctx.settings.base_url} did not answer: is it a sandbox?")
    return doc
