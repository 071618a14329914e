"""`watch`: a task followed until it is final or asks something.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from svc.operations.declare import Command, Operation, Tool, written
from svc.operations.fields import CLI_ONLY, NOT_CLI, Flag, Positional, Request, TaskId
from svc.operations.shown import TaskShown

MAX_WAIT_SECONDS = 3600  # accepted (older callers ask for more), but one call waits at most:
# hosts time a request out after 60 s (the TypeScript SDK's default, which progress does not
# reset), with room for a slow last poll
WAIT_BUDGET_SECONDS = 40


class WaitRequest(Request):
    """One task waited on (svc mcp), or on the CLI several, each followed until it is final
    (the CLI's fields: what a person at a terminal adds, the ledger's live tasks, hooks)."""

    task_id: Annotated[TaskId, Positional(), NOT_CLI]
    timeout_seconds: Annotated[float | None, NOT_CLI] = Field(
        None,
        gt=0,
        le=MAX_WAIT_SECONDS,
        description=f"Give up waiting after this long (default and most: "
        f"{WAIT_BUDGET_SECONDS}); the task goes on, call again to keep waiting.",
    )
    task_ids: Annotated[list[str] | None, Positional("ID..."), CLI_ONLY] = Field(
        None, description="Task ids."
    )
    all_live: Annotated[bool, Flag("--all"), CLI_ONLY] = Field(
        False, description="Also every task the ledger knows as live (for this base URL)."
    )
    # text, not a number: svc's own words for a bad value, not the option parser's
    interval: Annotated[str | None, Flag("--interval", "S"), CLI_ONLY] = Field(
        None,
        description="Seconds between polls of one task, 1-3600 (15-60 for real hosts; the "
        "loopback sandbox may be polled faster).",
    )
    notify: Annotated[bool | None, Flag("--notify/--no-notify"), CLI_ONLY] = Field(
        None,
        description="Tell the person when a task waits on them or ends: terminal bell/OSC and "
        "a desktop notification (default: the `notify` setting).",
    )
    exec_command: Annotated[str | None, Flag("--exec", "CMD"), CLI_ONLY] = Field(
        None,
        description="Run CMD for every observed change (via /bin/sh if needed); task JSON on "
        "stdin, SVC_TASK_ID and friends in the environment.",
    )
    exec_timeout: Annotated[float, Flag("--exec-timeout", "S"), CLI_ONLY] = Field(
        30.0, description="Seconds an --exec hook may run (default 30)."
    )


WAIT = Operation(
    "watch",
    WaitRequest,
    cli=Command("watch"),
    mcp=Tool(
        "wait_for_task",
        "Wait for a task",
        "Poll a task (free, at the interval the service allows: 15 s or more on a real host) "
        f"until it is final or asks something, or until timeout_seconds pass (at most "
        f"{WAIT_BUDGET_SECONDS} s a call, so no client times out: call again to keep waiting); "
        "reports progress. When the task asks for a secret (a 2FA code, a password), the person "
        "is asked for it directly by the MCP client and it is sent without you ever seeing it; "
        "then waiting goes on. Other asks (missing fields, a payment approval) are returned to "
        "you: answer with reply_to_task.",
        TaskShown,
        read_only=True,
    ),
    library=written("watch", "watch_many"),
)
