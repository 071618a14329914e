"""What svc was told in secret, kept out of everything it prints (issue 21.4, 29.10).

A 2FA code or a password goes to the service marked sensitive, and the spec lets the service
fold answers into the task's `goal` and events: the next answer would print it back. So every
value sent as sensitive (`svc reply --sensitive`, a hidden field of the reply form, in `svc
reply` and `svc watch`) joins this process's vault (`told`), and everything the process
prints passes `scrub` on its way out: JSON, `--jq`/`--template` output, NDJSON lines, tables,
messages (ui/output.py), notifications and the JSON on an `--exec` hook's stdin. `svc mcp`
keeps its own `Vault` for the life of the server: what the person typed never reaches the model.

The vault holds no secret in the clear: only keyed digests (BLAKE2b under a per-process random
key), grouped by length. Scrubbing a text hashes each window of each length held and replaces
the windows that match. A memory dump or a stray repr shows digests, not codes. An empty vault
costs one truth test per value: a process told nothing in secret pays nothing.
"""

from __future__ import annotations

import threading
from typing import Any

REDACTED = "[redacted]"
_DIGEST_SIZE = 16


class Vault:
    def __init__(self) -> None:
        self._key = b""  # drawn when the first secret is added: every start builds a vault
        self._by_length: dict[int, set[bytes]] = {}
        self._lock = threading.Lock()  # tool calls run their flows in worker threads

    def __bool__(self) -> bool:
        return bool(self._by_length)

    def _digest(self, text: str) -> bytes:
        import hashlib  # off the start-up path: an empty vault never hashes

        return hashlib.blake2b(text.encode(), key=self._key, digest_size=_DIGEST_SIZE).digest()

    def add(self, value: str) -> None:
        """Keep `value` from every later output (surrounding spaces are not part of it)."""
        value = value.strip()
        if value:
            with self._lock:
                if not self._key:
                    import secrets

                    self._key = secrets.token_bytes(32)
                self._by_length.setdefault(len(value), set()).add(self._digest(value))

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
            return REDACTED if self._scrub_text(shown) != shown else value
        return value

    def _scrub_text(self, text: str) -> str:
        with self._lock:
            held = sorted(self._by_length.items(), reverse=True)  # longest first
        spans: list[tuple[int, int]] = []
        for length, digests in held:
            for start in range(len(text) - length + 1):
                if self._digest(text[start : start + length]) in digests:
                    spans.append((start, start + length))
        if not spans:
            return text
        return _replace(text, spans)


def _replace(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each (merged) span replaced by REDACTED."""
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


def told(value: str) -> None:
    """`value` was sent as a secret: from now on nothing this process prints shows it."""
    PROCESS.add(value)


def scrub(value: Any) -> Any:
    """`value` with every secret this process was told replaced (unchanged if none was)."""
    return PROCESS.scrub(value)
