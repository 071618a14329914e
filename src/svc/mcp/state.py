"""What the server keeps between tool calls: app contexts per worker thread, poll times.

The CLI's flows are synchronous, so each tool call runs them in a worker thread. A context is
kept per thread because the ledger's SQLite connection may only be used by the thread that
opened it; the worker threads are reused, so each keeps its ledger and HTTP pool open.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import anyio
import anyio.to_thread

from svc.mcp.pace import beat_seconds
from svc.next_words import mcp as _mcp_words
from svc.redact import Vault
from svc.settings import reread
from svc.ui.face import FaceContext, face_context

if TYPE_CHECKING:
    from svc.mcp.human import Human
    from svc.settings import Settings
    from svc.ui.output import Output

T = TypeVar("T")
REMEMBERED_TASKS = 10_000  # poll times kept; the oldest are forgotten first


def _stamp(path: os.PathLike[str]) -> tuple[int, int, int, int] | None:
    """What changes when the file does (an atomic write replaces its inode, a rewrite in
    place moves its ctime whatever it does to its mtime); None: absent."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return (found.st_mtime_ns, found.st_ctime_ns, found.st_size, found.st_ino)


class ContextPool:
    def __init__(self, app: FaceContext, output: Output) -> None:
        """Contexts like the command's `app` (its settings and config file), each drawing
        through `output` (the protocol's) and wording next steps as svc mcp does."""
        self.settings: Settings = app.settings
        self.output = output
        self._config = app.config  # shared by every context until it changes
        self._stamp = _stamp(self._config.path)
        self._generation = 0
        self._local = threading.local()
        self._lock = threading.Lock()
        self._all: list[FaceContext] = []

    def refresh(self) -> None:
        """Read the config file again if it changed since it was read, so a call sees what a
        person set meanwhile (`svc config set mcp_preapproved_usd 3`) without a restart. A
        file that is no longer valid is this call's usage error, and is read again next time."""
        stamp = _stamp(self._config.path)
        if stamp == self._stamp or (stamp is None and self._stamp is not None):
            return  # unchanged, or gone for a moment (an editor's save): never the defaults
        config = self._config.again()
        settings = reread(self.settings, config.profile(self.settings.profile))
        with self._lock:
            self.settings, self._config, self._stamp = settings, config, stamp
            self._generation += 1

    def get(self) -> FaceContext:
        """This thread's context (settings and config are shared, connections are not); one
        made before the config changed is closed and made anew, in its own thread."""
        app: FaceContext | None = getattr(self._local, "app", None)
        if app is not None and self._local.generation == self._generation:
            return app
        if app is not None:
            with self._lock:
                self._all.remove(app)
            with contextlib.suppress(Exception):
                app.close()
        with self._lock:
            settings, config, generation = self.settings, self._config, self._generation
        app = face_context(settings, self.output, config, next_words=_mcp_words.words)
        self._local.app, self._local.generation = app, generation
        with self._lock:
            self._all.append(app)
        return app

    def close(self) -> None:
        with self._lock:
            apps, self._all = self._all, []
        for app in apps:
            with contextlib.suppress(Exception):  # another thread's SQLite handle: best effort
                app.close()


class PollGate:
    """Spaces the polls of one task by the spec's interval, whichever tool asks, so an agent
    calling get_task in a loop cannot poll a real host faster than every 15 s."""

    def __init__(self, spacing: float) -> None:
        self.spacing = spacing
        self._last: OrderedDict[str, tuple[float, dict[str, Any]]] = OrderedDict()
        self._lock = threading.Lock()

    def recent(self, task_id: str) -> tuple[float, dict[str, Any]] | None:
        """(age in seconds, task) of a poll younger than the spacing, else None."""
        with self._lock:
            entry = self._last.get(task_id)
        if entry is None:
            return None
        age = time.monotonic() - entry[0]
        return (age, entry[1]) if age < self.spacing else None

    def wait_time(self, task_id: str) -> float:
        recent = self.recent(task_id)
        return 0.0 if recent is None else self.spacing - recent[0]

    def record(self, task_id: str, task: dict[str, Any]) -> None:
        with self._lock:
            self._last[task_id] = (time.monotonic(), task)
            self._last.move_to_end(task_id)
            while len(self._last) > REMEMBERED_TASKS:
                self._last.popitem(last=False)


@dataclass
class Call:
    """One tool call: where its blocking work runs, who to ask, and what never to echo."""

    pool: ContextPool
    gate: PollGate
    human: Human
    report: Callable[[float, float | None, str | None], Awaitable[None]]
    vault: Vault  # the server's: what the person typed stays out of every later output too
    started: float = field(default_factory=time.monotonic)
    status: str = "working"  # what the beat says: the latest progress message
    total: float | None = None
    _sent: float = 0.0

    @property
    def settings(self) -> Settings:
        return self.pool.settings

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    async def run(self, work: Callable[[FaceContext], T]) -> T:
        """`work(app)` in a worker thread with that thread's context."""
        return await anyio.to_thread.run_sync(lambda: work(self.pool.get()))

    async def progress(self, message: str, total: float | None = None) -> None:
        """Seconds since the call began, as the spec asks: a value that only ever grows."""
        self.status, self.total = message, total
        done = max(round(self.elapsed(), 3), self._sent + 0.001)
        self._sent = done
        with contextlib.suppress(Exception):  # progress is best effort, never a failure
            await self.report(done, total, self.vault.scrub(message))

    async def beating(self, work: Callable[[], Awaitable[T]]) -> T:
        """`await work()` with progress every beat (svc.mcp.pace) meanwhile, repeating the
        latest status. What `work` raises is raised as it was, not inside an exception group."""
        spacing = beat_seconds()

        async def beat() -> None:
            while True:
                await anyio.sleep(spacing)
                await self.progress(self.status, self.total)

        failed: list[Exception] = []
        done: list[T] = []
        async with anyio.create_task_group() as group:
            group.start_soon(beat)
            try:
                done.append(await work())
            except Exception as exc:  # re-raised outside the group, which would wrap it
                failed.append(exc)
            finally:
                group.cancel_scope.cancel()
        if failed:
            raise failed[0]
        return done[0]
