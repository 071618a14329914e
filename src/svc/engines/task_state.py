"""The ledger's cache of task states: the last state the service answered for each task, kept
where this machine has a ledger (`svc tasks` lists it, `svc watch --all` starts from it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from svc.context import AppContext
from svc.errors import LedgerUnavailableError

if TYPE_CHECKING:
    from svc.api.answers import Task
    from svc.store.ledger import LedgerStore

T = TypeVar("T")


def remember(app: AppContext, task: Task) -> None:
    """Keep the ledger's last known state fresh, if this machine has a ledger at all."""
    remember_state(app, task.id, task.state)


def remember_state(app: AppContext, task_id: str, state: str) -> None:
    task_state_cache(app, lambda ledger: ledger.set_task_state(task_id, state), None)


def task_state_cache(app: AppContext, use: Callable[[LedgerStore], T], default: T) -> T:
    """`use(ledger)` for the task states the ledger keeps, a cache of what the service
    answered: without a ledger, or with a fleet ledger that cannot be reached (warned
    once per context), `default`. A lost cache never costs the command that got the answer
    (a reply sent, a paid task followed): the service's answer stands."""
    if app.task_states_lost or not app.has_ledger():
        return default
    try:
        return use(app.ledger)
    except LedgerUnavailableError as exc:
        app.task_states_lost = True  # no new attempt (a connect may wait for its timeout)
        app.report.warn(f"the task states are not recorded: {exc.message}")
        return default
