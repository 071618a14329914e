"""The host's requests on stdin, read by a daemon thread, so a signal can end `svc mcp`.

The SDK's stdio transport reads stdin with `anyio.wrap_file`: every line is a `readline` in one
of anyio's worker threads, which are not daemon threads. A host keeps stdin open while it uses
the server, so once `initialize` is answered that thread sits in a read that nothing can
interrupt (a signal is handled in the main thread and the read is retried; closing or
replacing the descriptor does not wake it). SIGTERM, SIGHUP or Ctrl-C then ended the serving
loop and printed "interrupted", but the interpreter's exit waited on that thread until the host
closed stdin: a server that said it stopped and never did (every signal is a Ctrl-C, broken).

`StdinLines` is what the transport iterates instead: the same lines, read one at a time (the
host's next request is read only when the server asks for it, as before) by a daemon thread,
and handed to the event loop thread-safely. Waiting for a line is an ordinary await, which a
cancel ends at once; the process's exit does not wait for a daemon thread, and one blocked in
a read of a pipe holds nothing: no lock of ours, no file we must flush.

The lines come from `sys.stdin`, as the SDK's own transport takes them. Where that is fd 0 (a
process), fd 0 is claimed: the lines come from a private duplicate, and fd 0 points at the null
device while serving, so a handler or a child process that reads stdin reads end
of file, never a host's request. The duplicate is never closed (the reader may still be blocked
on it: a descriptor closed and reused under it would feed it another file's bytes). Where a
library host or a test runner has put another stream in `sys.stdin`, that stream is read as it
is, and the process's fd 0 is left alone.
"""

from __future__ import annotations

import asyncio
import io
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Self, TextIO

_EOF = None  # what the reader hands over at end of input (or when stdin cannot be read)


@contextmanager
def claimed_stdin() -> Iterator[TextIO]:
    """The host's side of stdin as a private text file, UTF-8 as the SDK reads it (a byte
    that is not UTF-8 is replaced, and the line answered as not JSON); fd 0 at the null device
    meanwhile. A `sys.stdin` that is not fd 0 is the host's side as it is."""
    import fcntl

    if sys.stdin is None:  # started with no stdin at all (pythonw, a daemon): end of input
        yield _text(io.BytesIO())
        return
    if not _on_descriptor_zero(sys.stdin):
        yield sys.stdin
        return
    try:
        private = fcntl.fcntl(0, fcntl.F_DUPFD_CLOEXEC, 3)  # above 0-2: never a std stream
    except OSError:  # started with stdin closed (`svc mcp <&-`): no requests, end of input
        yield _text(io.BytesIO())
        return
    diverted = _divert(0)
    try:
        # Unbuffered: a buffered reader has a lock, which a daemon thread blocked in a read
        # holds; the interpreter aborts at exit if it must take it (a fatal error, not a 129).
        yield _text(os.fdopen(private, "rb", buffering=0, closefd=False))
    finally:
        if diverted:
            os.dup2(private, 0)  # the wire back on fd 0; `private` stays open (see above)


def _on_descriptor_zero(stream: TextIO) -> bool:
    try:
        return stream.fileno() == 0
    except (AttributeError, OSError, ValueError):  # a stream with no descriptor (io.StringIO)
        return False


def _text(binary: Any) -> TextIO:
    return io.TextIOWrapper(binary, encoding="utf-8", errors="replace")


def _divert(fd: int) -> bool:
    try:
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return False
    try:
        os.dup2(null, fd)
    except OSError:
        return False
    finally:
        os.close(null)
    return True


class StdinLines:
    """An async iterator of the lines of `source` (text, as the SDK's transport reads them),
    each read by one daemon thread when the iterator asks for it.

    Runs on asyncio (`serve_stdio` runs anyio on its default backend, asyncio): the thread hands
    a line over with `call_soon_threadsafe`. Once the loop is closed (the server was
    interrupted) nobody reads any more, and the thread ends at its next line, or with the
    process.
    """

    def __init__(self, source: TextIO) -> None:
        self._source = source
        self._wanted = threading.Semaphore(0)  # one release per line asked for
        self._asked = False  # a line was asked for and has not arrived yet
        self._lines: asyncio.Queue[str | None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        if self._lines is None:
            self._loop = asyncio.get_running_loop()
            self._lines = asyncio.Queue()
            threading.Thread(target=self._read, name="svc-mcp-stdin", daemon=True).start()
        if not self._asked:
            self._asked = True
            self._wanted.release()
        line = await self._lines.get()  # a cancel ends this wait; the line, if it comes, waits
        self._asked = False
        if line is _EOF:
            self._lines.put_nowait(_EOF)  # and every later ask ends too
            raise StopAsyncIteration
        return line

    def _read(self) -> None:
        while True:
            self._wanted.acquire()
            try:
                line: str | None = self._source.readline() or _EOF
            except (OSError, ValueError):  # stdin failed or was closed: as end of input
                line = _EOF
            if not self._hand_over(line) or line is _EOF:
                return

    def _hand_over(self, line: str | None) -> bool:
        """False once the loop is closed: the server stopped, nobody reads any more."""
        assert self._loop is not None and self._lines is not None
        try:
            self._loop.call_soon_threadsafe(self._lines.put_nowait, line)
        except RuntimeError:
            return False
        return True
