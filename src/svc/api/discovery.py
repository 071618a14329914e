"""The discovery documents: the paged OpenAPI search, services, the manifest, llms.txt.

Pages are followed by `info.x-next` first, then a `Link: <…>; rel="next"` header; a next link
must stay on the service's own origin (a document cannot send the client elsewhere).

Every page is bounded (the transport's answer cap) and so are the pages together (issue
30.16: endless 16 MB pages grew a listing to 3 GB): `Listing` folds each page into one
document as it arrives and drops it, keeping only the operations' summaries when that is all
a table shows, and the pages together may hold PAGES_TOTAL_FACTOR times one answer's cap.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import httpx

from svc.api.headers import CONTENT_TYPE
from svc.api.http import Http
from svc.api.ids import path_segment
from svc.api.response import expect_json
from svc.api.status import error_from_response
from svc.errors import ProtocolError
from svc.money import AmountError, atomic_to_usd, parse_usd, usd_to_atomic
from svc.origin import TrustedURL, configured

METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")
MAX_PAGES = 200  # a runaway chain of next links stops here
PAGES_TOTAL_FACTOR = 4  # the pages of one listing together: this many times one answer's cap
SLIM_TEXT = 1000  # characters of a summary or path kept for a table (it shows fewer)
TEXT_ACCEPT = "text/plain, text/markdown;q=0.9, */*;q=0.1"


@dataclass
class Page:
    doc: dict[str, Any]
    url: str
    next_url: str | None
    size: int = 0  # bytes of the answer, decoded


class ListingTooLargeError(ProtocolError):
    """The pages of one listing together are more than svc holds (exit 1, like one answer
    over its cap: the service answered, so "unavailable, try again" (9) would mislead)."""

    def __init__(self, what: str, limit: int, pages: int) -> None:
        super().__init__(
            f"{what}: the pages together are larger than {limit} bytes ({pages} read); "
            "stopped following the next-page links",
            code="listing_too_large",
            hint="ask for fewer operations (a search word, a method or a path) or one page at "
            "a time; SVC_MAX_RESPONSE_BYTES raises the bound (the pages together may hold "
            f"{PAGES_TOTAL_FACTOR} times it)",
        )


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) for every operation in an OpenAPI document."""
    found: list[tuple[str, str, dict[str, Any]]] = []
    paths = doc.get("paths")
    if not isinstance(paths, dict):
        return found
    for path, item in paths.items():
        if not isinstance(item, dict):
            continue
        for method, op in item.items():
            if method.lower() in METHODS and isinstance(op, dict):
                found.append((method.upper(), str(path), op))
    return found


@dataclass
class Listing:
    """Every page's operations in one document, folded page by page (no page is kept whole
    once a second one came): the first page's other members (its info without x-next), the
    path items, the schemas. `slim` keeps of each operation only what a table shows (its
    summary and price). A listing of one page is that page as returned."""

    slim: bool = False
    first: dict[str, Any] | None = None  # until a second page comes
    head: dict[str, Any] = field(default_factory=dict)
    paths: dict[str, dict[str, Any]] = field(default_factory=dict)
    schemas: dict[str, Any] = field(default_factory=dict)
    count: int = 0

    def add(self, doc: dict[str, Any]) -> None:
        self.count += 1
        if self.count == 1:
            self.first = doc
            if not self.slim:  # a table shows none of it
                self.head = {k: v for k, v in doc.items() if k not in ("paths", "components")}
            return
        if self.first is not None:
            self._fold(self.first)
            self.first = None
        self._fold(doc)

    def _fold(self, doc: dict[str, Any]) -> None:
        if self.slim:
            for method, path, op in operations(doc):
                self.paths.setdefault(path[:SLIM_TEXT], {})[method.lower()] = _slim(op)
            return
        for path, item in (doc.get("paths") or {}).items():
            if isinstance(item, dict):
                self.paths.setdefault(path, {}).update(item)
        components = doc.get("components")
        schemas = components.get("schemas") if isinstance(components, dict) else None
        if isinstance(schemas, dict):
            self.schemas.update(schemas)

    def document(self, *, as_returned: bool = True) -> dict[str, Any]:
        """The merged document; a single page as returned unless `as_returned` is False."""
        if self.first is not None:
            if as_returned:
                return self.first
            self._fold(self.first)
            self.first = None
        merged = dict(self.head)
        info = self.head.get("info")
        info = dict(info) if isinstance(info, dict) else {}
        info.pop("x-next", None)
        info["x-pages-fetched"] = self.count
        merged["info"] = info
        merged["paths"] = self.paths
        if self.schemas:
            merged["components"] = {"schemas": self.schemas}
        return merged


def _slim(op: dict[str, Any]) -> dict[str, Any]:
    """What the operations table shows of an operation, bounded."""
    kept: dict[str, Any] = {}
    if isinstance(op.get("summary"), str):
        kept["summary"] = op["summary"][:SLIM_TEXT]
    price = payment_price(op)
    if price is not None:
        kept["x-payment-info"] = {"priceUsd": price[:SLIM_TEXT]}
    return kept


def collect(
    pages: Iterable[Page], *, slim: bool = False, as_returned: bool = True
) -> dict[str, Any]:
    """One document of every page's operations (see Listing); pages are dropped as folded."""
    listing = Listing(slim)
    for page in pages:
        listing.add(page.doc)
    return listing.document(as_returned=as_returned)


def payment_price(op: dict[str, Any]) -> str | None:
    info = op.get("x-payment-info")
    if isinstance(info, dict) and isinstance(info.get("priceUsd"), str):
        return str(info["priceUsd"])
    return None


class DiscoveryClient:
    def __init__(self, http: Http, base_url: str) -> None:
        self.http = http
        self.base_url = base_url
        self.base: TrustedURL = configured(base_url, "the base URL")

    # --- OpenAPI pages ---------------------------------------------------------------------

    def search_url(
        self, *, q: str | None, method: str | None, path: str | None, page: int | None
    ) -> str:
        params = {
            k: v
            for k, v in (("q", q), ("method", method), ("path", path), ("page", page))
            if v not in (None, "")
        }
        return str(httpx.URL(self.base_url + "/openapi.json", params=params))

    def service_url(self, slug: str) -> str:
        return f"{self.base_url}/services/{path_segment(slug, 'SLUG')}/openapi.json"

    def page(self, url: str, what: str = "openapi search") -> Page:
        response = self.http.send("GET", self.base.derive(url, what), what=what, resend_safe=True)
        doc = expect_json(response, what)
        if not isinstance(doc, dict):
            raise ProtocolError(f"{what}: the server's answer is not an OpenAPI document")
        return Page(doc, url, self._next(doc, response), len(response.content))

    def pages(self, url: str, what: str = "openapi search") -> Iterator[Page]:
        """Every page from `url` on, following the next links, until the pages together pass
        their bound (ListingTooLargeError). Each page is the caller's to fold and drop."""
        limit = PAGES_TOTAL_FACTOR * self.http.max_response_bytes
        seen: set[str] = set()
        total = 0
        current: str | None = url
        while current is not None:
            if current in seen or len(seen) >= MAX_PAGES:
                raise ProtocolError(f"{what}: the next-page links loop or never end")
            seen.add(current)
            page = self.page(current, what)
            total += page.size
            if total > limit:
                raise ListingTooLargeError(what, limit, len(seen))
            current = page.next_url
            yield page
            del page  # not held while the next page is read

    def _next(self, doc: dict[str, Any], response: httpx.Response) -> str | None:
        info = doc.get("info")
        target = info.get("x-next") if isinstance(info, dict) else None
        if not isinstance(target, str) or not target:
            target = response.links.get("next", {}).get("url")
        if not target:
            return None
        absolute = response.request.url.join(target)
        return str(self.base.derive(str(absolute), "the next page link"))

    # --- the other documents ---------------------------------------------------------------

    def services(self) -> Any:
        return self.http.get_json(self.base.join("/services"), what="services")

    def manifest(self) -> Any:
        return self.http.get_json(self.base.join("/manifest.json"), what="manifest")

    def text(self, path: str, what: str) -> tuple[str, str]:
        """(text, content type) of a text document such as /llms.txt."""
        response = self.http.send(
            "GET",
            self.base.join(path),
            what=what,
            headers={"Accept": TEXT_ACCEPT},
            resend_safe=True,
        )
        if response.status_code != 200:
            raise error_from_response(response.status_code, response.content, what)
        return response.text, response.headers.get(CONTENT_TYPE, "")


def task_price(manifest: Any) -> Decimal | None:
    """The per-task price in a manifest (service `tasks`, meter `task`), if it states one."""
    if not isinstance(manifest, dict):
        return None
    candidates: list[Any] = []
    for plan in manifest.get("plans") or []:
        if isinstance(plan, dict):
            candidates += [r for r in plan.get("rates") or [] if isinstance(r, dict)]
    candidates += [p for p in manifest.get("prices") or [] if isinstance(p, dict)]
    for rate in candidates:
        if rate.get("service") == "tasks" and rate.get("meter") == "task":
            try:  # the one amount parser: `1e999999`, `NaN`, `1_0`, non-ASCII digits: no price
                return atomic_to_usd(usd_to_atomic(parse_usd(rate.get("priceUsd"), "priceUsd")))
            except AmountError:
                continue
    return None
