"""What a task waiting on the user asks, as data: kind, fields, what is asked, time left.

Used by `watch` (stop message, --json stop line, countdown, notifications) and by `--exec`
hooks (`SVC_TASK_ASK`); how to answer is each face's to word (the CLI's commands are in
commands/ask_commands.py). Server text (field names, merchant) is cleaned for the terminal;
the values a person types are never part of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from datetime import UTC, datetime
from typing import Any

from svc import numbers
from svc.api.models import TaskDetail
from svc.replies import is_secret, plain_ask_is_secret
from svc.sanitize import clean
from svc.words import usd


@dataclass(frozen=True)
class AskSummary:
    """What a waiting task asks, as data: each face words how to answer (the CLI's reply and
    watch commands are in commands/ask_commands.py)."""

    task_id: str
    kind: str  # none | plain | structured | payment
    keys: tuple[str, ...]  # the fields to answer, cleaned (a structured or payment ask's)
    expires_at: str | None
    seconds_left: int | None
    what: str  # one short line: what is asked (for a notification or the stop message)
    field: str | None = None  # a plain ask's one named field, cleaned
    sensitive: bool = False  # a plain ask's field is a secret
    approval_expired: bool = False  # a payment ask whose approval window ran out


def ask_kind(task: dict[str, Any]) -> str:
    if task.get("state") != "blocked_on_user":
        return "none"
    ask = task.get("info_request")
    if not isinstance(ask, dict):
        return "plain"
    if ask.get("payment_status") is not None or ask.get("amount_usd") is not None:
        return "payment"
    return "structured"


def summarize(task: dict[str, Any], now: float | None = None) -> AskSummary:
    kind = ask_kind(task)
    ask = task.get("info_request") if isinstance(task.get("info_request"), dict) else None
    expires = str(ask["expires_at"]) if ask and ask.get("expires_at") else None
    left = seconds_left(task, expires, now)
    base = AskSummary(str(task.get("id")), kind, (), expires, left, "")
    if kind == "plain":
        return _plain(base, plain_payload(task))
    if kind in ("structured", "payment"):
        return _structured(base, ask or {})
    return replace(base, what=f"is {clean(str(task.get('state')), 40)}")


def _plain(base: AskSummary, payload: dict[str, Any]) -> AskSummary:
    field = payload.get("field")
    if not isinstance(field, str) or not field:
        return replace(base, what="asks for an answer")
    name = clean(field, 64, single_line=True)
    sensitive = plain_ask_is_secret(payload)
    hidden = " (a secret)" if sensitive else ""
    return replace(
        base, keys=(name,), field=name, sensitive=sensitive, what=f"asks for {name}{hidden}"
    )


def plain_payload(task: dict[str, Any]) -> dict[str, Any]:
    events = task.get("events") if isinstance(task.get("events"), list) else []
    for event in reversed(events or []):
        if isinstance(event, dict) and event.get("type") in ("input_requested", "ask", "question"):
            payload = event.get("payload")
            return payload if isinstance(payload, dict) else {}
    return {}


def _structured(base: AskSummary, ask: dict[str, Any]) -> AskSummary:
    keys = [str(k) for k in ask.get("requested_fields") or [] if isinstance(k, str)]
    for question in ask.get("questions") or []:
        key = question.get("key") if isinstance(question, dict) else None
        if isinstance(key, str) and key not in keys:
            keys.append(key)
    names = tuple(clean(k, 64, single_line=True) for k in keys)
    if base.kind == "payment":
        amount = usd(ask.get("amount_usd"))
        merchant = clean(str(ask.get("merchant_name") or "the merchant"), 80, single_line=True)
        what = f"waits for the approval of {amount} to {merchant} (in the user's app)"
        expired = ask.get("payment_status") == "approval_expired"
        return replace(base, keys=names, what=what, approval_expired=expired)
    return replace(base, keys=names, what="asks for " + (", ".join(names) or "an answer"))


def seconds_left(
    task: dict[str, Any], expires_at: str | None, now: float | None = None
) -> int | None:
    """Whole seconds until `expires_at` on the server's clock, or None when none is given.

    The server's clock can run ahead of ours (the sandbox's does when advanced): the task's own
    newest timestamp is a lower bound of the server's now, so a late local clock cannot make an
    ask look longer-lived than it is.
    """
    end = numbers.instant(expires_at)
    if end is None:
        return None
    local = datetime.now(UTC).timestamp() if now is None else now
    server = max(local, numbers.instant(task.get("updated_at")) or local)
    return max(0, int(end - server))


def left_text(seconds: int | None) -> str:
    if seconds is None:
        return "no expiry given"
    if seconds <= 0:
        return "expired"
    minutes, secs = divmod(seconds, 60)
    return f"{minutes}m{secs:02d}s left" if minutes else f"{secs}s left"


@dataclass(frozen=True)
class Asked:
    """What a task asks of its user, read once from the task: the rules an answer is checked
    by and which of its parts are secrets, as plain data. The reply engine and an agent's
    draft decide on it without reading the task again; it holds no value anyone typed."""

    task_id: str
    state: str
    plain: bool  # a plain ask (its events say it), not a structured `info_request`
    field: str | None = None  # the plain ask's field, as the service names it
    field_secret: bool = False  # that field wants a secret
    keys: tuple[str, ...] = ()  # the structured ask's keys, in its order
    secret_keys: tuple[str, ...] = ()  # those a name marks secret (a structured ask has no flag)
    # A question's choices, by its key (open questions are not in it).
    options: Mapping[str, tuple[str, ...]] = dataclass_field(default_factory=dict)
    payment: bool = False  # the structured ask is about a payment
    words: object = None  # what the service says it asks (a plain ask's message, a note)
    # The names an answer gives (read_ask's `named`) that the rule marks secret.
    named_secrets: frozenset[str] = frozenset()

    @property
    def waiting(self) -> bool:
        return self.state == "blocked_on_user"

    @property
    def secret_field(self) -> str | None:
        """The plain ask's field when it wants a secret."""
        return self.field if self.field_secret else None


def read_ask(task: TaskDetail, named: Iterable[str] = ()) -> Asked:
    """The task's ask as `Asked` (a task not waiting asks nothing: no field, no keys), with
    the `named` fields of an answer classified by the same secret rule, once."""
    asked = _read(task)
    return replace(asked, named_secrets=frozenset(name for name in named if is_secret(name)))


def _read(task: TaskDetail) -> Asked:
    ask = task.info_request
    if ask is not None:
        keys = tuple(ask.required_keys())
        return Asked(
            task.id,
            task.state,
            plain=False,
            keys=keys,
            secret_keys=tuple(key for key in keys if is_secret(key)),
            options=ask.choices(),
            payment=ask.is_payment_ask,
            words=ask.note,
        )
    plain = task.plain_ask() or {}
    named = plain.get("field")
    name = named if isinstance(named, str) and named else None
    secret = name is not None and plain_ask_is_secret(plain)
    words = plain.get("message")
    return Asked(task.id, task.state, plain=True, field=name, field_secret=secret, words=words)


def secret_field(task: TaskDetail) -> str | None:
    """The field of a plain ask that wants a secret, else None."""
    return read_ask(task).secret_field


def secret_keys(task: TaskDetail) -> list[str]:
    """The keys of a structured ask that want a secret (a PIN, a password), in the ask's order.
    A structured ask has no per-key `sensitive` flag, so the name decides."""
    return list(read_ask(task).secret_keys)
