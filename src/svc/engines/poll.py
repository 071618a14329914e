"""One GET of a task: `svc poll`, the library's get and svc mcp's get_task. The ledger's cache of
the task's state is kept fresh; what the state means to a face (an exit code, a panel) is the
face's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.engines.auth import free_call_auth
from svc.engines.task_state import task_state_cache

if TYPE_CHECKING:
    from svc.api.answers import Task
    from svc.context import AppContext
    from svc.store.ledger import LedgerStore


def poll_once(app: AppContext, task_id: str) -> Task:
    """The task as the service answers it now (raises the contract's errors: 404 is
    NotFound)."""
    task = app.tasks.poll(task_id, auth=free_call_auth(app))
    task_state_cache(app, lambda ledger: _remember(ledger, task), None)
    return task


def _remember(ledger: LedgerStore, task: Task) -> None:
    """The state into the ledger's cache, unless every row of the task holds it already: a
    poll that changed nothing writes nothing (and costs no fsync at exit)."""
    if not ledger.bounded().state_is_news(task.id, task.state):
        return
    ledger.set_task_state(task.id, task.state)
