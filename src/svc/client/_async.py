"""`svc.AsyncClient`: the Client's methods as coroutines and async iterators, for asyncio.

The engines are synchronous (httpx's sync client, SQLite), so each call runs whole in a
bounded pool of worker threads (`max_workers`, 8 by default), each with its own app context
(its HTTP pool, its ledger link). `watch_many` runs ONE scheduler thread (with at most 8 polls
in flight) that feeds an asyncio queue: 1000 watched tasks cost one loop, not 1000 threads.

Cancellation: cancelling a coroutine stops the waiting, not the call already running in its
worker thread, which finishes on its own (a thread is never stopped halfway through a money
step). A payment is therefore never left half-journaled: the journal was written before the
first byte left and records each step, so the submission is resumed, never paid twice, by
submitting again with the same `request_id`. Pass one you made (`new_request_id()`) when a
submit may be cancelled, so you know the id to resume with.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from svc.client._generated_async import AsyncCalls, AsyncIdentity
from svc.client._sync import (
    BATCH_CONCURRENCY,
    DEFAULT_MAX_RETRIES,
    DEFAULT_TIMEOUT,
    Client,
)

if TYPE_CHECKING:
    import httpx

    from svc.client._context import Approver
    from svc.client.types import (
        BatchResult,
    )
    from svc.engines.changes import TaskChange
    from svc.operations.results import TaskRow
    from svc.settings import Settings

T = TypeVar("T")
DEFAULT_WORKERS = 8


@dataclass(frozen=True)
class _End:
    """The scheduler thread's last word: done, or the error to raise in the consumer."""

    error: BaseException | None = None


class AsyncClient(AsyncCalls):
    """`Client` for asyncio programs: the same arguments (plus `max_workers`), the same
    methods as coroutines; `watch` and `watch_many` are async iterators."""

    def __init__(
        self,
        *,
        profile: str | None = None,
        base_url: str | None = None,
        auth_base: str | None = None,
        ledger_url: str | None = None,
        max_price: Decimal | str | None = None,
        daily_cap: Decimal | str | None = None,
        pay: str | None = None,
        email: str | None = None,
        approve: Approver | None = None,
        trust_recipient: bool = False,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        max_workers: int = DEFAULT_WORKERS,
    ) -> None:
        self.sync: Client = Client(  # the same settings, contexts and engines
            profile=profile,
            base_url=base_url,
            auth_base=auth_base,
            ledger_url=ledger_url,
            max_price=max_price,
            daily_cap=daily_cap,
            pay=pay,
            email=email,
            approve=approve,
            trust_recipient=trust_recipient,
            timeout=timeout,
            max_retries=max_retries,
        )
        self.settings: Settings = self.sync.settings
        self._max_workers = max_workers
        self._pool = ThreadPoolExecutor(max_workers, thread_name_prefix="svc-client")
        self.identity: AsyncIdentity = AsyncIdentity(self)

    def with_options(self, **changes: Any) -> AsyncClient:
        """A new client with these arguments changed (`timeout=5`, `max_retries=0`,
        `max_workers=2`, ...) and every other as this one's; close it as any other."""
        options = {**self.sync._options, "max_workers": self._max_workers, **changes}
        return AsyncClient(**options)

    def __repr__(self) -> str:
        return "Async" + repr(self.sync)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Wait for the calls under way, then close every context (never mid-payment)."""
        await asyncio.get_running_loop().run_in_executor(None, self._pool.shutdown)
        self.sync.close()

    async def submit_many(
        self,
        lines: Iterable[Mapping[str, Any]] | str | os.PathLike[str],
        *,
        email: str | None = None,
        concurrency: int = BATCH_CONCURRENCY,
        skip_bad_lines: bool = False,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        trust_recipient: bool = False,
    ) -> AsyncIterator[BatchResult]:
        """`Client.submit_many`: the batch runs in threads of its own; each result is awaited
        in a worker thread. Leave early through `contextlib.aclosing` (or `aclose()`): no new
        line is sent, and it returns once the lines in flight finish."""
        run = self.sync._batch(
            lines,
            email=email,
            concurrency=concurrency,
            skip_bad_lines=skip_bad_lines,
            pay=pay,
            max_price=max_price,
            trust_recipient=trust_recipient,
        )
        try:
            while (result := await self._run(run.next)) is not None:
                yield result
        finally:
            await asyncio.get_running_loop().run_in_executor(None, run.stop)

    async def tasks(
        self, *, limit: int | None = None, page_size: int = 50, refresh: bool = False
    ) -> AsyncIterator[TaskRow]:
        """`Client.tasks`: this machine's submissions, newest first, a page of `page_size`
        read in a worker thread as the iteration goes (its ledger link is that thread's)."""
        from svc.client._context import count_argument  # the engines load with a client

        count_argument("page_size", page_size, most=500)
        if limit is not None:
            count_argument("limit", limit)
        cursor, given = None, 0
        while limit is None or given < limit:
            size = page_size if limit is None else min(page_size, limit - given)
            page = partial(self.sync._task_page, size, refresh, cursor)
            rows, cursor = await self._run(page)
            for row in rows:
                yield row
            given += len(rows)
            if cursor is None:
                return

    def watch(self, task_id: str, *, interval: float | None = None) -> AsyncIterator[TaskChange]:
        """One task's changes until it is final or asks something (`watch_many` of one)."""
        return self.watch_many([task_id], interval=interval)

    async def watch_many(
        self, task_ids: Iterable[str], *, interval: float | None = None
    ) -> AsyncIterator[TaskChange]:
        """The changes of many tasks until each is final or asks something, from one
        scheduler thread; leaving the loop early stops it within a second."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[list[TaskChange] | _End] = asyncio.Queue()
        from svc.client._context import id_argument  # the engines load with a client

        stop = threading.Event()
        ids = [id_argument("task_id", task_id) for task_id in task_ids]

        def follow() -> Iterator[list[TaskChange]]:
            return self.sync._change_batches(ids, interval, stop)

        thread = threading.Thread(
            target=_feed, args=(follow, loop, queue, stop, self.sync), daemon=True
        )
        thread.name = "svc-watch"
        thread.start()
        try:
            while True:
                item = await queue.get()
                if isinstance(item, _End):
                    if item.error is not None:
                        raise item.error
                    return
                for change in item:  # one wake-up per batch of answers, not per change
                    yield change
        finally:
            stop.set()


def _feed(
    follow: Callable[[], Iterator[list[TaskChange]]],
    loop: asyncio.AbstractEventLoop,
    queue: asyncio.Queue[list[TaskChange] | _End],
    stop: threading.Event,
    client: Client,
) -> None:
    """The scheduler thread: every change onto the loop's queue, then the end (or error)."""

    def put(item: list[TaskChange] | _End) -> None:
        if not stop.is_set():
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the loop is closed: nobody is listening any more
                stop.set()

    try:
        for batch in follow():
            put(batch)
        put(_End())
    except BaseException as error:  # handed to the consumer, which raises it
        put(_End(error))
    finally:
        client._release_thread()
