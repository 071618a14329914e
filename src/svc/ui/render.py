"""How a task, its events and its ask look on a terminal. Server text always goes through
`clean` and is rendered as rich `Text` (never markup)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from svc import numbers
from svc.sanitize import clean
from svc.words import ago, usd

if TYPE_CHECKING:
    from rich.console import RenderableType

STATE_STYLES = {
    "pending": "yellow",
    "blocked_on_user": "bold magenta",
    "completed": "bold green",
    "failed": "bold red",
    "cancelled": "red",
    "gone": "dim",  # the ledger's own: the service no longer knows the task
}


def _list(value: Any) -> list[Any]:
    """A list member of server JSON, or nothing: a hostile or newer server may send any shape."""
    return value if isinstance(value, list) else []


def state_text(state: str) -> Any:
    from rich.text import Text

    return Text(clean(state, 40, single_line=True), style=STATE_STYLES.get(state, "cyan"))


def _kv_table() -> Any:
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column(overflow="fold")
    return table


def task_panel(task: dict[str, Any]) -> RenderableType:
    from rich.panel import Panel
    from rich.text import Text

    table = _kv_table()
    table.add_row("id", Text(clean(task.get("id"), 200, single_line=True)))
    table.add_row("state", state_text(str(task.get("state"))))
    table.add_row("goal", Text(clean(task.get("goal"), 600)))
    for key in ("flow", "error", "reason", "created_at", "updated_at", "completed_at"):
        if task.get(key) is not None:
            table.add_row(key, Text(clean(task[key], 600)))
    result = task.get("result")
    if isinstance(result, dict):
        if result.get("summary") is not None:
            table.add_row("summary", Text(clean(result["summary"], 2000)))
        if result.get("output") is not None:
            table.add_row("output", Text(clean(_compact(result["output"]), 2000)))
    ask = task.get("info_request")
    if isinstance(ask, dict):
        table.add_row("ask", ask_text(ask))
    elif task.get("state") == "blocked_on_user":
        plain = latest_plain_ask(task)
        table.add_row("ask", Text(clean(_plain_ask_line(plain), 600)))
    return Panel(table, title="task", title_align="left", expand=False)


def _compact(value: Any) -> str:
    import json

    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)


def latest_plain_ask(task: dict[str, Any]) -> dict[str, Any]:
    for event in reversed(_list(task.get("events"))):
        if isinstance(event, dict) and event.get("type") in ("input_requested", "ask", "question"):
            payload = event.get("payload")
            return payload if isinstance(payload, dict) else {}
    return {}


def _plain_ask_line(payload: dict[str, Any]) -> str:
    message = payload.get("message") or payload.get("question") or "the task waits for an answer"
    field = payload.get("field")
    return f"{message} (field: {field})" if field else str(message)


def ask_text(ask: dict[str, Any]) -> Any:
    from rich.text import Text

    lines: list[str] = []
    if ask.get("amount_usd") is not None or ask.get("merchant_name"):
        lines.append(
            f"payment of {usd(ask.get('amount_usd', '?'))} to {ask.get('merchant_name', '?')}"
            f" — status {ask.get('payment_status', 'unknown')}"
        )
        if ask.get("payment_error"):
            lines.append(f"payment error: {ask['payment_error']}")
    for name in _list(ask.get("requested_fields")):
        lines.append(f"field: {name}")
    for question in _list(ask.get("questions")):
        if isinstance(question, dict):
            text = question.get("question") or question.get("text") or question.get("label") or ""
            lines.append(f"question {question.get('key')}: {text}")
    if ask.get("note"):
        lines.append(f"note: {ask['note']}")
    if ask.get("expires_at"):
        lines.append(f"expires at {ask['expires_at']}")
    return Text(clean("\n".join(lines), 3000))


def server_now(task: dict[str, Any]) -> float:
    """Now on the server's clock, as well as we know it: ours, or the task's newest stamp when
    that is ahead (a sandbox clock can be), so an event is never `in 3 min`."""
    import time

    return max(time.time(), numbers.instant(task.get("updated_at")) or 0.0)


def event_line(event: dict[str, Any], now: float, task_id: str | None = None) -> Any:
    """`  3 min ago  state_changed pending → blocked_on_user  message`: the time as `svc
    tasks` shows it (JSON keeps the stamp), the task id only when several tasks share the
    screen (it was repeated on every line of one task's events)."""
    from rich.text import Text

    stamp = event.get("created_at", "")
    then = numbers.instant(stamp)
    when = ago(then, now) if then is not None else clean(stamp, 40, single_line=True)
    text = Text()
    text.append(f"{when:>12}  ", style="dim")
    if task_id is not None:
        text.append(clean(task_id, 60, single_line=True) + " ", style="cyan")
    text.append(clean(event.get("type", "event"), 40, single_line=True))
    if event.get("from_state") or event.get("to_state"):
        text.append(" ")
        text.append(clean(event.get("from_state") or "·", 30, single_line=True), style="dim")
        text.append(" → ")
        text.append_text(state_text(str(event.get("to_state") or "·")))
    payload = event.get("payload")
    if isinstance(payload, dict) and payload.get("message"):
        text.append("  " + clean(payload["message"], 200, single_line=True), style="italic")
    return text
