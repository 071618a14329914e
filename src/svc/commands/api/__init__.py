"""`svc api search|get`: the service's own OpenAPI description, paged."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.cli.app import command_group

if TYPE_CHECKING:
    import typer

MEMBERS = {
    "search": (
        "svc.commands.api.search",
        "Search the operations: ranked by QUERY, filtered exactly by --method and --path.",
    ),
    "get": (
        "svc.commands.api.get",
        "Show one operation (or every method on a path) from the description.",
    ),
}

app: typer.Typer = command_group(
    MEMBERS,
    "Search the service's OpenAPI description (10 operations a page).\n\n"
    "Free and wallet-free: the service's own description of its operations, read page by "
    "page.\n\n"
    "\b\nExamples:\n  svc api search task\n  svc api get /svc/tasks --method POST",
)
