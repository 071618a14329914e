"""Each ledger task as a resource, `svc://tasks/{task_id}`, so a host can list and show them.

Reading one fetches the task (free; a poll younger than the spec's interval is reused) and
returns it beside the ledger's row (request id, payment status; never the proof or the body).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, unquote

import mcp_types as types
from mcp.shared.exceptions import MCPError

from svc.context import AppContext
from svc.engines.submissions import submitted_tasks
from svc.errors import SvcError
from svc.mcp.results import bounded, error_doc, resource_text
from svc.mcp.state import Call
from svc.mcp.tools.follow import poll
from svc.sanitize import clean

PREFIX = "svc://tasks/"
TEMPLATE = types.ResourceTemplate(
    name="task",
    title="A submitted task",
    uri_template=PREFIX + "{task_id}",
    description="A task this machine submitted: the service's task detail and the ledger row.",
    mime_type="application/json",
)
LISTED = 200  # the newest ledger tasks listed; older ones stay readable by URI
RESOURCE_NOT_FOUND = -32002  # the MCP spec's code for an unknown resource


def _rows(app: AppContext) -> list[Any]:
    return submitted_tasks(app, LISTED)


async def list_resources(call: Call) -> list[types.Resource]:
    rows = await call.run(_rows)
    return [
        types.Resource(
            uri=PREFIX + quote(str(row.task_id), safe=""),
            name=str(row.task_id),
            title=f"{row.task_id} ({row.state or row.status})",
            description=clean(row.task_preview, 200, single_line=True),
            mime_type="application/json",
        )
        for row in rows
    ]


def task_id_of(uri: str) -> str:
    task_id = unquote(uri[len(PREFIX) :]) if uri.startswith(PREFIX) else ""
    if not task_id or "/" in task_id or len(task_id) > 256:
        raise MCPError(RESOURCE_NOT_FOUND, f"no such resource: {clean(uri, 300)}")
    return task_id


def _ledger_row(app: AppContext, task_id: str) -> dict[str, Any] | None:
    for row in _rows(app):
        if row.task_id == task_id:
            return dict(row.public_dict())
    return None


async def read_resource(call: Call, uri: str) -> types.TextResourceContents:
    task_id = task_id_of(uri)
    row = await call.run(lambda app: _ledger_row(app, task_id))
    recent = call.gate.recent(task_id)
    doc: dict[str, Any] = {"ledger": row}
    try:
        doc["task"] = recent[1] if recent is not None else await poll(call, task_id)
    except SvcError as exc:
        if row is None:
            # A JSON-RPC error reaches the model as surely as a result: scrubbed the same.
            message = bounded(f"task {task_id}: {exc.message}", 1000, call.vault)
            raise MCPError(RESOURCE_NOT_FOUND, message) from None
        doc["task"], doc["error"] = None, error_doc(exc, call.vault)
    return types.TextResourceContents(
        uri=uri, mime_type="application/json", text=resource_text(doc)
    )
