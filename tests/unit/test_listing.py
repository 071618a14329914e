"""A paged listing is folded page by page (issue 30.16): no page is kept whole once a second
one came, and a table's listing keeps only what the table shows."""

from __future__ import annotations

from typing import Any

from svc.api.discovery import SLIM_TEXT, Listing, operations


def page(number: int, *, pad: int = 10) -> dict[str, Any]:
    op = {"summary": f"op {number}", "description": "x" * pad, "x-payment-info": {"priceUsd": "0"}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "t", "x-next": f"/openapi.json?page={number + 1}"},
        "paths": {f"/op-{number}": {"get": op, "parameters": [{"name": "p"}]}},
        "components": {"schemas": {f"S{number}": {"type": "object"}}},
    }


def test_one_page_is_the_page_as_returned() -> None:
    listing = Listing()
    first = page(1)
    listing.add(first)
    assert listing.document() is first
    assert listing.document(as_returned=False)["info"] == {"title": "t", "x-pages-fetched": 1}


def test_pages_merge_whole_for_json() -> None:
    listing = Listing()
    for number in (1, 2, 3):
        listing.add(page(number))
    doc = listing.document()
    assert listing.first is None  # folded: no page is held whole
    assert doc["info"] == {"title": "t", "x-pages-fetched": 3}
    assert doc["paths"]["/op-2"]["parameters"] == [{"name": "p"}]  # path items as returned
    assert doc["paths"]["/op-3"]["get"]["description"] == "x" * 10
    assert set(doc["components"]["schemas"]) == {"S1", "S2", "S3"}


def test_a_table_listing_keeps_only_summaries_and_prices_bounded() -> None:
    listing = Listing(slim=True)
    for number in (1, 2):
        doc = page(number, pad=100_000)
        doc["paths"]["/op-" + str(number)]["get"]["summary"] = "s" * 100_000
        listing.add(doc)
    merged = listing.document()
    assert "components" not in merged and merged["info"] == {"x-pages-fetched": 2}
    rows = operations(merged)
    assert [(m, p) for m, p, _ in rows] == [("GET", "/op-1"), ("GET", "/op-2")]
    assert rows[0][2] == {"summary": "s" * SLIM_TEXT, "x-payment-info": {"priceUsd": "0"}}
