"""Where `svc request` writes an answer's body: a file (`-o PATH`) or stdout, chunk by chunk.

The sink is opened before anything is paid (a path that cannot be written is a usage error
that costs nothing). Bytes go out as the server sent them, except to a terminal, where text
from a server is made inert like every other (escape sequences and control characters
replaced): a body written to a person's screen must not drive it.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Iterable
from typing import BinaryIO

from svc.errors import UsageError
from svc.sanitize import clean
from svc.ui import terminal


class BodySink:
    """One destination for one answer's head (`-i`) and body."""

    def __init__(self, stream: BinaryIO, *, terminal_text: bool, owned: bool) -> None:
        self._stream = stream
        self._terminal_text = terminal_text  # a terminal: decoded and made inert
        self._owned = owned  # a file we opened, closed at the end
        self.written = 0

    @classmethod
    def open(cls, path: str | None) -> BodySink:
        """`path` (None or '-': stdout), opened for writing now, before anything is sent."""
        if path is None or path == "-":
            return cls(sys.stdout.buffer, terminal_text=terminal.stdout_is_tty(), owned=False)
        try:
            stream = open(path, "wb")  # noqa: SIM115 - closed by close(), after the body
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
        return cls(stream, terminal_text=False, owned=True)

    def head(self, status: int, reason: str, headers: list[tuple[str, str]]) -> None:
        """`-i`: the status line and the headers, as an HTTP/1.1 answer reads, cleaned."""
        lines = [f"HTTP/1.1 {status} {clean(reason, 200, single_line=True)}"]
        lines += [
            f"{clean(name, 200, single_line=True)}: {clean(value, 8000, single_line=True)}"
            for name, value in headers
        ]
        self._put("\r\n".join([*lines, "", ""]).encode())

    def body(self, chunks: Iterable[bytes]) -> int:
        """Every chunk, as it comes; the bytes written."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        for chunk in chunks:
            if self._terminal_text:
                text = decoder.decode(chunk)
                self._put(clean(text, len(text) + 1).encode())
            else:
                self._put(chunk)
            self.written += len(chunk)
        self._stream.flush()
        return self.written

    def _put(self, data: bytes) -> None:
        with terminal.holding():
            self._stream.write(data)

    def close(self) -> None:
        if self._owned:
            self._stream.close()
        else:
            self._stream.flush()
