"""How an operation's document is drawn on a terminal: its own view where it has one, else
every member as a `name: value` line (nested members as `parent.name`). Every value is outside
text (the ledger's, a server's): `Output.pairs` cleans it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from svc.ui import views_receipt

if TYPE_CHECKING:
    from svc.ui.output import Output

View = Callable[["Output", dict[str, Any]], None]

# operation name -> its view
VIEWS: dict[str, View] = {"receipt": views_receipt.receipt}


def view_for(operation: str) -> View:
    return VIEWS.get(operation, members)


def members(out: Output, doc: dict[str, Any]) -> None:
    out.pairs(list(_flattened(doc)))


def _flattened(doc: dict[str, Any], prefix: str = "") -> list[tuple[str, object]]:
    rows: list[tuple[str, object]] = []
    for key, value in doc.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            rows += _flattened(value, f"{name}.")
        else:
            rows.append((name, "-" if value is None else value))
    return rows
