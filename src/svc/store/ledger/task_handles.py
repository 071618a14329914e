"""The handles `svc mcp` gives MCP Tasks clients (the `io.modelcontextprotocol/tasks`
extension): one row per handle, naming the service task it follows.

A handle is created before its id is handed out (the extension's rule: a `tasks/get` on a
returned id must resolve), so a restarted `svc mcp`, or another one on the same ledger, still
answers for it. A row holds what the next answer needs and nothing the person typed: the
open question's key (never its answer), and a final result that was scrubbed of every secret
before it was written. Written in the SQL both engines speak (`database.Database`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields, replace
from typing import Any

from svc.store.ledger.database import Database


@dataclass(frozen=True)
class TaskHandle:
    task_id: str  # the handle's id, unguessable: whoever holds it may read the task
    service_task_id: str
    request_id: str | None  # the paid request that made the service task, if svc made it
    tool: str  # the tool whose call the handle answers (submit_task, wait_for_task)
    base_url: str  # the service the task lives on: a handle never follows another's task
    status: str  # the extension's: working, input_required, completed, failed, cancelled
    status_message: str | None = None
    input_key: str | None = None  # the open question's key in `inputRequests`
    input_ask: str | None = None  # which of the service's asks that question is
    asked: int = 0  # keys handed out so far: a key is never used twice in a task's life
    submitted: str | None = None  # JSON: the paid submit's request id, rail, billing
    result: str | None = None  # the final tool result (JSON), secrets scrubbed
    ttl_ms: int | None = None  # None: kept until forgotten
    created_at: float = 0.0
    updated_at: float = 0.0


COLUMNS = tuple(f.name for f in fields(TaskHandle))
# What a later answer may change; the rest is fixed at creation.
CHANGING = ("status", "status_message", "input_key", "input_ask", "asked", "result", "ttl_ms")


class TaskHandles:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, handle: TaskHandle) -> TaskHandle:
        """Write a new handle, durably: its id goes out only once a reader would find it."""
        now = time.time()
        made = _with_times(handle, now, now)
        marks = ", ".join("?" for _ in COLUMNS)
        sql = f"INSERT INTO mcp_tasks ({', '.join(COLUMNS)}) VALUES ({marks})"  # noqa: S608
        self.db.transaction([(sql, _values(made, COLUMNS))], durable=True)
        return made

    def get(self, task_id: str) -> TaskHandle | None:
        row = self.db.execute("SELECT * FROM mcp_tasks WHERE task_id = ?", (task_id,)).fetchone()
        return None if row is None else _read(row)

    def save(self, handle: TaskHandle) -> TaskHandle:
        """The handle's changing part as given, stamped now; the handle as written."""
        saved = _with_times(handle, handle.created_at, time.time())
        sets = ", ".join(f"{name} = ?" for name in (*CHANGING, "updated_at"))
        sql = f"UPDATE mcp_tasks SET {sets} WHERE task_id = ?"  # noqa: S608
        values = (*_values(saved, CHANGING), saved.updated_at, saved.task_id)
        self.db.transaction([(sql, values)])
        return saved

    def drop_following(self, request_id: str, service_task_id: str | None, base_url: str) -> None:
        """Every handle that follows a submission being forgotten, on that submission's
        service (another service's task may have the same id); the caller holds the write. A
        forgotten task leaves no result, question or id of it in the handles."""
        sql = "DELETE FROM mcp_tasks WHERE base_url = ? AND (request_id = ?"
        values: tuple[str, ...] = (base_url, request_id)
        if service_task_id:
            sql, values = sql + " OR service_task_id = ?", (*values, service_task_id)
        self.db.execute(sql + ")", values)

    def forget(self, task_id: str) -> bool:
        with self.db.write():
            cursor = self.db.execute("DELETE FROM mcp_tasks WHERE task_id = ?", (task_id,))
            return cursor.rowcount > 0


def _with_times(handle: TaskHandle, created: float, updated: float) -> TaskHandle:
    return replace(handle, created_at=created, updated_at=updated)


def _values(handle: TaskHandle, names: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple(getattr(handle, name) for name in names)


def _read(row: Any) -> TaskHandle:
    found = dict(row)
    return TaskHandle(**{name: found[name] for name in COLUMNS})
