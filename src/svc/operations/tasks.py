"""`tasks`: the tasks submitted from this machine, from the ledger.

Its arguments and its declaration on each face; the faces drive it by their own code.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from svc.operations.declare import PERSON, Command, Operation, Tool, by_hand, written
from svc.operations.fields import CLI_ONLY, Flag, NotIn, Positional, Request
from svc.operations.shown import TasksShown


class TasksRequest(Request):
    """Which rows of the ledger, newest first. On the CLI `--limit 0` (or `--all`) is every
    row: an agent's `limit` is bounded, as its answer must fit a host's context."""

    limit: Annotated[
        int, Flag("--limit", "N", help="At most N rows, newest first (0: all).", short="-n")
    ] = Field(50, ge=1, le=500, description="Default 50.")
    every: Annotated[bool, Flag("--all"), CLI_ONLY] = Field(
        False, description="Every row (the same as --limit 0)."
    )
    state: Annotated[list[str] | None, Flag("--state", "STATE", short="-s"), CLI_ONLY] = Field(
        None,
        description="Only these states (repeat, or a comma list): pending, blocked_on_user, "
        "completed, failed, cancelled, gone.",
    )
    since: Annotated[str | None, Flag("--since", "WHEN"), CLI_ONLY] = Field(
        None,
        description="Only tasks created since: a duration (30m, 2h, 3d, 1w) or a date "
        "(2026-11-01).",
    )
    refresh: Annotated[
        bool,
        Flag("--refresh", help="Poll the live tasks for their state now (free calls).", short="-r"),
        NotIn(("mcp",)),
    ] = Field(False, description="Poll each listed task's state first.")
    runner: Annotated[str | None, Flag("--runner", "NAME"), CLI_ONLY] = Field(
        None, description="Only this runner's tasks (a shared ledger)."
    )


class ForgetRequest(Request):
    """Ledger rows named by id; a row that paid goes only when forced."""

    ids: Annotated[list[str], Positional("ID...")] = Field(description="Task ids or request ids.")
    force: Annotated[bool, Flag("--force")] = Field(
        False, description="Remove rows that paid too (each is named with what it paid)."
    )


class PruneRequest(Request):
    """Which kinds of rows that are not money go; a row that paid goes only when forced."""

    gone: Annotated[bool, Flag("--gone")] = Field(
        False, description="Tasks the service no longer knows (404)."
    )
    refused: Annotated[bool, Flag("--refused")] = Field(
        False, description="Submits refused before anything was paid."
    )
    force: Annotated[bool, Flag("--force")] = Field(
        False, description="Remove rows that paid too (each is named with what it paid)."
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
    by_hand("tasks forget", PERSON, PERSON, request=ForgetRequest),
    by_hand("tasks prune", PERSON, PERSON, request=PruneRequest),
)
