"""Lock files that leave no trace (issue 34.5): `locks/` held one file per request id for ever
(5,004 after one batch). A lock file is now removed as it is released, which is safe only with
the check on the other side (a waiter that opened the file before it was removed must not count
its flock on a file nobody else can see). Real processes race for one request id here; a
violation of "one holder at a time" is caught by a marker file only a holder may create.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from svc.store.ledger import Ledger, locks
from svc.store.ledger.locks import STALE_LOCKS_WORTH_A_SWEEP, request_lock

RACER = """
import os, sys, time
from pathlib import Path
from typing import Any

import pytest
from svc.store.ledger.locks import request_lock
folder, marker, rounds = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
for _ in range(rounds):
    with request_lock(folder, "req_contended", None):
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)  # FileExistsError: two holders
        time.sleep(0.001)
        os.close(fd)
        os.unlink(marker)
print("ok")
"""


def test_racing_processes_hold_one_at_a_time_and_leave_no_file(tmp_path: Path) -> None:
    folder, marker = tmp_path / "locks", tmp_path / "holder"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(folder), str(marker), "150"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0 and out.strip() == "ok", err
    assert list(folder.iterdir()) == []


def test_a_released_lock_leaves_no_file_and_nesting_keeps_it(tmp_path: Path) -> None:
    folder = tmp_path / "locks"
    with request_lock(folder, "req_a", None):
        assert len(list(folder.iterdir())) == 1
        with request_lock(folder, "req_a", None):  # re-entrant: still the one file
            assert len(list(folder.iterdir())) == 1
        assert len(list(folder.iterdir())) == 1
    assert list(folder.iterdir()) == []


def test_threads_hold_one_at_a_time_and_the_process_keeps_no_lock_once_all_leave(
    tmp_path: Path,
) -> None:
    """Threads of one process queue on its own lock of a request id (a flock taken twice by
    one process would wait on itself); that lock goes with the last thread that held or
    awaited it, so `svc mcp` and a long batch do not keep one per request id they ever met."""
    folder = tmp_path / "locks"
    holders: dict[str, int] = {}
    most: list[int] = []

    def worker(n: int) -> None:
        for i in range(40):
            request_id = f"req_{i % 3}" if n % 2 else "req_shared"
            with request_lock(folder, request_id, None):
                holders[request_id] = holders.get(request_id, 0) + 1
                most.append(holders[request_id])
                time.sleep(0.0005)
                holders[request_id] -= 1

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(most) == 240 and max(most) == 1  # never two holders of one request id
    assert locks._LOCKS == {}
    assert list(folder.iterdir()) == []


def test_opening_the_ledger_sweeps_stale_lock_files_but_not_a_held_one(tmp_path: Path) -> None:
    folder = tmp_path / "locks"
    folder.mkdir()
    for n in range(STALE_LOCKS_WORTH_A_SWEEP + 44):
        (folder / f"{n:032x}.lock").touch()
    held = folder / "held.lock"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT);"
            "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
            str(held),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        Ledger(tmp_path / "ledger.sqlite3").close()
        assert [p.name for p in folder.iterdir()] == ["held.lock"]
        fd = os.open(held, os.O_RDWR)
        try:  # still the holder's: the sweep never took it
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                raise AssertionError("the held lock file was free")
            except BlockingIOError:
                pass
        finally:
            os.close(fd)
    finally:
        holder.kill()
        holder.wait()


def test_the_folder_is_made_only_when_missing_and_again_if_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request's lock no longer asks for `locks/` each time (a mkdir failing with EEXIST was
    a system call per paid request): the folder is made when the open finds it missing, with
    the same private mode, and made again if it was removed while svc runs."""
    folder = tmp_path / "locks"
    made: list[Path] = []
    mkdir = Path.mkdir

    def counted(self: Path, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", counted)
    with request_lock(folder, "req_first", None):
        assert folder.stat().st_mode & 0o777 == 0o700
    for n in range(3):
        with request_lock(folder, f"req_{n}", None):
            assert len(list(folder.iterdir())) == 1
    assert made == [folder]
    folder.rmdir()
    with request_lock(folder, "req_after", None):
        assert len(list(folder.iterdir())) == 1
    assert made == [folder, folder]
    assert list(folder.iterdir()) == []
