"""`svc api search [QUERY]`: the operations, ranked and filtered, a page or all of them."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.api.operations import checked_method, show_pages
from svc.engines.discovery import Search, search_pages
from svc.errors import UsageError
from svc.operations.discovery import ApiSearchRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Search the operations: ranked by QUERY, filtered exactly by --method and --path.\n\n"
    "Shows the first page unless --page N or --all (which follows the next-page links). "
    "With --json: the OpenAPI document as returned (with --all, the pages merged).\n\n"
    "\b\nExamples:\n"
    "  svc api search task\n"
    "  svc api search --method POST --all\n"
    "  svc api search --path /svc/tasks --json | jq '.paths'"
)
def search(**given: Any) -> None:
    raise typer.Exit(run(ApiSearchRequest.model_construct(**given), current()))


# QUERY, --method ... --all: as the operation declares them; a page is checked as it is parsed.
with_options_of(ApiSearchRequest, search, {"page": {"min": 1}})


def run(opts: ApiSearchRequest, ctx: FaceContext) -> int:
    if opts.page is not None and opts.all_pages:
        raise UsageError("--page and --all cannot be combined")
    method = checked_method(opts.method)  # upper case, as the description spells it
    search = Search(opts.query, method, opts.path, opts.page)
    pages = search_pages(ctx, search, every=opts.all_pages)
    show_pages(ctx, pages, merged=opts.all_pages)
    return 0
