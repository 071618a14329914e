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

from svc.errors import Conflict
from svc.store.disk import ledger_unwritable

LOCK_WAIT_SECONDS = 600.0  # another process may be waiting on a person (a card page)
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT


class _Local:
    """This process's lock of one request id: an RLock its threads queue on, how deep its
    holder is in it (read and written only by that holder), and how many threads hold or
    await it (under _GUARD), so the entry goes when the last one leaves: `svc mcp` and a
    long batch meet a new request id each time, and kept entries would only grow."""

    __slots__ = ("depth", "lock", "users")

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.depth = 0
        self.users = 0


_LOCKS: dict[str, _Local] = {}
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
        local = _LOCKS.get(key) or _LOCKS.setdefault(key, _Local())
        local.users += 1
    try:
        with local.lock:
            depth = local.depth
            release = take(request_id, on_wait) if depth == 0 else None
            local.depth = depth + 1
            try:
                yield
            finally:
                local.depth = depth
                if release is not None:
                    release()
    finally:
        with _GUARD:
            local.users -= 1
            if not local.users:
                del _LOCKS[key]


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
            raise Conflict(
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
    """Take the request's lock file; the release removes it, so `locks/` holds a file only
    while a request is being handled (5,004 files after one batch, never removed).

    Removing a lock file is safe only with a check on the other side: a waiter may have opened
    the file before its holder removed it, and then wins the flock of a file nobody else can
    see. So a lock counts only if the path still names the very file locked; otherwise the
    waiter opens the path again (a new file, or the next holder's) and tries once more."""
    path = folder / f"{_key(request_id)}.lock"
    fd = [_open_lock(folder, path)]

    def try_once() -> bool:
        while True:
            try:
                fcntl.flock(fd[0], fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return False
            if _named(fd[0]):
                return True
            os.close(fd[0])  # its holder removed it as it let go: that file is no lock now
            fd[0] = -1
            fd[0] = _open_lock(folder, path)

    try:
        wait_until_free(request_id, on_wait, try_once)
    except BaseException:
        if fd[0] >= 0:
            os.close(fd[0])
        raise

    def release() -> None:
        _release(path, fd[0])

    return release


def _open_lock(folder: Path, path: Path) -> int:
    """The lock file opened (made if missing). The folder is made only when the open finds it
    missing: it exists for every request but a machine's first, and a `mkdir` that fails with
    EEXIST was a system call per request (a batch's every task); one removed while
    svc runs is made again all the same."""
    try:  # a full or read-only disk: the journal cannot be kept, so nothing is paid
        try:
            return os.open(path, _LOCK_FLAGS, 0o600)
        except FileNotFoundError:
            folder.mkdir(mode=0o700, exist_ok=True)
            return os.open(path, _LOCK_FLAGS, 0o600)
    except OSError as exc:
        raise ledger_unwritable(folder, exc) from None


def _named(fd: int) -> bool:
    """The path still names the open file `fd` (not removed, not replaced): the file still
    has a name. svc makes no other link to a lock file, in a folder only its user can write,
    so a removed or replaced one has none; one system call, where a stat of the path and
    another of the file were two (each a hand-off of the GIL among a batch's workers)."""
    return os.fstat(fd).st_nlink > 0


def _release(path: Path, fd: int) -> bool:
    """Remove the file while it is still locked, then close (which drops the flock). False if
    it could not be removed (a read-only disk keeps it; the lock is dropped all the same)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


STALE_LOCKS_WORTH_A_SWEEP = 256  # files: below this the sweep costs more than it saves
_SWEPT: set[str] = set()  # folders this process has swept (a batch opens a ledger per worker)


def sweep_stale(folder: Path) -> int:
    """Remove the lock files nobody holds (left by versions that kept one per request id for
    ever); each is taken first, so a file in use is never touched. How many were removed.

    Once per folder and process: the files are what older versions left, which no later
    open of this process can find more of (a batch's eight workers listed it eight times)."""
    with _GUARD:
        if str(folder) in _SWEPT:
            return 0
        _SWEPT.add(str(folder))
    try:
        names = [entry.name for entry in os.scandir(folder) if entry.name.endswith(".lock")]
    except OSError:
        return 0
    if len(names) < STALE_LOCKS_WORTH_A_SWEEP:
        return 0
    removed = 0
    for name in names:
        path = folder / name
        try:
            fd = os.open(path, os.O_RDWR)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if _named(fd):
            removed += _release(path, fd)
        else:
            os.close(fd)
    return removed
