"""One holder at a time per request id: on this machine a lock file per request id (flock, so
the kernel drops it when a process dies), in the fleet ledger an advisory lock (the server
drops it when a runner's connection dies), and a re-entrant lock per thread around either.

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
from svc.store.disk import ledger_unwritable

LOCK_WAIT_SECONDS = 600.0  # another process may be waiting on a person (a card page)

_LOCKS: dict[str, threading.RLock] = {}
_DEPTH: dict[str, int] = {}  # read and written only by the thread holding that key's RLock
_GUARD = threading.Lock()


# Takes the cross-process (or cross-machine) lock of one request id, waiting as needed, and
# returns what releases it: a lock file here, an advisory lock in the fleet ledger.
Take = Callable[[str, Callable[[str], None] | None], Callable[[], None]]


@contextmanager
def request_lock(
    folder: Path, request_id: str, on_wait: Callable[[str], None] | None
) -> Iterator[None]:
    """The lock of one request id among the processes of this machine (a lock file)."""
    with held(request_id, on_wait, lambda rid, told: _lock_file(folder, rid, told)):
        yield


@contextmanager
def held(request_id: str, on_wait: Callable[[str], None] | None, take: Take) -> Iterator[None]:
    """Whatever the outer lock, it is taken once per process and threads queue on an RLock
    (re-entrant: `svc pay card` finishes the card, then submits, under one hold): a flock or
    a session's advisory lock taken twice by one process would wait on itself."""
    key = _key(request_id)
    with _GUARD:
        local = _LOCKS.setdefault(key, threading.RLock())
    with local:
        depth = _DEPTH.get(key, 0)
        release = take(request_id, on_wait) if depth == 0 else None
        _DEPTH[key] = depth + 1
        try:
            yield
        finally:
            _DEPTH[key] = depth
            if release is not None:
                release()


def _key(request_id: str) -> str:
    return hashlib.sha256(request_id.encode()).hexdigest()[:32]


def wait_until_free(
    request_id: str, on_wait: Callable[[str], None] | None, try_once: Callable[[], bool]
) -> None:
    """Try the lock until it is free; say once that another holder is being waited for; give
    up with the contract's conflict after LOCK_WAIT_SECONDS."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    told = False
    while not try_once():
        if time.monotonic() > deadline:
            raise ConflictError(
                f"another svc process is still handling request {request_id}",
                code="request_busy",
                hint="wait for it to finish, then run the same command again",
            )
        if not told and on_wait is not None:
            on_wait(f"waiting for another svc process that is handling request {request_id}")
            told = True
        time.sleep(0.05)


def _lock_file(
    folder: Path, request_id: str, on_wait: Callable[[str], None] | None
) -> Callable[[], None]:
    try:  # a full or read-only disk: the journal cannot be kept, so nothing is paid
        folder.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(folder / f"{_key(request_id)}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise ledger_unwritable(folder, exc) from None

    def try_once() -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    try:
        wait_until_free(request_id, on_wait, try_once)
    except BaseException:
        os.close(fd)
        raise
    return lambda: os.close(fd)  # closing the descriptor drops the flock
