"""`svc api search [QUERY]`: the operations, ranked and filtered, a page or all of them."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.api.operations import checked_method, show_pages
from svc.engines.discovery import Search, search_pages
from svc.errors import UsageError
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class SearchOptions:
    query: str | None = None
    method: str | None = None  # upper case, checked
    path: str | None = None
    page: int | None = None
    all_pages: bool = False


@app.command(
    help="Search the operations: ranked by QUERY, filtered exactly by --method and --path.\n\n"
    "Shows the first page unless --page N or --all (which follows the next-page links). "
    "With --json: the OpenAPI document as returned (with --all, the pages merged).\n\n"
    "\b\nExamples:\n"
    "  svc api search task\n"
    "  svc api search --method POST --all\n"
    "  svc api search --path /svc/tasks --json | jq '.paths'"
)
def search(
    query: str | None = typer.Argument(None, metavar="QUERY", help="Words to search for."),
    method: str | None = typer.Option(
        None, "--method", "-X", metavar="M", help="Only this HTTP method (exact)."
    ),
    path: str | None = typer.Option(
        None,
        "--path",
        metavar="P",
        help="Only this path template (exact), e.g. /svc/tasks/{ticket_id}.",
    ),
    page: int | None = typer.Option(None, "--page", min=1, metavar="N", help="Show page N."),
    all_pages: bool = typer.Option(False, "--all", help="Follow every next page."),
) -> None:
    if page is not None and all_pages:
        raise UsageError("--page and --all cannot be combined")
    opts = SearchOptions(query, checked_method(method), path, page, all_pages)
    raise typer.Exit(run(opts, current()))


def run(opts: SearchOptions, ctx: FaceContext) -> int:
    search = Search(opts.query, opts.method, opts.path, opts.page)
    pages = search_pages(ctx, search, every=opts.all_pages)
    show_pages(ctx, pages, merged=opts.all_pages)
    return 0
