"""The words a failed ledger write gets (store/disk.py): each cause named as it is.

A busy ledger is not a full disk: SQLite's SQLITE_BUSY (another process held the write lock
past the busy timeout) once read "cannot write the ledger ... an I/O error" with a hint to free
space. And a size limit merely set (a CI runner's `ulimit -f` of gigabytes) is not the cause of
a write failing far below it. Real SQLite errors and a real rlimit, in a child process where
the limit must not touch the test runner.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

from svc.store.disk import SIZE_LIMIT, ledger_unwritable


def busy_error(path: Path) -> sqlite3.OperationalError:
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    writer = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        writer.execute("INSERT INTO t VALUES (1)")
    except sqlite3.OperationalError as exc:
        return exc
    finally:
        writer.close()
        holder.close()
    raise AssertionError("the second writer was not refused")


def test_a_busy_ledger_is_named_busy_not_a_disk_to_free(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    exc = busy_error(path)
    assert exc.sqlite_errorname.startswith("SQLITE_BUSY")
    error = ledger_unwritable(path, exc)
    assert error.code == "ledger_busy" and error.exit_code == 9
    assert "is busy" in error.message and str(path) in error.message
    assert "free some space" not in (error.hint or "")
    assert "nothing was paid" in (error.hint or "")


CHILD = """
import resource, sqlite3, sys
from pathlib import Path
from svc.store.disk import cause
limit = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
print(cause(Path(sys.argv[1]), sqlite3.OperationalError("disk I/O error")))
"""


def cause_under_limit(path: Path, limit: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(limit)],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_a_size_limit_far_above_the_ledger_is_not_named_the_cause(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    path.write_bytes(b"x" * 4096)
    assert cause_under_limit(path, 1 << 30) != SIZE_LIMIT
    assert cause_under_limit(path, 4096) == SIZE_LIMIT  # the file is at the limit
    assert cause_under_limit(tmp_path / "absent.sqlite3", 0) == SIZE_LIMIT  # nothing fits
