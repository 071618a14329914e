"""The service's discovery documents, fetched for the faces that show them: the services,
the manifest, the agent guide (llms.txt), and the operations of its OpenAPI description (a
search page, every page, one service's).

Each returns the document as the service sent it (or folded from its pages); what a face
draws of it, and the words of a refusal that names a flag, are the face's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from svc.api.discovery import METHODS, DiscoveryClient, Page, collect, operations
from svc.context import AppContext

__all__ = [
    "METHODS",
    "GuideText",
    "Page",
    "Search",
    "collect",
    "llms_text",
    "manifest",
    "matching_operations",
    "operations",
    "search_pages",
    "service_operations",
    "services",
]


@dataclass(frozen=True)
class Search:
    """What the OpenAPI search is asked: ranked by `query`, filtered exactly by `method`
    (upper case) and `path`, from page `page` (None: the first)."""

    query: str | None = None
    method: str | None = None
    path: str | None = None
    page: int | None = None


@dataclass(frozen=True)
class GuideText:
    url: str
    content_type: str
    text: str


def _client(app: AppContext) -> DiscoveryClient:
    return DiscoveryClient(app.http, app.settings.base_url)


def services(app: AppContext) -> Any:
    """GET /services, as returned."""
    return _client(app).services()


def manifest(app: AppContext) -> Any:
    """GET /manifest.json, as returned."""
    return _client(app).manifest()


def llms_text(app: AppContext, *, full: bool = False) -> GuideText:
    """The agent guide, /llms.txt (or /llms-full.txt), as text."""
    path = "/llms-full.txt" if full else "/llms.txt"
    text, content_type = _client(app).text(path, what=path.lstrip("/"))
    return GuideText(app.settings.base_url + path, content_type, text)


def search_pages(app: AppContext, search: Search, *, every: bool) -> Iterator[Page]:
    """The search's first page, or (`every`) each page from there on by the next links."""
    client = _client(app)
    url = client.search_url(
        q=search.query, method=search.method, path=search.path, page=search.page
    )
    if every:
        yield from client.pages(url)
    else:
        yield client.page(url)


def matching_operations(
    app: AppContext, path: str, method: str | None
) -> tuple[dict[str, Any], list[tuple[str, str, dict[str, Any]]]]:
    """Every page's whole operations on a path template (or its one method): the merged
    document and its (METHOD, path, operation) rows, none when the description has none."""
    doc = collect(search_pages(app, Search(method=method, path=path), every=True))
    return doc, operations(doc)


def service_operations(app: AppContext, slug: str, *, slim: bool) -> dict[str, Any]:
    """One service's description, every page folded (`slim`: only what a table shows)."""
    client = _client(app)
    pages = client.pages(client.service_url(slug), what=f"service {slug}")
    return collect(pages, slim=slim)
