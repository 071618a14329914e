"""The discovery documents: the paged OpenAPI search, services, the manifest, llms.txt.

Pages are followed by `info.x-next` first, then a `Link: <…>; rel="next"` header; a next link
must stay on the service's own origin (a document cannot send the client elsewhere).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import httpx

from svc.api.headers import CONTENT_TYPE
from svc.api.http import Http, expect_json
from svc.api.ids import path_segment
from svc.api.status import error_from_response
from svc.errors import ProtocolError
from svc.money import AmountError, atomic_to_usd, parse_usd, usd_to_atomic
from svc.origin import configured

METHODS = ("get", "put", "post", "delete", "patch", "options", "head", "trace")
MAX_PAGES = 200  # a runaway chain of next links stops here
TEXT_ACCEPT = "text/plain, text/markdown;q=0.9, */*;q=0.1"


@dataclass
class Page:
    doc: dict[str, Any]
    url: str
    next_url: str | None


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


def merge(pages: list[Page]) -> dict[str, Any]:
    """One document holding every page's operations (the first page's info, no x-next)."""
    first = pages[0].doc
    merged: dict[str, Any] = {k: v for k, v in first.items() if k not in ("paths", "components")}
    info = dict(first.get("info") or {})
    info.pop("x-next", None)
    info["x-pages-fetched"] = len(pages)
    merged["info"] = info
    paths: dict[str, Any] = {}
    schemas: dict[str, Any] = {}
    for page in pages:
        for path, item in (page.doc.get("paths") or {}).items():
            if isinstance(item, dict):
                paths.setdefault(path, {}).update(item)
        components = page.doc.get("components") or {}
        schemas.update(components.get("schemas") or {} if isinstance(components, dict) else {})
    merged["paths"] = paths
    if schemas:
        merged["components"] = {"schemas": schemas}
    return merged


def payment_price(op: dict[str, Any]) -> str | None:
    info = op.get("x-payment-info")
    if isinstance(info, dict) and isinstance(info.get("priceUsd"), str):
        return str(info["priceUsd"])
    return None


class DiscoveryClient:
    def __init__(self, http: Http, base_url: str) -> None:
        self.http = http
        self.base_url = base_url
        self.base = configured(base_url, "the base URL")

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
        return Page(doc, url, self._next(doc, response))

    def pages(self, url: str, what: str = "openapi search") -> Iterator[Page]:
        """Every page from `url` on, following the next links."""
        seen: set[str] = set()
        current: str | None = url
        while current is not None:
            if current in seen or len(seen) >= MAX_PAGES:
                raise ProtocolError(f"{what}: the next-page links loop or never end")
            seen.add(current)
            page = self.page(current, what)
            yield page
            current = page.next_url

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
