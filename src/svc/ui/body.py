"""Where `svc request` writes an answer's body: a file (`-o PATH`) or stdout, chunk by chunk.

The sink is checked before anything is paid (a path that cannot be written is a usage error
that costs nothing) and a file takes the body only once it all arrived (svc/body_file.py): a
refusal or a cut-off body leaves an existing file as it was. Bytes go out as the server sent
them, except to a terminal, where text from a server is made inert like every other (escape
sequences and control characters replaced): a body written to a person's screen must not
drive it.
"""

from __future__ import annotations

import codecs
import sys
from collections.abc import Iterable
from typing import BinaryIO

from svc.body_file import BodyFile
from svc.sanitize import clean
from svc.ui import terminal


class BodySink:
    """One destination for one answer's head (`-i`) and body."""

    def __init__(
        self, stream: BinaryIO | None, *, terminal_text: bool, file: BodyFile | None = None
    ) -> None:
        self._stream = stream  # stdout; None when the body goes to `file`
        self._terminal_text = terminal_text  # a terminal: decoded and made inert
        self._file = file
        self.written = 0

    @classmethod
    def open(cls, path: str | None) -> BodySink:
        """`path` (None or '-': stdout), checked writable now, before anything is sent."""
        if path is None or path == "-":
            return cls(sys.stdout.buffer, terminal_text=terminal.stdout_is_tty())
        return cls(None, terminal_text=False, file=BodyFile.checked(path))

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
        if self._terminal_text:  # a body cut inside a character still shows where it ended
            tail = decoder.decode(b"", final=True)
            self._put(clean(tail, len(tail) + 1).encode())
        if self._stream is not None:
            self._stream.flush()
        return self.written

    def _put(self, data: bytes) -> None:
        if self._file is not None:
            self._file.write(data)
            return
        with terminal.holding():
            assert self._stream is not None  # no file: stdout
            self._stream.write(data)

    def close(self) -> None:
        """The whole body is out: a file takes its place now."""
        if self._file is not None:
            self._file.commit()
        elif self._stream is not None:
            self._stream.flush()

    def discard(self) -> None:
        """Nothing or not all of the body came: an existing file is left as it was."""
        if self._file is not None:
            self._file.discard()
