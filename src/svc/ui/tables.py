"""Tables built from plain values: every cell is cleaned here, whatever the caller passed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from svc.ui.sanitize import clean

if TYPE_CHECKING:
    from rich.table import Table

    from svc.ui.output import Column

CELL_LIMIT = 300


def cell(value: object, limit: int = CELL_LIMIT) -> Any:
    """A rich Text of one value: `Styled` keeps its style, rich objects are refused (they
    could carry text nobody cleaned), anything else is shown as cleaned str."""
    from rich.text import Text

    from svc.ui.output import Styled

    if isinstance(value, Styled):
        return Text(clean(value.text, limit, single_line=True), style=value.style)
    if value is None:
        return Text("")
    return Text(clean(value, limit, single_line=True))


def build_table(
    columns: Sequence[str | Column],
    rows: Iterable[Sequence[object]],
    *,
    title: str | None = None,
    lines: bool = False,
    header: bool = True,
) -> Table:
    from rich.table import Table

    from svc.ui.output import Column

    options: dict[str, Any] = {"show_edge": False, "pad_edge": False}
    if not lines:
        options = {"box": None, "header_style": "bold"}
    table = Table(
        title=clean(title, 200, single_line=True) if title else None,
        title_justify="left",
        show_header=header,
        **options,
    )
    for column in columns:
        spec = column if isinstance(column, Column) else Column(column)
        table.add_column(
            clean(spec.heading, 100, single_line=True),
            overflow="fold" if spec.fold else "ellipsis",
            justify="right" if spec.right else "left",
        )
    for row in rows:
        table.add_row(*(cell(value) for value in row))
    return table


def pairs_table(rows: Iterable[tuple[str, object]]) -> Table:
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=False, box=None, pad_edge=False)
    for key, value in rows:
        table.add_row(Text(clean(key, 100, single_line=True), style="dim"), cell(value))
    return table
