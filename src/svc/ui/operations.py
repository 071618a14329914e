"""Showing OpenAPI operations on a terminal: a table of many, the facts of one."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from svc.sanitize import clean
from svc.words import price as price_words

if TYPE_CHECKING:
    from rich.console import RenderableType

    from svc.ui.output import Output


def draw_operations(out: Output, rows: list[tuple[str, str, dict[str, Any]]]) -> None:
    out.draw(operations_table(rows))


def draw_operation(out: Output, method: str, path: str, op: dict[str, Any]) -> None:
    out.draw(operation_detail(method, path, op))


def operations_table(rows: list[tuple[str, str, dict[str, Any]]]) -> RenderableType:
    from rich.table import Table

    from svc.api.discovery import payment_price

    table = Table(show_edge=False, pad_edge=False)
    table.add_column("METHOD", no_wrap=True)
    table.add_column("PATH", overflow="fold")
    table.add_column("SUMMARY", overflow="fold")
    table.add_column("PRICE", justify="right", no_wrap=True)
    for method, path, op in rows:
        price = payment_price(op)
        table.add_row(
            method,
            clean(path, 300, single_line=True),
            clean(op.get("summary", ""), 200, single_line=True),
            price_words(price) if price is not None else "",
        )
    return table


def operation_detail(method: str, path: str, op: dict[str, Any]) -> RenderableType:
    """The operation's own words, then its whole description as JSON (inert text)."""
    from rich.console import Group
    from rich.json import JSON
    from rich.text import Text

    head = Text(f"{method} {clean(path, 300, single_line=True)}", style="bold")
    parts: list[RenderableType] = [head]
    summary = op.get("summary")
    if summary:
        parts.append(Text(clean(summary, 500)))
    description = op.get("description")
    if description:
        parts.append(Text(clean(description, 4000), style="dim"))
    responses = op.get("responses")
    if isinstance(responses, dict):
        parts.append(Text("responses: " + ", ".join(clean(k, 10) for k in responses)))
    parts.append(JSON(json.dumps(op, ensure_ascii=True), highlight=False))
    return Group(*parts)
