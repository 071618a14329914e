"""Values built once per key and kept, within a bound: the one shape of svc's small caches (a
watch's task URLs, their parses, EIP-712 domain separators). Cleared whole when full, not
evicted one by one: a long-lived process (`svc mcp`) meets ever new keys, and the common case
is a few keys asked many times, which a clear costs one rebuild each."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._values: dict[K, V] = {}

    def get(self, key: K, build: Callable[[K], V]) -> V:
        """The value kept for `key`, else `build(key)` kept. A build that raises keeps
        nothing (a refused URL is refused every time)."""
        found = self._values.get(key)
        if found is None:
            found = build(key)
            if len(self._values) >= self.limit:
                self._values.clear()
            self._values[key] = found
        return found

    def __len__(self) -> int:
        return len(self._values)
