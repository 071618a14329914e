"""One app context per thread, as `svc mcp`'s ContextPool keeps them.

The ledger's SQLite link may only be used by the thread that opened it, so a Client used from
several threads (or the AsyncClient's worker pool) gives each thread its own context; they
share the settings and the config file, each keeps its HTTP pool and ledger open for reuse.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Protocol

from svc.client._context import Approver, LibraryContext, library_context
from svc.settings import Settings
from svc.store.config import ConfigFile


class Running(Protocol):
    """Work a Client started that must end before it closes (a submit_many's engine)."""

    def stop(self) -> None: ...


class Contexts:
    def __init__(
        self,
        settings: Settings,
        config: ConfigFile,
        *,
        approve: Approver | None,
        trust_recipient: bool,
    ) -> None:
        self.settings = settings
        self._config = config
        self._approve = approve
        self._trust = trust_recipient
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[LibraryContext] = []
        self._running: set[Running] = set()
        self.closed = False

    def started(self, work: Running) -> None:
        with self._lock:
            if self.closed:
                raise RuntimeError("this svc Client is closed")
            self._running.add(work)

    def ended(self, work: Running) -> None:
        with self._lock:
            self._running.discard(work)

    def get(self) -> LibraryContext:
        app: LibraryContext | None = getattr(self._local, "app", None)
        if app is None:
            if self.closed:
                raise RuntimeError("this svc Client is closed")
            app = library_context(
                self.settings, self._config, approve=self._approve, trust_recipient=self._trust
            )
            self._local.app = app
            with self._lock:
                self._all.append(app)
        return app

    def release(self) -> None:
        """Close and forget this thread's context (a thread that ends: a watch's scheduler)."""
        app: LibraryContext | None = getattr(self._local, "app", None)
        if app is None:
            return
        self._local.app = None
        with self._lock:
            if app in self._all:
                self._all.remove(app)
        with contextlib.suppress(Exception):
            app.close()

    def close(self) -> None:
        """Stop what is running first (a submit_many sends no new line and waits for the ones
        in flight, each journaled: the same lines again resume them), then close every
        context."""
        with self._lock:
            self.closed = True
            running, self._running = list(self._running), set()
        for work in running:
            work.stop()
        with self._lock:
            apps, self._all = self._all, []
        for app in apps:
            with contextlib.suppress(Exception):  # another thread's SQLite link: best effort
                app.close()
