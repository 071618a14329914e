"""`tasks`: the tasks submitted from this machine, from the ledger.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import PERSON, Command, Operation, Tool, by_hand, written
from svc.operations.fields import NotIn, Request
from svc.operations.shown import TasksShown


class TasksRequest(Request):
    limit: int = Field(50, ge=1, le=500, description="Default 50.")
    refresh: Annotated[bool, NotIn(("mcp",))] = Field(
        False, description="Poll each listed task's state first."
    )


TASKS = Operation(
    "tasks",
    TasksRequest,
    cli=Command("tasks"),
    mcp=Tool(
        "list_tasks",
        "List submitted tasks",
        "The tasks submitted from this machine (on a shared fleet ledger: by every runner), "
        "newest first, from the ledger (the service has no list call): task id, last known "
        "state, request id, payment status. States may be stale: refresh one with get_task.",
        TasksShown,
        read_only=True,
    ),
    library=written("tasks"),
)

KEPT: tuple[Operation[Any], ...] = (
    by_hand("tasks forget", PERSON, PERSON),
    by_hand("tasks prune", PERSON, PERSON),
)
