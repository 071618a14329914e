"""`svc sandbox serve`: the emulator on loopback until interrupted."""

from __future__ import annotations

import errno
from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.sandbox.scenario_tags import tag_list
from svc.errors import UsageError
from svc.operations.sandbox import SandboxServeRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


NETWORKS = ("testnet", "mainnet")


@app.command(
    help="Serve the sandbox on loopback until interrupted.\n\n"
    "Scenario tags in the task text choose what a task does: " + tag_list() + " "
    "(svc sandbox tags explains each).\n\n"
    "Its 402 asks for Base Sepolia test USDC (eip155:84532), which svc pays from loopback with "
    "no setting: nothing signed against it can move mainnet funds. --network mainnet offers "
    "Base mainnet USDC exactly as the service does (for fidelity tests).\n\n"
    "\b\nExamples:\n"
    "  svc sandbox serve\n"
    "  svc sandbox serve --port 0 --clock-speed 10\n"
    "  svc sandbox serve --network mainnet"
)
def serve(**given: Any) -> None:
    raise typer.Exit(run(SandboxServeRequest.model_construct(**given), current()))


# --host ... --network: as the operation declares them; a port and a clock speed are checked
# as they are parsed.
with_options_of(
    SandboxServeRequest,
    serve,
    {"port": {"min": 0, "max": 65535}, "clock_speed": {"min": 0.01}},
)


def run(opts: SandboxServeRequest, app_ctx: FaceContext) -> int:
    try:
        from svc_sandbox.server import bind_socket, is_loopback
        from svc_sandbox.server import serve_socket as serve_forever
    except ImportError as exc:
        raise UsageError(
            f"the sandbox is not installed ({exc.name}): pip install 'svc-cli[sandbox]'"
        ) from None
    host, port = opts.host, opts.port
    if opts.network not in NETWORKS:
        raise UsageError(f"--network must be testnet or mainnet, got {opts.network!r}")
    if not is_loopback(host) and not opts.allow_remote:
        raise UsageError(
            f"refusing to listen on {host}: the sandbox has no authentication",
            hint="use --host 127.0.0.1, or add --allow-remote to serve other machines",
        )
    try:
        sock = bind_socket(host, port, allow_remote=opts.allow_remote)
    except OSError as exc:
        raise _bind_error(host, port, exc) from None
    if opts.allow_remote and not is_loopback(host):
        app_ctx.output.warn(f"listening on {host}:{port}: anyone who can reach it may use it")
    if not opts.quiet:
        _banner(app_ctx, sock, opts.network)
    serve_forever(sock, clock_speed=opts.clock_speed, quiet=opts.quiet, network=opts.network)
    return 0


def _banner(app_ctx: FaceContext, sock: object, network: str) -> None:
    """What to try next, on stderr (stdout carries only the SANDBOX_URL= line scripts read)."""
    from svc_sandbox.server import socket_url

    url = socket_url(sock)  # type: ignore[arg-type]
    if network == "mainnet":
        app_ctx.output.info("sandbox: its 402 offers Base mainnet USDC, as the service does")
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
        app_ctx.output.info(line)


def _bind_error(host: str, port: int, exc: OSError) -> UsageError:
    shown = f"[{host}]" if ":" in host else host
    if exc.errno == errno.EADDRINUSE:
        return UsageError(
            f"port {port} on {host} is already in use (a sandbox already running at "
            f"http://{shown}:{port}?)",
            hint="use --port 0 to pick a free port, or stop what listens there",
        )
    reason = exc.strerror or str(exc)
    return UsageError(f"cannot listen on {shown}:{port}: {reason}", hint="check --host and --port")
