"""The submissions this machine's ledger (or a fleet's) holds that reached the service, for a
face that lists them as tasks (`svc mcp`'s resources)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.context import AppContext

if TYPE_CHECKING:
    from svc.store.ledger import Submission


def submitted_tasks(app: AppContext, limit: int) -> list[Submission]:
    """The newest `limit` ledger rows with a task id, newest first; none when there is no
    ledger yet (none is made to say so)."""
    if not app.has_ledger():  # the local file, or a fleet's shared ledger
        return []
    return [row for row in app.ledger.submissions(limit=limit) if row.task_id]
