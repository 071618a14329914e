"""`svc api search` and `svc api get`: the service's own OpenAPI description, paged."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from svc.cli.app import current
from svc.errors import NotFoundError, UsageError
from svc.ui.operations import draw_operation, draw_operations

if TYPE_CHECKING:
    from svc.api.discovery import DiscoveryClient, Page
    from svc.ui.output import Output

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Search the service's OpenAPI description (10 operations a page).\n\n"
    "Free and wallet-free: the service's own description of its operations, read page by "
    "page.\n\n"
    "\b\nExamples:\n  svc api search task\n  svc api get /svc/tasks --method POST",
)


@app.callback()
def api() -> None:
    """Search the service's OpenAPI description (10 operations a page)."""


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
    discovery = _client()
    url = discovery.search_url(q=query, method=_method(method), path=path, page=page)
    if all_pages:
        _show_pages(list(discovery.pages(url)), merged=True)
    else:
        _show_pages([discovery.page(url)], merged=False)


@app.command(
    name="get",
    help="Show one operation (or every method on a path) from the description.\n\n"
    "PATH is a path template as listed by `svc api search`. With --json: the operations as "
    "the description gives them.\n\n"
    "\b\nExamples:\n"
    "  svc api get /svc/tasks --method POST\n"
    "  svc api get '/svc/tasks/{ticket_id}' --json",
)
def get(
    path: str = typer.Argument(..., metavar="PATH", help="The path template, e.g. /svc/tasks."),
    method: str | None = typer.Option(
        None, "--method", "-X", metavar="M", help="Only this HTTP method."
    ),
) -> None:
    from svc.api.discovery import merge, operations

    app_ctx = current()
    discovery = _client()
    url = discovery.search_url(q=None, method=_method(method), path=path, page=None)
    pages = list(discovery.pages(url))
    doc = merge(pages) if len(pages) > 1 else pages[0].doc
    found = operations(doc)
    if not found:
        which = f"{method.upper()} {path}" if method else path
        raise NotFoundError(
            f"no operation {which} in the service's description",
            hint="list them with: svc api search --all",
        )
    app_ctx.output.show(doc, lambda out, _: _details(out, found))


def _details(out: Output, found: list[tuple[str, str, dict[str, Any]]]) -> None:
    for index, (verb, op_path, op) in enumerate(found):
        if index:
            out.line()
        draw_operation(out, verb, op_path, op)


def _client() -> DiscoveryClient:
    from svc.api.discovery import DiscoveryClient

    app_ctx = current()
    return DiscoveryClient(app_ctx.http, app_ctx.settings.base_url)


def _method(method: str | None) -> str | None:
    from svc.api.discovery import METHODS

    if method is None:
        return None
    if method.lower() not in METHODS:
        names = ", ".join(m.upper() for m in METHODS)
        raise UsageError(f"--method must be an HTTP method ({names}), got {method!r}")
    return method.upper()


def _show_pages(pages: list[Page], *, merged: bool) -> None:
    from svc.api.discovery import merge, operations

    app_ctx = current()
    doc = merge(pages) if merged else pages[0].doc

    def draw(out: Output, doc: dict[str, Any]) -> None:
        rows = operations(doc)
        if rows:
            draw_operations(out, rows)
        else:
            out.note("no operation matches")

    app_ctx.output.show(doc, draw)
    if not merged and pages[0].next_url:
        app_ctx.output.note(_more_hint(pages[0].doc.get("info")))


def _more_hint(info: object) -> str:
    info = info if isinstance(info, dict) else {}
    number = info.get("x-page")
    of = info.get("x-pages")
    total = info.get("x-total-operations")
    where = f"page {number}" if isinstance(number, int) else "this page"
    if isinstance(of, int):
        where += f" of {of}"
    if isinstance(total, int):
        where += f" ({total} operations)"
    following = number + 1 if isinstance(number, int) else "N"
    return f"{where}; more with --page {following} or --all"
