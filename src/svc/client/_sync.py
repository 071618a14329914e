"""`svc.Client`: what the CLI knows, as one importable, typed API over the same engines.

    from svc import Client, Secret

    with Client(max_price="1.50", approve=lambda offer: offer.amount_usd <= 2) as client:
        task = client.submit("Log in and pay my bill", "ada@example.com")
        for change in client.watch(task.id):
            if change.kind == "ask":
                client.reply(task.id, Secret("123456"))

Money is handled exactly as `svc submit` handles it (engines/submit): the request is
journaled before its first byte leaves, the policy (price cap, rails, networks, assets, the
recipient pinned per origin, the daily cap) decides before anything is signed, and a request
id resumes a submission without paying again. Nothing prompts: a payment is approved by the
`approve(offer)` callback when one is given, else by the policy's limits alone; svc's notes
and warnings go to the `logging` logger "svc", scrubbed of the secrets it was told.

This module imports nothing heavy: `from svc import Client` stays as cheap as `import svc`;
the engines (httpx, pydantic) load when a Client is built (_work.py).
"""

from __future__ import annotations

from svc.client._generated import OperationMethods

TYPE_CHECKING = False  # as in svc/__init__.py: `from svc import Client` loads no typing
BATCH_CONCURRENCY = 8  # engines.batch.DEFAULT_CONCURRENCY, as `svc submit --from` (a test checks)
DEFAULT_TIMEOUT = 60.0  # seconds a whole call may take, its retries included
DEFAULT_MAX_RETRIES = 3  # as the CLI: four attempts at most

if TYPE_CHECKING:
    import os
    import threading
    from collections.abc import Callable, Iterable, Iterator, Mapping
    from decimal import Decimal
    from types import TracebackType
    from typing import Any, Literal, overload

    import httpx

    from svc.client._batch import BatchRun
    from svc.client._context import Approver, LibraryContext
    from svc.client.types import BatchResult, DryRun, PaidAnswer, Task
    from svc.engines.changes import TaskChange
    from svc.operations.results import Budgets, DoctorReport, Guide, IdentityStatus, Quote, TaskRow
    from svc.replies import Answer
    from svc.settings import Settings
else:

    def overload(function: object) -> object:
        """typing.overload without importing typing (the last definition is the one run)."""
        return function


class Client(OperationMethods):
    """A client of the task service with this machine's (or `profile`'s) settings, wallet,
    secret store, ledger, payment policy and daily cap.

    Arguments stand where the CLI's flags stand: given, they win over the environment, which
    wins over the profile, which wins over the defaults (`daily_cap="none"` removes the cap,
    as SVC_DAILY_CAP=none does). `approve(offer) -> bool` is asked before any payment is
    signed, and about a recipient other than the one pinned for this service; without it
    the policy's limits alone decide and a changed recipient is refused unless
    `trust_recipient`. Safe to use from several threads (one app context per thread).
    Errors are `svc.SvcError`s carrying the contract's `code`, `exit_code` and `hint`.

    `timeout` bounds each call, its retries included (seconds, default 60; an
    `httpx.Timeout` also sets each request's own bounds; None: no bound on a whole call,
    each request's SVC_TIMEOUT as the CLI's). A watch is bounded poll by poll.
    `max_retries`: how often a request that failed on the way is tried again (default 3).
    A call that runs out of time raises `svc.Unavailable` (nothing was sent) or, once a paid
    request may have reached the service, `svc.OutcomeUnknown` (resume with its request id).
    `with_options(...)` returns a client with some of these changed.
    """

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
    ) -> None:
        # The engines load here, not when svc is imported (httpx, pydantic: ~0.2 s).
        from svc.client._context import Arguments
        from svc.client._work import open_contexts

        self._options: dict[str, Any] = {
            "profile": profile,
            "base_url": base_url,
            "auth_base": auth_base,
            "ledger_url": ledger_url,
            "max_price": max_price,
            "daily_cap": daily_cap,
            "pay": pay,
            "email": email,
            "approve": approve,
            "trust_recipient": trust_recipient,
            "timeout": timeout,
            "max_retries": max_retries,
        }
        args = Arguments(
            profile,
            base_url,
            auth_base,
            ledger_url,
            max_price,
            daily_cap,
            pay,
            email,
            timeout,
            max_retries,
        )
        self._contexts = open_contexts(args, approve, trust_recipient)
        self.settings: Settings = self._contexts.settings
        self.identity: Identity = Identity(self)

    def with_options(self, **changes: Any) -> Client:
        """A new client with these arguments changed (`timeout=5`, `max_retries=0`,
        `profile="work"`, ...) and every other as this one's; close it as any other."""
        return Client(**{**self._options, **changes})

    def __repr__(self) -> str:
        ledger = "fleet" if self.settings.ledger_url else "local"
        return (
            f"Client(base_url={self.settings.base_url!r}, profile={self.settings.profile!r}, "
            f"ledger={ledger!r})"
        )

    # --- life ---------------------------------------------------------------------------

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP pools and ledgers this client opened (in every thread)."""
        self._contexts.close()

    @property
    def _app(self) -> LibraryContext:
        """This thread's app context (SQLite links belong to the thread that opened them)."""
        return self._contexts.get()

    # --- tasks --------------------------------------------------------------------------

    @overload
    def submit(
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
    def submit(  # noqa: F811  (overload is typing's, imported only to type-check)
        self,
        task: str,
        email: str | None = None,
        *,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        dry_run: Literal[True],
    ) -> DryRun: ...

    def submit(  # noqa: F811
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
        """Submit and pay for a task (1.50 USD); the accepted task, `task.submission` saying
        how it was paid. With the `request_id` of an earlier submission it resumes that one
        (re-sending its journaled proof, never signing a second): the way back after a crash,
        a lost answer (OutcomeUnknown) or a cancelled call. Without one, the same task for
        the same e-mail within the duplicate window is refused (UsageError) unless
        `allow_duplicate`: paying for it twice is the costly mistake.

        `dry_run=True` sends nothing: the task is checked and the listed price returned
        against the limit (`DryRun`); a request id or allow_duplicate beside it is a
        UsageError, since only a paid request could honour them. `max_price` is a Decimal or
        a str ("1.50"): a float, an int or a bool is a TypeError."""
        from svc.client import _work

        return _work.submit(
            self._app,
            task,
            email,
            request_id=request_id,
            pay=pay,
            max_price=max_price,
            trust_recipient=trust_recipient,
            allow_duplicate=allow_duplicate,
            dry_run=dry_run,
        )

    def run(
        self,
        task: str,
        email: str | None = None,
        *,
        answer: Callable[[Task], Answer | None] | None = None,
        request_id: str | None = None,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        interval: float | None = None,
    ) -> Task:
        """Submit and pay for a task, then follow it to its end: `svc submit --wait` as one
        call. Each time the task asks something, `answer(task)` is called with the task (its
        `ask` typed) and what it returns is sent as the reply; without `answer`, or when it
        returns None, HumanNeeded is raised and the task waits (`error.data["task_id"]`).
        Returns the completed task; one that ends failed or cancelled raises TaskFailed
        (`error.data["task"]`). Its request id resumes it as `submit` does."""
        from svc.client import _work

        submitted = self.submit(task, email, request_id=request_id, pay=pay, max_price=max_price)
        return _work.run_to_end(self, submitted, answer, interval)

    def request(
        self,
        url: str,
        method: str = "GET",
        *,
        headers: Mapping[str, str] | None = None,
        data: bytes | str | None = None,
        output: str | os.PathLike[str] | None = None,
        request_id: str | None = None,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
    ) -> PaidAnswer:
        """`svc request`: send an HTTP request to any origin and pay its 402 (x402 or MPP)
        as `submit` pays, within the same policy, journaled under `request_id` (reuse it,
        with the same method, URL and body, to resume without paying twice). The answer's
        status, headers and body (`output`: written to that file as it comes, with bounded
        memory, and not returned); an error status raises its error, the answer in
        `error.data["response"]`. Redirects are not followed."""
        from svc.client import _work

        return _work.request(
            self._app,
            url,
            method=method,
            headers=headers,
            data=data,
            output=output,
            request_id=request_id,
            pay=pay,
            max_price=max_price,
        )

    def submit_many(
        self,
        lines: Iterable[Mapping[str, Any]] | str | os.PathLike[str],
        *,
        email: str | None = None,
        concurrency: int = BATCH_CONCURRENCY,
        skip_bad_lines: bool = False,
        pay: str | None = None,
        max_price: Decimal | str | None = None,
        trust_recipient: bool = False,
    ) -> Iterator[BatchResult]:
        """Submit many tasks as `svc submit --from` does: `lines` are batch-file lines
        ({"task", "email"?, "request_id"?}) or the path of a JSON-lines file. Every line is
        checked before anything is paid: a bad one refuses the whole run (UsageError naming
        every bad line, nothing sent) unless `skip_bad_lines`, which sends the good ones and
        yields the bad as `invalid` results. Then `concurrency` lines at a time (1 to 64),
        each paid at most once and approved as a submit is (`approve`, the caps); a result
        per line as it finishes (not in order). A line without a request id gets the one
        `svc submit --from` derives, so the same lines again pay nothing twice. Closing the
        iterator early sends no new line and returns once the lines in flight finish."""
        from svc.client import _batch

        run = self._batch(
            lines,
            email=email,
            concurrency=concurrency,
            skip_bad_lines=skip_bad_lines,
            pay=pay,
            max_price=max_price,
            trust_recipient=trust_recipient,
        )
        return _batch.results(run)

    def get(self, task_id: str) -> Task:
        """The task as the service has it now, with its events (one free poll)."""
        from svc.client import _work

        return _work.get(self._app, task_id)

    def watch(self, task_id: str, *, interval: float | None = None) -> Iterator[TaskChange]:
        """The task's changes as they happen, until it is final or asks something (the last
        change is then `final` or `ask`). Polled as `svc watch` polls: never sooner than the
        service allows, backing off while nothing changes."""
        return self.watch_many([task_id], interval=interval)

    def watch_many(
        self, task_ids: Iterable[str], *, interval: float | None = None
    ) -> Iterator[TaskChange]:
        """The changes of many tasks, interleaved as they happen, until each is final or asks
        something: one scheduler and at most 8 polls in flight, however many tasks."""
        from svc.client._context import id_argument

        ids = [id_argument("task_id", task_id) for task_id in task_ids]  # at the call
        return self._changes(ids, interval)

    def reply(self, task_id: str, answer: Answer) -> Task:
        """Answer the task's ask with a neutral answer (svc.replies: Message, Value, Secret,
        Fields, Approve, Decline), checked against the ask as `svc reply` checks it; the task
        as the service answered. A Secret is never logged, echoed or shown in a repr."""
        from svc.client import _work

        return _work.reply(self._app, task_id, answer)

    def pay_card(self, request_id: str | None = None) -> Task:
        """Finish a saved card payment and send its request (`svc pay card`): the accepted
        task. A card page that still waits for a person is HumanNeeded, its link in
        `error.data`."""
        from svc.client import _info

        return _info.pay_card(self._app, request_id)

    # --- free calls and the ledger ------------------------------------------------------

    def quote(self, goal: str, **fields: Any) -> Quote:
        """The advisor's quote for a goal (free; `fields` are the spec's other quote members:
        quantity, budgetUsd, requirements, payment, ...). AdvisorUnavailable when the advisor
        is down: `guide(goal)` is then the spec's answer."""
        from svc.client import _info

        return _info.quote(self._app, goal, fields)

    def guide(self, goal: str) -> Guide:
        """The wallet-free guide for a goal (free, no wallet needed)."""
        from svc.client import _info

        return _info.guide(self._app, goal)

    def tasks(
        self, *, limit: int | None = None, page_size: int = 50, refresh: bool = False
    ) -> Iterator[TaskRow]:
        """This machine's submissions from the ledger, newest first (`svc tasks`), read a
        page of `page_size` at a time as the iteration goes (a cursor, so rows written
        meanwhile neither repeat nor shift a page), up to `limit` rows (None: all).
        `refresh` polls each page's live tasks first."""
        from svc.client._context import count_argument

        count_argument("page_size", page_size, most=500)
        if limit is not None:
            count_argument("limit", limit)
        return self._tasks(limit, page_size, refresh)

    def _tasks(self, limit: int | None, page_size: int, refresh: bool) -> Iterator[TaskRow]:
        from svc.client import _info

        cursor, given = None, 0
        while limit is None or given < limit:
            size = page_size if limit is None else min(page_size, limit - given)
            rows, cursor = _info.task_page(self._app, size, refresh, cursor)
            yield from rows
            given += len(rows)
            if cursor is None:
                return

    def _task_page(
        self, size: int, refresh: bool, cursor: tuple[float, str] | None
    ) -> tuple[list[TaskRow], tuple[float, str] | None]:
        from svc.client import _info

        return _info.task_page(self._app, size, refresh, cursor)

    def budgets(self) -> Budgets:
        """The budgets, each with what it has used and left and when it resets, the breaker
        and the hourly rate (`svc budget --json`)."""
        from svc.client import _info

        return _info.budgets(self._app)

    def doctor(self) -> DoctorReport:
        """Every check `svc doctor` runs; failures are findings, not exceptions."""
        from svc.client import _info

        return _info.doctor(self._app)

    # --- for AsyncClient ----------------------------------------------------------------

    def _changes(
        self, task_ids: list[str], interval: float | None, stop: threading.Event | None = None
    ) -> Iterator[TaskChange]:
        from svc.client import _work

        return _work.changes(self._app, task_ids, interval, stop)

    def _change_batches(
        self, task_ids: list[str], interval: float | None, stop: threading.Event | None = None
    ) -> Iterator[list[TaskChange]]:
        from svc.client import _work

        return _work.change_batches(self._app, task_ids, interval, stop)

    def _batch(
        self,
        lines: Iterable[Mapping[str, Any]] | str | os.PathLike[str],
        *,
        email: str | None,
        concurrency: int,
        skip_bad_lines: bool,
        pay: str | None,
        max_price: Decimal | str | None,
        trust_recipient: bool,
    ) -> BatchRun:
        from svc.client import _batch

        return _batch.prepared(
            self._contexts,
            lines,
            email=email,
            concurrency=concurrency,
            skip_bad_lines=skip_bad_lines,
            pay=pay,
            max_price=max_price,
            trust_recipient=trust_recipient,
        )

    def _release_thread(self) -> None:
        """Close the context of a thread that ends (AsyncClient's watch scheduler)."""
        self._contexts.release()


class Identity:
    """`client.identity`: the agent credential, as `svc identity ...` manages it."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def status(self) -> IdentityStatus:
        """The stored agent credential, as data (never its secret)."""
        from svc.client import _identity

        return _identity.status(self._client._app)

    def register(
        self, *, email: str | None = None, assertion: str | None = None, force: bool = False
    ) -> IdentityStatus:
        """Register an e-mail credential (`email`), an ID-JAG one (`assertion`: the signed
        identity assertion your identity provider issued, as `svc identity register
        --assertion-file` takes it) or an anonymous one; a stored one of the same kind and
        person is reused, another replaced only with `force`."""
        from svc.client import _identity

        return _identity.register(self._client._app, email, assertion, force)

    def claim(self, *, email: str | None = None, code: str | None = None) -> IdentityStatus:
        """Claim the credential for a person: without `code`, HumanNeeded carrying the link
        (`error.data["verification_uri"]`); then again with the code the page shows."""
        from svc.client import _identity

        return _identity.claim(self._client._app, email, code)

    def refresh(self) -> IdentityStatus:
        """A fresh token for the stored credential."""
        from svc.client import _identity

        return _identity.refresh(self._client._app)

    def logout(self) -> bool:
        """Forget the stored credential; False if there was none."""
        from svc.client import _identity

        return _identity.logout(self._client._app)
