"""Why a file of svc's cannot be written, in the words a person acts on.

A full disk reaches SQLite as `database or disk is full` or `disk I/O error` (at the write or
at the commit), a read-only one as `attempt to write a readonly database` or `unable to open`,
and a plain file write as ENOSPC, EROFS or EFBIG. Each becomes one line naming the path and
the cause; what the caller then does (exit 9 for the ledger, 1 for the config file) is its own.
SQLite's messages do not say which of these it met, so the file system is asked as well.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from svc.errors import LedgerDiskError, StorageError

DISK_FULL = "the disk is full"
READ_ONLY = "the file system is read-only"
SIZE_LIMIT = "the file size limit (ulimit -f) is reached"
NO_RIGHTS = "permission denied"

_BY_ERRNO = {
    errno.ENOSPC: DISK_FULL,
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: READ_ONLY,
    errno.EFBIG: SIZE_LIMIT,
    errno.EACCES: NO_RIGHTS,
    errno.EPERM: NO_RIGHTS,
}
_BY_SQLITE = {"SQLITE_FULL": DISK_FULL, "SQLITE_READONLY": READ_ONLY}
FREE_SPACE_FLOOR = 64 * 1024  # bytes: below this a write of a page or two fails
BUSY_SECONDS = 30  # the ledger's busy_timeout: how long a write waits for another's lock
BUSY_CODES = ("SQLITE_BUSY", "SQLITE_LOCKED")  # another writer, not the disk


def cause(path: Path, exc: BaseException) -> str:
    """What stopped a write at `path`: the disk full, read-only, a size limit, or an I/O
    error with the system's own words."""
    if isinstance(exc, OSError) and exc.errno in _BY_ERRNO:
        return _BY_ERRNO[exc.errno]
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    for prefix, said in _BY_SQLITE.items():
        if name.startswith(prefix):
            return said
    return _from_file_system(path) or f"an I/O error ({_words(exc)})"


def _busy(exc: BaseException) -> bool:
    return str(getattr(exc, "sqlite_errorname", "") or "").startswith(BUSY_CODES)


def _from_file_system(path: Path) -> str | None:
    """SQLite's `disk I/O error` hides the errno: the file system says which it was."""
    import resource

    where = _nearest_existing(path)
    try:
        fs = os.statvfs(where)
    except OSError:
        return None
    if fs.f_flag & os.ST_RDONLY:
        return READ_ONLY
    if fs.f_bavail * fs.f_frsize < FREE_SPACE_FLOOR:
        return DISK_FULL
    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY and _reaches(path, limit):
        return SIZE_LIMIT
    return None


def _reaches(path: Path, limit: int) -> bool:
    """A file of the ledger's (the file, its WAL or its rollback journal; one not there yet
    counts as empty) is within a write of the size limit: only then is the limit the cause,
    not merely set."""
    names = (path.name, path.name + "-wal", path.name + "-journal")
    return max(_size(path.with_name(name)) for name in names) + FREE_SPACE_FLOOR >= limit


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _nearest_existing(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path("/")


def _words(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc).strip() or type(exc).__name__


def ledger_unwritable(path: Path, exc: BaseException) -> LedgerDiskError:
    """The journal cannot be written: exit 9, and nothing was paid (it is written first)."""
    if _busy(exc):
        return LedgerDiskError(
            f"the ledger at {path} is busy: another svc process held its write lock for "
            f"{BUSY_SECONDS} s",
            code="ledger_busy",
            hint="nothing was paid; run the same command again when the other run is done "
            "(a journaled request resumes without paying twice)",
        )
    return LedgerDiskError(
        f"cannot write the ledger at {path}: {cause(path, exc)}",
        hint="nothing was paid; free some space or make the data directory writable "
        "(SVC_DATA_DIR moves it), then run the same command again: a journaled request "
        "resumes without paying twice",
    )


def file_unwritable(what: str, path: Path, exc: BaseException) -> StorageError:
    """The config file or the secret store cannot be written: one line, exit 1."""
    return StorageError(
        f"cannot write {what} {path}: {cause(path, exc)}",
        hint="free some space or make the directory writable, then run the same command again",
    )
