"""What svc was told in secret, kept out of everything it prints.

A 2FA code or a password goes to the service marked sensitive, and the spec lets the service
fold answers into the task's `goal` and events: the next answer would print it back. So every
value sent as sensitive (`svc reply --sensitive`, a hidden field of the reply form, in `svc
reply` and `svc watch`) joins this process's vault (`told`), and everything the process
prints passes `scrub` on its way out: JSON, `--jq`/`--template` output, NDJSON lines, tables,
messages (ui/output.py), notifications and the JSON on an `--exec` hook's stdin. `svc mcp`
keeps its own `Vault` for the life of the server: what the person typed never reaches the model.

The secrets are found with `str.find` (overlaps merged): a 16 MB answer is scrubbed in
milliseconds, where hashing every window of it took seconds a megabyte (a hostile server could
stall every print), and a lone surrogate in server text cannot make it fail (nothing is
encoded). A secret shorter than `MIN_INSIDE` characters is redacted only where it is a whole
value: a one-character or two-digit answer must not blank every number. The secrets are held
by an object whose repr says only how many it holds, so a stray repr or log of the vault shows
no code. An empty vault costs one truth test per value.
"""

from __future__ import annotations

import threading
from typing import Any

REDACTED = "[redacted]"
MIN_INSIDE = 4  # shorter secrets are redacted where they are a whole value, not inside text


class _Held:
    """The secrets, their pattern (built on first use) and the whole values; its repr shows
    none of them."""

    def __init__(self, secrets: frozenset[str] = frozenset()) -> None:
        self.whole = secrets
        self.inside = tuple(s for s in secrets if len(s) >= MIN_INSIDE)
        # A code folded back as a JSON number loses its leading zeros (0192 -> 192).
        self.numbers = {s.lstrip("0") or "0" for s in secrets if s.isascii() and s.isdigit()}

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where each secret stands in `text`, overlaps included (str.find: C speed)."""
        found = []
        for secret in self.inside:
            at = text.find(secret)
            while at >= 0:
                found.append((at, at + len(secret)))
                at = text.find(secret, at + 1)
        return found

    def __repr__(self) -> str:
        return f"<{len(self.whole)} secret(s), not shown>"


class Vault:
    def __init__(self) -> None:
        self._held = _Held()  # replaced whole on each add: readers never see it half-built
        self._lock = threading.Lock()  # tool calls run their flows in worker threads

    def __bool__(self) -> bool:
        return bool(self._held.whole)

    def __repr__(self) -> str:
        return f"<Vault: {self._held!r}>"

    def add(self, value: str) -> None:
        """Keep `value` from every later output (surrounding spaces are not part of it)."""
        value = value.strip()
        if value:
            with self._lock:
                self._held = _Held(self._held.whole | {value})

    def scrub(self, value: Any) -> Any:
        """`value` with every secret replaced, at any depth (keys of objects too)."""
        if not self:
            return value
        if isinstance(value, str):
            return self._scrub_text(value)
        if isinstance(value, dict):
            return {self.scrub(k): self.scrub(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.scrub(v) for v in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            shown = str(value)  # a code folded back as a JSON number is the code all the same
            hidden = shown in self._held.numbers or self._scrub_text(shown) != shown
            return REDACTED if hidden else value
        return value

    def _scrub_text(self, text: str) -> str:
        held = self._held
        if text.strip() in held.whole:
            return REDACTED
        spans = held.spans(text)
        return _replace(text, spans) if spans else text


def _replace(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each span replaced by REDACTED; overlapping or touching spans merge."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, at = [], 0
    for start, end in merged:
        out += [text[at:start], REDACTED]
        at = end
    out.append(text[at:])
    return "".join(out)


# This process's vault: what the CLI was told in secret (svc mcp holds one per server).
PROCESS = Vault()


def told_anything() -> bool:
    """Whether this process was told any secret (else a scrub would change nothing)."""
    return bool(PROCESS)


def told(value: str) -> None:
    """`value` was sent as a secret: from now on nothing this process prints shows it."""
    PROCESS.add(value)


def scrub(value: Any) -> Any:
    """`value` with every secret this process was told replaced (unchanged if none was)."""
    return PROCESS.scrub(value)
