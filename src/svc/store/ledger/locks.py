"""One holder at a time per request id, on this machine: a lock file per request id (flock,
so the kernel drops it when a process dies) and a re-entrant lock per thread.

A second `svc` handling the same request id waits here, then finds the first one's journaled
proof or outcome: it never signs a second authorization.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from svc.errors import ConflictError

LOCK_WAIT_SECONDS = 600.0  # another process may be waiting on a person (a card page)

_LOCKS: dict[str, threading.RLock] = {}
_DEPTH: dict[str, int] = {}  # read and written only by the thread holding that key's RLock
_GUARD = threading.Lock()


@contextmanager
def request_lock(
    folder: Path, request_id: str, on_wait: Callable[[str], None] | None
) -> Iterator[None]:
    """flock is per open file: a process locking the same file twice would wait on itself, so
    the file is locked once per process and threads queue on an RLock (re-entrant: `svc pay
    card` finishes the card, then submits, under one hold)."""
    key = hashlib.sha256(request_id.encode()).hexdigest()[:32]
    with _GUARD:
        local = _LOCKS.setdefault(key, threading.RLock())
    with local:
        depth = _DEPTH.get(key, 0)
        fd = _lock_file(folder, key, request_id, on_wait) if depth == 0 else None
        _DEPTH[key] = depth + 1
        try:
            yield
        finally:
            _DEPTH[key] = depth
            if fd is not None:
                os.close(fd)  # closing the descriptor drops the flock


def _lock_file(
    folder: Path, key: str, request_id: str, on_wait: Callable[[str], None] | None
) -> int:
    folder.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(folder / f"{key}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise ConflictError(
                    f"another svc process is still handling request {request_id}",
                    code="request_busy",
                    hint="wait for it to finish, then run the same command again",
                ) from None
            if not told and on_wait is not None:
                on_wait(f"waiting for another svc process that is handling request {request_id}")
                told = True
            time.sleep(0.05)
