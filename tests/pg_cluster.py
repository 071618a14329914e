"""A throw-away PostgreSQL server for the tests: the Debian binaries, a temp directory, a Unix
socket only (no TCP port), trust authentication, stopped when the session ends.

`initdb` and `postgres` refuse to run as root, and CI runs as root: as root the cluster runs as
the `postgres` user (`runuser`), in a directory that user owns. `make test` installs the
binaries (Makefile `tools`); a missing binary is a failure that says so, never a skip.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

START_SECONDS = 60.0


def binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError(
            "PostgreSQL's binaries are missing (/usr/lib/postgresql/*/bin/initdb): "
            "`make test` installs them (apt-get install postgresql)"
        )
    return Path(found[-1]).parent


@dataclass
class Cluster:
    root: Path
    socket_dir: Path
    user: str

    def url(self, database: str = "postgres") -> str:
        return f"postgresql:///{database}?host={self.socket_dir}&user={self.user}"

    def create_database(self, name: str) -> str:
        """A fresh database (dropped first if an earlier run left it) and its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            _as_owner(self.user, [str(binaries() / argv[0]), *argv[1:]]),
            capture_output=True,
            text=True,
            timeout=START_SECONDS,
            check=False,
        )

    def stop(self) -> None:
        """Stop the server and remove its files (the session's finalizer)."""
        self.pause()
        shutil.rmtree(self.root, ignore_errors=True)

    def pause(self) -> None:
        """The database goes away (an immediate shutdown, as a crash would), files kept."""
        self.run("pg_ctl", "-D", str(self.root / "data"), "-m", "immediate", "stop")

    def resume(self) -> None:
        """Start the same server again on the same files and socket."""
        options = f"-k {self.socket_dir} -c listen_addresses='' -c fsync=off -c max_connections=200"
        log = str(self.root / "log")
        started = self.run(
            "pg_ctl", "-D", str(self.root / "data"), "-o", options, "-l", log, "-w", "start"
        )
        if started.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()[-300:]}")
        _wait_ready(self)


def _as_owner(user: str, argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", user, "--", *argv]


def start() -> Cluster:
    """initdb, then pg_ctl start on a socket in the same temp directory; ready when it answers."""
    user = "postgres" if os.geteuid() == 0 else pwd.getpwuid(os.geteuid()).pw_name
    root = Path(tempfile.mkdtemp(prefix="svc-pg-"))
    if os.geteuid() == 0:
        entry = pwd.getpwnam(user)
        os.chown(root, entry.pw_uid, entry.pw_gid)
    cluster = Cluster(root, root, user)
    data = root / "data"
    init = cluster.run("initdb", "-D", str(data), "-A", "trust", "-U", user, "--no-sync")
    if init.returncode != 0:
        raise RuntimeError(f"initdb failed: {init.stderr.strip()[-400:]}")
    cluster.resume()
    return cluster


def _wait_ready(cluster: Cluster) -> None:
    import psycopg

    deadline = time.monotonic() + START_SECONDS
    while True:
        try:
            with psycopg.connect(cluster.url(), connect_timeout=2):
                return
        except psycopg.OperationalError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
