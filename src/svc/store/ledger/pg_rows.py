"""The fleet ledger's rows as psycopg hands them over (pg_psycopg's row factory): by position,
by column name and as `dict(row)`, as sqlite3.Row reads."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Row(tuple[Any, ...]):
    """A row read by position or by column name, and `dict(row)`, as sqlite3.Row reads."""

    names: tuple[str, ...]
    _index: dict[str, int]

    def __new__(
        cls, names: tuple[str, ...], values: Sequence[Any], index: dict[str, int] | None = None
    ) -> Row:
        row = super().__new__(cls, values)
        row.names = names
        row._index = index_of(names) if index is None else index
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> tuple[str, ...]:
        return self.names


# Each statement's column names, and where each is (a statement's rows share them). A read by
# name was a search of the names (`dict(row)` of a submission: 27 searches of 27 names).
_INDEXES: dict[tuple[str, ...], dict[str, int]] = {}


def index_of(names: tuple[str, ...]) -> dict[str, int]:
    index = _INDEXES.get(names)
    if index is None:
        index = {}
        for i, name in enumerate(names):
            index.setdefault(name, i)  # the first of a repeated name, as tuple.index found
        if len(_INDEXES) < 256:  # the ledger's statements are few; never a growing cache
            _INDEXES[names] = index
    return index
