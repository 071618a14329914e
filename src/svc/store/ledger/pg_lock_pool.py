"""The connections a runner holds its request-id locks on, kept for the process.

A request id's lock on the fleet's ledger is a session advisory lock, held on a connection of
its own so that it dies with the runner (the server drops a dead session's locks). Opening
that connection for each request cost a connection set-up and a server backend per paid
task; here a released lock's connection is unlocked and kept for the next request, so a
runner opens as many as it holds locks at once (its batch's concurrency), once.

A kept connection the server has since closed (a restart, an idle timeout) is found on its
first use and replaced by a new one; an unlock that does not answer true closes the
connection instead of keeping it, so a kept connection never holds a lock.

A ledger's own connection is lent to the request locks of the thread that opened it (`lend`):
a single `svc submit` then opens one connection, not two (a connection costs the runner an
authentication and the server a backend, ~10 ms of a paid submit's gap to SQLite),
and a batch worker holds its locks on the connection it journals on. The lock still dies with
its holder: that connection is the runner's session as much as a pool's is. Lent only while no
lock and no transaction is open on it, and never closed under a held lock: a ledger closed while
its connection holds one hands the close to the release.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from svc.store.ledger.pg_api import PgConnection, PgError

MAX_IDLE = 16  # more than a batch's concurrency: the rest are closed when released

Connect = Callable[[], PgConnection]


class _Lent:
    """A ledger's connection lent to its thread's request locks, and what it is doing."""

    def __init__(self, conn: PgConnection) -> None:
        self.conn = conn
        self.holding = False  # a request lock is held (or being taken) on it
        self.closing = False  # its ledger closed meanwhile: the release closes it
        self.returned = False  # its ledger closed: lent no more


class LockConnections:
    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._idle: list[PgConnection] = []
        self._guard = threading.Lock()
        # The connection lent by the ledger this thread opened last: thread-local, so a
        # thread's entry ends with it (an ident may be reused by a later thread).
        self._lent = threading.local()
        self._out: dict[int, _Lent] = {}  # by id(conn): lent connections holding a lock

    def lend(self, conn: PgConnection) -> Callable[[], bool]:
        """Lend a ledger's connection to this thread's request locks. What it returns is the
        ledger's close: True when the connection may be closed now, False when it holds a lock
        (the release closes it: closing it here would drop the lock under its holder)."""
        entry = _Lent(conn)
        self._lent.entry = entry

        def give_back() -> bool:  # may run in another thread: the entry says it is returned
            with self._guard:
                entry.returned = True
                entry.closing = entry.holding
                return not entry.holding

        return give_back

    def try_lock(self, key: int) -> tuple[PgConnection, bool]:
        """A connection and whether it took the lock on `key` (one round trip): this thread's
        ledger connection when it is free, else a kept one, else a new one (when none is kept
        or the kept one turns out dead)."""
        lent = self._borrow()
        if lent is not None:
            try:
                return lent.conn, _try(lent.conn, key)
            except BaseException:  # the ledger's connection is broken: so is the ledger
                self.abandon(lent.conn, held=None)
                raise
        conn = self._kept()
        if conn is not None:
            try:
                return conn, _try(conn, key)
            except PgError as exc:  # closed by the server while kept
                if not exc.operational:
                    raise
                conn.close()
        conn = self._connect()
        return conn, _try(conn, key)

    def retry(self, conn: PgConnection, key: int) -> bool:
        return _try(conn, key)

    def release(self, conn: PgConnection, key: int) -> None:
        """Unlock `key` and keep the connection for the next request; closed instead when the
        unlock fails or enough are kept. A lent one goes back to its ledger (closed if the
        unlock failed, so it never holds a lock nobody will release, or if its ledger closed)."""
        try:
            unlocked = _unlock(conn, key)
        except Exception:  # the connection is gone: so is its lock
            unlocked = False
        self.abandon(conn, held=not unlocked)

    def abandon(self, conn: PgConnection, *, held: bool | None) -> None:
        """Done with `conn` for a lock: `held` False when it holds none (kept or given back),
        True or None (unknown: a try cut short) when it may (closed, and the lock with it)."""
        with self._guard:
            lent = self._out.pop(id(conn), None)
            if lent is not None:
                lent.holding = False
                if held is False and not lent.closing:
                    return  # back to its ledger, which uses it on
            elif held is False and not conn.closed and len(self._idle) < MAX_IDLE:
                self._idle.append(conn)
                return
        conn.close()

    def _borrow(self) -> _Lent | None:
        """This thread's ledger connection, marked as holding, if it holds no lock and is in
        no transaction (a lock taken inside one would wait with that transaction's locks)."""
        with self._guard:
            lent: _Lent | None = getattr(self._lent, "entry", None)
            if lent is None or lent.holding or lent.returned or lent.conn.closed:
                return None
            if not lent.conn.idle:
                return None
            lent.holding = True
            self._out[id(lent.conn)] = lent
            return lent

    def _kept(self) -> PgConnection | None:
        with self._guard:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
        return None


def _try(conn: PgConnection, key: int) -> bool:
    row = conn.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
    return bool(row and row[0])


def _unlock(conn: PgConnection, key: int) -> bool:
    row = conn.execute("SELECT pg_advisory_unlock(%s)", (key,)).fetchone()
    return bool(row and row[0])


_POOLS: dict[str, LockConnections] = {}
_POOLS_GUARD = threading.Lock()


def pool_for(url: str, connect: Connect) -> LockConnections:
    """The process's lock connections to the database at `url`."""
    with _POOLS_GUARD:
        pool = _POOLS.get(url)
        if pool is None:
            pool = _POOLS[url] = LockConnections(connect)
        return pool
