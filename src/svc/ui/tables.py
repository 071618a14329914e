"""Tables built from plain values: every cell is cleaned here, whatever the caller passed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from svc.sanitize import clean
from svc.words import yes_no

if TYPE_CHECKING:
    from rich.table import Table


class Styled(NamedTuple):
    """A table cell or line with a style of ours; the text is still cleaned when drawn."""

    text: object
    style: str = ""


class Stacked(NamedTuple):
    """A cell of several values, one above the other (a task id over its request id): two
    whole ids side by side leave no room on 80 columns for anything else."""

    values: tuple[object, ...]


class Column(NamedTuple):
    heading: str
    fold: bool = False  # wrap long values instead of cutting them
    right: bool = False  # right-justified (amounts)
    whole: bool = False  # ids: never cut or wrapped, so they can be copied; others give way
    drop: int = 0  # on a narrow terminal, columns with the highest `drop` go first (0: kept)


CELL_LIMIT = 300
MIN_READABLE = 10  # a column narrower than this is noise, not information
LONG_WORD = 24  # a word longer than this may be folded in a wrapping column (a sentence's URL)
PADDING = 2  # rich's cell padding between columns


def cell(value: object, limit: int = CELL_LIMIT) -> Any:
    """A rich Text of one value: `Styled` keeps its style, rich objects are refused (they
    could carry text nobody cleaned), anything else is shown as cleaned str."""
    from rich.text import Text

    if isinstance(value, Styled):
        return Text(clean(value.text, limit, single_line=True), style=value.style)
    if isinstance(value, Stacked):
        return Text("\n".join(clean(v, limit, single_line=True) for v in value.values))
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
    width: int | None = None,
) -> Table:
    from rich.table import Table

    options: dict[str, Any] = {"show_edge": False, "pad_edge": False}
    if not lines:
        options = {"box": None, "header_style": "bold"}
    table = Table(
        title=clean(title, 200, single_line=True) if title else None,
        title_justify="left",
        show_header=header,
        **options,
    )
    specs = [column if isinstance(column, Column) else Column(column) for column in columns]
    cells = [[cell(value) for value in row] for row in rows]
    widths = [
        max((_width(row[i]) for row in cells if i < len(row)), default=0) for i in range(len(specs))
    ]
    words = [_longest_word(cells, i) for i in range(len(specs))]
    kept = _fitting(specs, widths, words, width) if width else list(range(len(specs)))
    for index in kept:
        spec = specs[index]
        table.add_column(
            clean(spec.heading, 100, single_line=True),
            overflow="fold" if spec.fold else "ellipsis",
            justify="right" if spec.right else "left",
            no_wrap=spec.whole,
            # Headings are never cut (`refund…`): a column that cannot show its
            # heading is left out by `_fitting` instead.
            min_width=_min_width(spec, widths[index], words[index]),
        )
    for row in cells:
        table.add_row(*(row[index] for index in kept if index < len(row)))
    return table


def _min_width(spec: Column, width: int, word: int) -> int:
    """Whole columns at their widest; a wrapping one at its heading and its longest word (up
    to LONG_WORD), so it wraps between words instead of folding one (`#complet` / `e`); a
    heading wraps between its words too, never inside one (`refund…`)."""
    heading = max((len(part) for part in spec.heading.split()), default=0)  # wraps at spaces
    if spec.whole:
        return max(width, heading)
    return max(heading, min(word, LONG_WORD) if spec.fold else 0)


def _width(text: Any) -> int:
    """Columns a cell takes: its longest line (a `Stacked` cell has several)."""
    return max(len(line) for line in text.plain.split("\n"))


def _longest_word(cells: list[list[Any]], index: int) -> int:
    return max(
        (len(word) for row in cells if index < len(row) for word in row[index].plain.split()),
        default=0,
    )


def _fitting(specs: Sequence[Column], widths: list[int], words: list[int], width: int) -> list[int]:
    """The columns to show in `width`: whole ones at full width, others at a readable
    minimum; the droppable ones go first, highest `drop` first, until the rest fit."""
    need = [
        max(_min_width(spec, w, word), min(w, MIN_READABLE)) + PADDING
        for spec, w, word in zip(specs, widths, words, strict=True)
    ]
    kept = list(range(len(specs)))
    droppable = sorted((i for i, s in enumerate(specs) if s.drop), key=lambda i: -specs[i].drop)
    for index in droppable:
        if sum(need[i] for i in kept) - PADDING <= width:  # no padding at the edges
            break
        kept.remove(index)
    return kept


def pairs_table(rows: Iterable[tuple[str, object]]) -> Table:
    """Key/value lines: a value wraps between its words, and a word longer than the room left
    beside the key (a transaction hash, a request id) is folded onto the next line instead of
    cut with `…`, so every character of it is shown and it can still be copied."""
    from rich.table import Table
    from rich.text import Text

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column()  # keys wrap between their words on a narrow terminal
    table.add_column(overflow="fold")
    for key, value in rows:
        shown = yes_no(value) if isinstance(value, bool) else value  # people read yes/no
        table.add_row(Text(clean(key, 100, single_line=True), style="dim"), cell(shown))
    return table


ID_COLUMN = Column("task id", whole=True)  # ids are copied from tables: never cut
REQUEST_COLUMN = Column("request id", whole=True)
