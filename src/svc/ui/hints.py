"""Next-step hints for people: after a command, the command they most likely want next.

gh-style: one dim line on stderr, only for a person (stdout and stderr on a terminal, not
--json), so scripts and pipes never see it. The task id is ours to print only if it is a
valid id (checked with svc.api.ids), so server text can never turn into a suggested command.
"""

from __future__ import annotations

from typing import Any

from svc.api.ids import is_id
from svc.ui.output import Output

FINAL_STATES = ("completed", "failed", "cancelled")


def next_step(task: dict[str, Any]) -> str | None:
    """The command to run next for a task as the service returned it, or None."""

    task_id, state = task.get("id"), task.get("state")
    if not isinstance(task_id, str) or not is_id(task_id) or state in FINAL_STATES:
        return None
    ask = task.get("info_request")
    if isinstance(ask, dict) and ask.get("payment_status") == "pending_approval":
        return f"svc reply {task_id} --approve-payment (or --decline-payment)"
    if state == "blocked_on_user" or isinstance(ask, dict):
        return f"svc reply {task_id}"
    return f"svc watch {task_id}"


def next_steps(out: Output, task: dict[str, Any]) -> None:
    """Print `next: COMMAND` for a person; nothing for scripts or for a final task."""
    if out.json_mode or not out.stderr_tty:
        return
    step = next_step(task)
    if step is not None:
        out.note("next: {step}", step=step)
