"""The sandbox's internal task record and its rendering as the spec's task objects."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

FINAL_STATES = frozenset({"completed", "failed", "cancelled"})


def iso(moment: datetime) -> str:
    """RFC 3339 in UTC with a `Z`, the way the service writes date-times."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def jsonable(value: Any) -> Any:
    """Copy of `value` with every datetime rendered as RFC 3339."""
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, dict):
        return {key: jsonable(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(item) for item in value]
    return value


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


@dataclass
class Task:
    """One task as the sandbox keeps it. Datetimes are sandbox-clock times."""

    id: str
    owner: str  # payer address (the agent), as signed
    request_id: str | None
    goal: str
    scenario: str
    state: str
    created_at: datetime
    updated_at: datetime
    flow: str | None = "browser_task"
    completed_at: datetime | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    reason: str | None = None
    info_request: dict[str, Any] | None = None  # structured ask (datetimes inside)
    plain_ask: dict[str, Any] | None = None  # {field, message, sensitive} of a plain ask
    events: list[dict[str, Any]] = field(default_factory=list)
    next_step: str | None = None
    next_step_at: datetime | None = None
    approved_at: datetime | None = None  # when the user approved in their app
    answers: dict[str, str] = field(default_factory=dict)  # non-sensitive answers only

    @property
    def is_final(self) -> bool:
        return self.state in FINAL_STATES

    def owned_by(self, address: str) -> bool:
        return self.owner.lower() == address.lower()

    def to_wire(self, *, with_events: bool = False) -> dict[str, Any]:
        """The task object (submit, reply) or the task detail object (poll)."""
        body: dict[str, Any] = {
            "id": self.id,
            "state": self.state,
            "goal": self.goal,
            "flow": self.flow,
            "max_budget_usd": None,
            "webhook_url": None,
            "result": self.result,
            "error": self.error,
            "created_at": self.created_at,
            "updated_at": self.updated_at,
            "completed_at": self.completed_at,
        }
        # Optional members are omitted when unset, as the spec allows.
        if self.reason is not None:
            body["reason"] = self.reason
        if self.info_request is not None:
            body["info_request"] = self.info_request
        if with_events:
            body["events"] = self.events
        return jsonable(body)  # type: ignore[no-any-return]
