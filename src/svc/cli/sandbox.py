"""`svc sandbox serve`: the local emulator of the whole service."""

from __future__ import annotations

import typer

from svc.api.errors import UsageError

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Run the local emulator of the service: tasks, x402 payments, scenarios. No money moves.",
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
        "127.0.0.1", "--host", help="Address to bind (loopback only unless --allow-remote)."
    ),
    port: int = typer.Option(8402, "--port", min=0, max=65535, help="Port; 0 picks a free one."),
    clock_speed: float = typer.Option(
        1.0, "--clock-speed", min=0.01, help="Sandbox seconds per real second."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No access log."),
) -> None:
    try:
        from svc_sandbox.server import serve as run
    except ImportError as exc:
        raise UsageError(
            f"the sandbox is not installed ({exc.name}): pip install 'svc-cli[sandbox]'"
        ) from None
    run(host=host, port=port, clock_speed=clock_speed, quiet=quiet)
