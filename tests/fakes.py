"""In-memory stand-ins for the parts a money unit test does not exercise: a runner's secret
store and the recipient pins (the real ones are tested on their own, and end to end)."""

from __future__ import annotations


class MemorySecrets:
    """A secret store of one runner, in memory."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}

    def get(self, key: str) -> str | None:
        return self.data.get(key)

    def set(self, key: str, value: str) -> None:
        self.data[key] = value

    def delete(self, key: str) -> bool:
        return self.data.pop(key, None) is not None


class MemoryPins:
    """Recipient pins, in memory (the policy's `RecipientPins`)."""

    def __init__(self) -> None:
        self.store: dict[tuple[str, str], str] = {}

    def pinned(self, network: str, asset: str) -> str | None:
        return self.store.get((network, asset))

    def pin(self, network: str, asset: str, pay_to: str) -> None:
        self.store[(network, asset)] = pay_to
