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
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from svc.client._sync import BATCH_CONCURRENCY, Client

if TYPE_CHECKING:
    from svc.client._context import Approver
    from svc.client.types import (
        BatchResult,
        Budgets,
        DoctorReport,
        DryRun,
        Guide,
        IdentityStatus,
        Quote,
        Spend,
        Task,
        TaskRow,
    )
    from svc.engines.changes import TaskChange
    from svc.replies import Answer

T = TypeVar("T")
DEFAULT_WORKERS = 8


@dataclass(frozen=True)
class _End:
    """The scheduler thread's last word: done, or the error to raise in the consumer."""

    error: BaseException | None = None


class AsyncClient:
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
        max_workers: int = DEFAULT_WORKERS,
    ) -> None:
        self.sync = Client(  # the same settings, contexts and engines
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
        )
        self.settings = self.sync.settings
        self._pool = ThreadPoolExecutor(max_workers, thread_name_prefix="svc-client")
        self.identity = AsyncIdentity(self)

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

    async def _run(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, work)

    @overload
    async def submit(
        self,
        task: str,
        email: str | None = None,
        *,
        request_id: str | None = None,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        trust_recipient: bool = False,
        allow_duplicate: bool = False,
        dry_run: Literal[False] = False,
    ) -> Task: ...

    @overload
    async def submit(
        self,
        task: str,
        email: str | None = None,
        *,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        dry_run: Literal[True],
    ) -> DryRun: ...

    async def submit(
        self,
        task: str,
        email: str | None = None,
        *,
        request_id: str | None = None,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        trust_recipient: bool = False,
        allow_duplicate: bool = False,
        dry_run: bool = False,
    ) -> Task | DryRun:
        """`Client.submit` in a worker thread (see the module's note on cancellation)."""
        call = partial(
            self.sync.submit,
            task,
            email,
            request_id=request_id,
            pay=pay,
            max_price=max_price,
            trust_recipient=trust_recipient,
            allow_duplicate=allow_duplicate,
            dry_run=dry_run,
        )
        return await self._run(call)

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

    async def get(self, task_id: str) -> Task:
        """`Client.get`: the task as the service answers it now (a free call)."""
        return await self._run(partial(self.sync.get, task_id))

    async def reply(self, task_id: str, answer: Answer) -> Task:
        """`Client.reply`: a neutral answer to the task's ask, checked as the CLI checks it."""
        return await self._run(partial(self.sync.reply, task_id, answer))

    async def pay_card(self, request_id: str | None = None) -> Task:
        """`Client.pay_card`: finish a saved card payment and send its request."""
        return await self._run(partial(self.sync.pay_card, request_id))

    async def quote(self, goal: str, **fields: Any) -> Quote:
        """`Client.quote`: the free advisor's quote for a goal."""
        return await self._run(partial(self.sync.quote, goal, **fields))

    async def guide(self, goal: str) -> Guide:
        """`Client.guide`: the free advisor's guide for a goal."""
        return await self._run(partial(self.sync.guide, goal))

    async def tasks(self, *, limit: int = 50, refresh: bool = False) -> list[TaskRow]:
        """`Client.tasks`: the tasks this machine's ledger knows, newest first."""
        return await self._run(partial(self.sync.tasks, limit=limit, refresh=refresh))

    async def spend(self, *, since: str | None = None) -> Spend:
        """`Client.spend`: what the ledger says was paid."""
        return await self._run(partial(self.sync.spend, since=since))

    async def budgets(self) -> Budgets:
        """`Client.budgets`: the budgets, what each has left and when it resets."""
        return await self._run(self.sync.budgets)

    async def doctor(self) -> DoctorReport:
        """`Client.doctor`: every check of `svc doctor`; a failure is a finding."""
        return await self._run(self.sync.doctor)

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
        stop = threading.Event()
        ids = list(task_ids)

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


class AsyncIdentity:
    """`client.identity` of an AsyncClient: Client.identity's calls as coroutines."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client
        self._sync = client.sync.identity

    async def status(self) -> IdentityStatus:
        """`Client.identity.status`: the stored agent credential, as data."""
        return await self._client._run(self._sync.status)

    async def register(
        self, *, email: str | None = None, assertion: str | None = None, force: bool = False
    ) -> IdentityStatus:
        """`Client.identity.register`: a new agent credential (for `email`, from an ID-JAG
        `assertion`, or anonymous)."""
        register = partial(self._sync.register, email=email, assertion=assertion, force=force)
        return await self._client._run(register)

    async def claim(self, *, email: str | None = None, code: str | None = None) -> IdentityStatus:
        """`Client.identity.claim`: without `code`, HumanNeeded with the claim link as data."""
        return await self._client._run(partial(self._sync.claim, email=email, code=code))

    async def refresh(self) -> IdentityStatus:
        """`Client.identity.refresh`: a fresh token for the stored credential."""
        return await self._client._run(self._sync.refresh)

    async def logout(self) -> bool:
        """`Client.identity.logout`: forget the stored credential; False if there was none."""
        return await self._client._run(self._sync.logout)


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
