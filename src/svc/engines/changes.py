"""What following a task yields: one `TaskChange` per thing that happened to it.

The watch engine produces these and presents none of them: `svc watch` draws them, runs its
`--exec` hooks and notifications on them, `svc mcp`'s wait_for_task summarises them, and a
Python program iterates over them (`Client.watch`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

ChangeKind = Literal["state", "event", "ask", "final", "gone"]


@dataclass(frozen=True)
class TaskChange:
    """One change of one task, with the task as the service last answered it.

    kind:
      state  the task is live (not final, not asking) and something in it moved: its state
             (`previous` is the one before) or only its events or details (`previous` is
             the same state; `moved` is False)
      event  a new entry in the task's events (`event` is it)
      ask    the task waits on the person (`task["state"] == "blocked_on_user"`)
      final  the task ended: completed, failed or cancelled
      gone   the service no longer knows the task (404 for an id taken from the ledger)

    Each poll that shows something new yields its new events first (oldest first), then
    exactly one `state`, `ask` or `final` change: where the task stands after that poll. A
    face that acts once per change of a task (a JSON line, a hook) acts on that one.
    """

    task_id: str
    kind: ChangeKind
    task: dict[str, Any]
    previous: str | None = None
    event: dict[str, Any] | None = None

    @property
    def state(self) -> str:
        return str(self.task.get("state", ""))

    @property
    def moved(self) -> bool:
        """Whether the task's state differs from the one before (always, at the first poll)."""
        return self.state != self.previous
