"""`svc mcp`: serve the tasks, wallet, policy and ledger to an AI agent host over MCP (stdio or
Streamable HTTP on loopback), and `svc mcp token`: the HTTP server's bearer token."""

from __future__ import annotations

from typing import Any

import typer

from svc import telemetry
from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines import mcp_token
from svc.errors import UsageError
from svc.mcp.guard import loopback_address
from svc.operations.setup import MCP_HOST, MCP_PORT, McpRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)

ACTIONS = ("token",)  # the action: none serves; "token" shows (or rotates) the HTTP token


@app.command(
    help="Serve svc to an AI agent host as a Model Context Protocol server.\n\n"
    "On stdin/stdout by default: an MCP host (Claude Desktop, Cursor, an Agents SDK program) "
    "starts it; it is not meant to be run by hand. With --http it serves Streamable HTTP at "
    "http://127.0.0.1:PORT/mcp until interrupted, on loopback only, to hosts that send "
    "'Authorization: Bearer TOKEN'; the token is made on first use, printed that once "
    "(MCP_TOKEN=), and kept in the secret store. 'svc mcp token' prints it again, "
    "'svc mcp token --rotate' replaces it (a running server takes the new one within seconds). "
    "Requests from web pages (another Origin), to another host name, or with a query string "
    "are refused.\n\n"
    "Tools: submit_task, get_task, wait_for_task, reply_to_task, quote, guide, list_tasks, "
    "spend; each ledger task is a resource svc://tasks/ID. It uses this profile's wallet, "
    "payment policy, daily cap and ledger, exactly as the other commands. The person confirms "
    "every payment through the host (MCP elicitation, or under the 2026-07-28 protocol an "
    "input-required round), unless mcp_preapproved_usd pre-approves that price; a host that "
    "cannot ask gets a refusal and nothing is signed. Secrets a task asks for (2FA codes, "
    "passwords) are asked of the person the same way and never shown to the model. "
    "Diagnostics go to stderr.\n\n"
    "\b\nExamples:\n"
    "  svc mcp\n"
    "  svc --profile work mcp\n"
    "  svc mcp --http --port 8765\n"
    "  svc mcp token --rotate\n"
    "  svc config set mcp_preapproved_usd 1.50"
)
def mcp(**given: Any) -> None:
    raise typer.Exit(run(McpRequest.model_construct(**given), current()))


# token, --http ... --rotate: as the operation declares them; a port is checked as it is parsed.
with_options_of(McpRequest, mcp, {"port": {"min": 0, "max": 65535}})


def run(opts: McpRequest, ctx: FaceContext) -> int:
    _check(opts)
    if opts.action == "token":
        return show_token(ctx, opts.rotate)
    aside = telemetry.set_aside_unknown_plugins()  # before the MCP SDK loads OpenTelemetry
    if aside:
        ctx.output.warn(aside)
    if opts.http:
        from svc.mcp.http import serve_http  # the MCP SDK and uvicorn: only for a server

        return serve_http(ctx, opts.host, opts.port)
    from svc.mcp.server import serve_stdio  # the MCP SDK: loaded only for `svc mcp`

    return serve_stdio(ctx)


def _check(opts: McpRequest) -> None:
    if opts.action is not None and opts.action not in ACTIONS:
        raise UsageError(
            f"unknown action {opts.action!r} for svc mcp", hint="svc mcp, or svc mcp token"
        )
    if opts.rotate and opts.action != "token":
        raise UsageError("--rotate goes with svc mcp token")
    if opts.action == "token" and opts.http:
        raise UsageError("svc mcp token prints the token; serve with svc mcp --http")
    if not opts.http and opts.action is None:
        serving = opts.host != MCP_HOST or opts.port != MCP_PORT
        if serving:
            raise UsageError("--host and --port go with --http")
    if opts.http:
        loopback_address(opts.host)  # before anything else: exit 2, nothing bound


def show_token(ctx: FaceContext, rotate: bool) -> int:
    if rotate:
        ctx.output.line(mcp_token.rotate(ctx))
        ctx.output.info("svc mcp: the old token no longer works; give hosts the new one")
        return 0
    token, made = mcp_token.ensure(ctx)
    ctx.output.line(token)
    if made:
        ctx.output.info("svc mcp: a new token was made for svc mcp --http")
    return 0
