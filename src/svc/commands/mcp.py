"""`svc mcp`: serve the tasks, wallet, policy and ledger to an AI agent host over MCP (stdio)."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.context import AppContext

app = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class McpOptions:
    """No flags of its own: the profile says which wallet, policy and ledger it serves."""


@app.command(
    help="Serve svc to an AI agent host as a Model Context Protocol server on stdin/stdout.\n\n"
    "An MCP host (Claude Desktop, Cursor, an Agents SDK program) starts it; it is not meant "
    "to be run by hand. Tools: submit_task, get_task, wait_for_task, reply_to_task, quote, "
    "guide, list_tasks, spend; each ledger task is a resource svc://tasks/ID. It uses this "
    "profile's wallet, payment policy, daily cap and ledger, exactly as the other commands. "
    "The person confirms every payment through the host (MCP elicitation), unless "
    "mcp_preapproved_usd pre-approves that price; a host that cannot ask gets a refusal and "
    "nothing is signed. Secrets a task asks for (2FA codes, passwords) are asked of the person "
    "the same way and never shown to the model. Diagnostics go to stderr.\n\n"
    "\b\nExamples:\n"
    "  svc mcp\n"
    "  svc --profile work mcp\n"
    "  svc config set mcp_preapproved_usd 1.50"
)
def mcp() -> None:
    raise typer.Exit(run(McpOptions(), current()))


def run(opts: McpOptions, ctx: AppContext) -> int:
    from svc.mcp.server import serve_stdio  # the MCP SDK: loaded only for `svc mcp`

    return serve_stdio(ctx)
