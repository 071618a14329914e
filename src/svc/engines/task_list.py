"""The ledger's submissions, filtered, optionally refreshed: `svc tasks` and MCP `list_tasks`.

The service has no list call, so the ledger is the list. `--refresh` polls the rows whose last
known state is live (a final state never changes), only for this base URL (a task id is never
sent to a service other than the one that issued it), a few at a time; a poll that fails marks
its row and the others go on, and a task the service answers 404 for is marked `gone`.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from svc.api.models import FINAL_STATES
from svc.context import AppContext
from svc.engines.auth import free_call_auth
from svc.engines.task_state import remember_state
from svc.errors import NotFound, SvcError
from svc.store.ledger.reads_bounded import COUNT_CAP, Filter
from svc.store.ledger.rows import GONE

if TYPE_CHECKING:
    from httpx import Auth

    from svc.api.tasks import TaskClient
    from svc.store.ledger import LedgerStore, Submission

REFRESH_THREADS = 8  # free GETs, but a real host should not see a burst
# The service's states, and the ledger's own `gone` (the service answered 404 for the task).
TASK_STATES = ("pending", "blocked_on_user", "completed", "failed", "cancelled", GONE)


@dataclass(frozen=True)
class TaskQuery:
    """Which rows: the newest `limit` (0: all), of some states, since a time; refreshed or not."""

    limit: int = 50
    states: tuple[str, ...] = ()  # empty: every state
    since: float | None = None  # a timestamp: rows created at or after it
    refresh: bool = False
    runner: str | None = None  # a shared (fleet) ledger: only this runner's submissions
    before: tuple[float, str] | None = None  # a page's cursor: rows older than this one


@dataclass
class Listing:
    rows: list[Submission]
    filtered: bool = False  # --state or --since narrowed the rows
    errors: dict[str, str] = field(default_factory=dict)  # request id -> why not refreshed
    now: float = field(default_factory=time.time)
    total: int = 0  # the rows that matched before `limit` cut them
    total_exact: bool = True  # False: there are at least `total` (a count stops at a cap)

    @property
    def cut(self) -> bool:
        """The limit left rows out (`svc tasks` says so: a script must not take 50 for all)."""
        return self.total > len(self.rows)

    def documents(self) -> list[dict[str, Any]]:
        docs = []
        for row in self.rows:
            doc = row.public_dict()
            if row.request_id in self.errors:
                doc["refresh_error"] = self.errors[row.request_id]
            docs.append(doc)
        return docs


def collect(opts: TaskQuery, app: AppContext) -> Listing:
    if opts.before is not None and opts.refresh and opts.states:
        raise ValueError("a page's cursor reads the newest rows first: not with states")
    filtered = bool(opts.states) or opts.since is not None or opts.runner is not None
    ledger = app.ledger_to_read()
    if ledger is None:
        return Listing([], filtered)  # nothing submitted from here: no ledger is made to say so
    if opts.refresh and opts.states:
        # A refresh may move any live row into the states asked for: every candidate is read.
        return _collect_all(opts, app, ledger, filtered)
    # The filters and the limit in SQL: the time is the rows shown, not the ledger's age.
    where = Filter(opts.states, opts.since, opts.runner, opts.before)
    limit = opts.limit or None
    reads = ledger.bounded()
    listing = Listing(reads.newest(where, limit), filtered)
    if opts.refresh:
        refresh(app, listing, listing.rows)
    listing.total = len(listing.rows)
    if limit is not None and listing.total == limit:  # cut, perhaps: one capped count says
        listing.total, listing.total_exact = reads.count(where, max(COUNT_CAP, limit + 1))
    return listing


def cursor_after(listing: Listing) -> tuple[float, str] | None:
    """The cursor of the page after this one (None: the rows are all shown)."""
    if not listing.cut or not listing.rows:
        return None
    last = listing.rows[-1]
    return (last.created_at, last.request_id)


def _collect_all(opts: TaskQuery, app: AppContext, ledger: LedgerStore, filtered: bool) -> Listing:
    limit = opts.limit or None
    unbounded = limit is None or bool(opts.states) or opts.refresh or opts.runner is not None
    rows = ledger.submissions(limit=None if unbounded else limit)
    # The newest `limit` rows came back: how many there are is one count, not a read of all.
    total = (
        None if unbounded or len(rows) < opts.limit else ledger.count_submissions(since=opts.since)
    )
    if opts.runner is not None:
        rows = [r for r in rows if r.runner == opts.runner]
    if opts.since is not None:
        rows = [r for r in rows if r.created_at >= opts.since]
    listing = Listing(rows, filtered)
    if opts.refresh:
        refresh(app, listing, rows if opts.states else rows[:limit])
    if opts.states:
        listing.rows = [r for r in rows if r.state in opts.states]
    listing.total = len(listing.rows) if total is None else total
    listing.rows = listing.rows[:limit]
    return listing


def refresh(app: AppContext, listing: Listing, rows: list[Submission]) -> None:
    """Poll the live rows of this base URL; write what changed from this (the main) thread,
    which owns the ledger's SQLite link (a ledger that cannot be written: said once, and the
    listing shows the fresh states all the same)."""
    live = [
        r
        for r in rows
        if r.task_id and r.state not in FINAL_STATES and r.base_url == app.settings.base_url
    ]
    if not live:
        return
    tasks, auth = app.tasks, free_call_auth(app)  # built here: the workers only send
    with ThreadPoolExecutor(max_workers=min(REFRESH_THREADS, len(live))) as pool:
        answers = list(pool.map(lambda row: _poll(tasks, auth, str(row.task_id)), live))
    for row, (state, error) in zip(live, answers, strict=True):
        if error is not None:
            listing.errors[row.request_id] = f"{row.task_id}: {error}"
        elif state != row.state:
            row.state = state
            remember_state(app, str(row.task_id), str(state))


def _poll(tasks: TaskClient, auth: Auth | None, task_id: str) -> tuple[str | None, str | None]:
    """(the task's state now, None) or (None, why it could not be read); a task the service
    no longer knows (404) is `gone`, which a later answer about it overwrites."""
    try:
        task = tasks.poll(task_id, auth=auth)
    except NotFound:
        return GONE, None
    except SvcError as exc:
        return None, exc.message
    return task.state, None
