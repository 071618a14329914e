"""`poll`: one task, fetched once.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated

from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import CLI_ONLY, Flag, Positional, Request, TaskId
from svc.operations.shown import TaskShown


class TaskRequest(Request):
    """One task, fetched once; on the CLI its state may decide the exit code."""

    task_id: Annotated[TaskId, Positional("ID", help="Task id.")]
    exit_status: Annotated[
        bool,
        Flag(
            "--exit-status",
            help="Exit code follows the state: 0 completed, 3 failed or cancelled, 6 blocked "
            "on the user, 11 still live (pending or running).",
        ),
        CLI_ONLY,
    ] = False


GET = Operation(
    "poll",
    TaskRequest,
    cli=Command("poll"),
    mcp=Tool(
        "get_task",
        "Get a task",
        "Fetch a task once (free): its state (pending, blocked_on_user, completed, failed, "
        "cancelled), result, ask (info_request) and events. To wait for a change, use "
        "wait_for_task instead of calling this in a loop.",
        TaskShown,
        read_only=True,
    ),
    library=written("get"),
)
