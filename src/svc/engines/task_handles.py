"""The handles of MCP Tasks clients, kept in the ledger (store/ledger/task_handles.py) so that a
`tasks/get` answers after `svc mcp` restarts, or from another `svc mcp` on the same ledger.

A handle names a service task of the service in effect: one made against another base URL
reads as unknown here, as an id never made does (the extension's -32602).
"""

from __future__ import annotations

import secrets

from svc.context import AppContext
from svc.store.ledger.task_handles import TaskHandle

__all__ = ["TaskHandle", "new_handle", "read_handle", "save_handle"]


def new_handle(
    app: AppContext,
    service_task_id: str,
    tool: str,
    *,
    request_id: str | None = None,
    submitted: str | None = None,
    said: str | None = None,
) -> TaskHandle:
    """A new handle, written durably, following `service_task_id`; `said`: its first status
    message."""
    handle = TaskHandle(
        task_id=secrets.token_urlsafe(24),  # a bearer for the task: never guessable
        service_task_id=service_task_id,
        request_id=request_id,
        tool=tool,
        base_url=app.settings.base_url,
        status="working",
        status_message=said,
        submitted=submitted,
    )
    return app.ledger.task_handles().create(handle)


def read_handle(app: AppContext, task_id: str) -> TaskHandle | None:
    found = app.ledger.task_handles().get(task_id)
    if found is None or found.base_url != app.settings.base_url:
        return None
    return found


def save_handle(app: AppContext, handle: TaskHandle) -> TaskHandle:
    return app.ledger.task_handles().save(handle)
