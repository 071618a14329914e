"""The one record per process of what it paid, read by the one exit path.

Exit codes 2, 5 and 9 promise "nothing was charged": a script that trusts the table may pay
again. Once a request was accepted (a task exists and is paid) or its outcome is unknown (it
may have been charged), no later failure may end the process with one of them, whatever
raised it: a bad flag read late, a review the person cancelled, a poll that failed, a batch
line the cap refused. `RequestJournal` notes every acceptance and every unknown outcome here,
as it writes them (before the ledger, which may be the thing that failed); `cli.runtime`'s
exit path asks `final_code` and says why when it changes a code.

`svc mcp` answers many tool calls in one process: each call runs in its own `scoped()` record,
so one call's payment does not colour another call's error.

Kept free of imports beyond the standard library and `svc.errors`: every start imports it.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from svc.errors import ExitCode, SvcError

# The codes whose meaning says nothing was sent or charged (`svc help exit-codes`).
NOTHING_CHARGED = frozenset({2, 5, 9})
ERROR = 1
OUTCOME_UNKNOWN = 10


@dataclass(frozen=True)
class PaidRequest:
    request_id: str
    task_id: str | None  # None: the outcome is unknown (it may have been charged)
    earlier: bool = False  # paid by an earlier run; this one resumed it and paid nothing


class PaidRecord:
    """What this process (or one MCP tool call) paid: request id -> task id or unknown."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paid: dict[str, str | None] = {}
        self._earlier: set[str] = set()
        self._served: set[str] = set()  # paid requests with no task (svc request)

    def accepted(self, request_id: str, task_id: str, *, earlier: bool = False) -> None:
        """A request accepted as `task_id`: by this run, or (`earlier`) found so on a resume.
        Either way it is money, and no later failure may read as nothing charged."""
        with self._lock:
            self._paid[request_id] = task_id
            if earlier:
                self._earlier.add(request_id)
            else:
                self._earlier.discard(request_id)

    def served(self, request_id: str) -> None:
        """A paid request with no task was answered (`svc request`): money all the same."""
        with self._lock:
            self._paid[request_id] = request_id
            self._served.add(request_id)

    def unknown(self, request_id: str) -> None:
        with self._lock:
            self._paid.setdefault(request_id, None)

    def task_for(self, request_id: str) -> str | None:
        """The task a request of this run was accepted as (None: not accepted here)."""
        with self._lock:
            return self._paid.get(request_id)

    def only(self, request_id: str | None) -> PaidRecord:
        """A record of this one request alone: a batch line's error is settled against what
        that line paid, not what the whole run paid (svc.Client.submit_many)."""
        narrowed = PaidRecord()
        with self._lock:
            if request_id in self._paid:
                narrowed._paid[request_id] = self._paid[request_id]
                if request_id in self._earlier:
                    narrowed._earlier.add(request_id)
            if request_id in self._served:
                narrowed._served.add(request_id)
        return narrowed

    def requests(self) -> list[PaidRequest]:
        with self._lock:
            return [
                PaidRequest(rid, task, rid in self._earlier) for rid, task in self._paid.items()
            ]

    def final_code(self, code: int) -> int:
        """`code`, unless it would read as "nothing was charged" after a charge: then 10 if
        an outcome is unknown, else 1 (an error, with the paid tasks named)."""
        paid = self.requests()
        if not paid or code not in NOTHING_CHARGED:
            return code
        return OUTCOME_UNKNOWN if any(p.task_id is None for p in paid) else ERROR

    def explain(self, code: int, final: int) -> str:
        """The line that says why `code` became `final` and how to follow what was paid."""
        paid = self.requests()
        with self._lock:
            served = [p.request_id for p in paid if p.request_id in self._served]
        paid = [p for p in paid if p.request_id not in served]
        now = [p.task_id for p in paid if p.task_id and not p.earlier]
        before = [p.task_id for p in paid if p.task_id and p.earlier]
        unknown = [p.request_id for p in paid if p.task_id is None]
        parts = [f"this run paid request {r} (svc receipt {r})" for r in served[:3]]
        if now:
            parts.append(
                f"this run paid for task {_some(now)} ({_follow(now)} follows it, paying nothing)"
            )
        if before:
            parts.append(
                f"task {_some(before)} was paid for by an earlier run of the same request "
                f"({_follow(before)} follows it, paying nothing)"
            )
        if unknown:
            parts.append(
                f"the outcome of request {unknown[0]}"
                + (f" and {len(unknown) - 1} more" if len(unknown) > 1 else "")
                + " is unknown: it may have been charged (svc tasks)"
            )
        return "; ".join(parts) + f"; exit {final}, not {code}, which would read as nothing charged"

    def settle(self, error: SvcError) -> str | None:
        """Give `error` the code `final_code` decides; the line that says why, if it changed
        (the error's hint names what was paid too, for faces that show only the error)."""
        code = int(error.exit_code)
        final = self.final_code(code)
        if final == code:
            return None
        error.exit_code = ExitCode(final)
        why = self.explain(code, final)
        error.hint = f"{error.hint}; {why}" if error.hint else why
        return why

    def as_json(self) -> list[dict[str, str | bool | None]]:
        return [_as_json(p) for p in self.requests()]


def _as_json(paid: PaidRequest) -> dict[str, str | bool | None]:
    doc: dict[str, str | bool | None] = {"request_id": paid.request_id, "task_id": paid.task_id}
    if paid.earlier:
        doc["earlier"] = True  # paid by an earlier run of the request; this one paid nothing
    return doc


def _some(tasks: list[str]) -> str:
    return ", ".join(tasks[:3]) + (f" and {len(tasks) - 3} more" if len(tasks) > 3 else "")


def _follow(tasks: list[str]) -> str:
    return f"svc watch {tasks[0]}" if len(tasks) == 1 else "svc watch --all"


_PROCESS = PaidRecord()
_SCOPE: contextvars.ContextVar[PaidRecord | None] = contextvars.ContextVar(
    "svc_paid_record", default=None
)


def current() -> PaidRecord:
    """The record in effect: the tool call's (svc mcp), else the process's."""
    return _SCOPE.get() or _PROCESS


@contextmanager
def scoped() -> Iterator[PaidRecord]:
    """A fresh record for one unit of work that ends on its own (an MCP tool call)."""
    record = PaidRecord()
    token = _SCOPE.set(record)
    try:
        yield record
    finally:
        _SCOPE.reset(token)
