"""How a watch ends, in the CLI's words: 0, a task that ended badly (exit 3), or tasks left
waiting on the person with prompting off (exit 6, with the reply command and the time left,
and under --json one stop line per task)."""

from __future__ import annotations

from typing import Any

from svc.commands.ask_commands import next_step, reply_command, stop_line
from svc.engines.asks import AskSummary, left_text, summarize
from svc.errors import HumanNeeded, TaskFailed
from svc.ui.output import Output

FEW_ASKS = 3  # above this many waiting tasks, the stop message counts them


def outcome(
    output: Output, finals: dict[str, dict[str, Any]], blocked: dict[str, dict[str, Any]]
) -> int:
    """0 when every task completed; else the contract's error for the first that did not."""
    if blocked:
        raise stopped_at_asks(output, blocked)
    failed = {tid: t for tid, t in finals.items() if t.get("state") != "completed"}
    if failed:
        tid, task = next(iter(failed.items()))
        why = task.get("error") or task.get("state")
        reason = f": {task['reason']}" if task.get("reason") else ""
        more = f" (and {len(failed) - 1} more)" if len(failed) > 1 else ""
        raise TaskFailed(
            f"task {tid} ended {task.get('state')} ({why}){reason}{more}", json_report=False
        )
    return 0


def stopped_at_asks(output: Output, blocked: dict[str, dict[str, Any]]) -> HumanNeeded:
    """Exit 6 that says how to answer: the reply command and the time left (and, with --json,
    one stop line per task carrying the same)."""

    summaries = {tid: summarize(task) for tid, task in blocked.items()}
    if output.json_mode:
        for tid, summary in summaries.items():
            output.emit_line({"id": tid, "state": "blocked_on_user", **stop_line(summary)})
    if len(summaries) > FEW_ASKS:
        return _many_stopped(summaries)
    ids = " ".join(blocked)
    asks = [f"{s.what}, {left_text(s.seconds_left)}" for s in summaries.values()]
    if len(summaries) == 1:
        message = f"task {ids} waits on the user and prompting is off: it {asks[0]}"
    else:
        each = "; ".join(f"{tid} {ask}" for tid, ask in zip(summaries, asks, strict=True))
        message = f"{len(summaries)} tasks wait on the user and prompting is off: {each}"
    steps = [next_step(s) for s in summaries.values()]
    then = (
        "" if all(s.kind == "payment" for s in summaries.values()) else f", then `svc watch {ids}`"
    )
    return HumanNeeded(message, hint="; ".join(steps) + then, json_report=False)


def _many_stopped(summaries: dict[str, AskSummary]) -> HumanNeeded:
    """A count, the first few answers and where the rest are listed: 60 ids on one line were
    cut with `…` in the middle of an id."""
    first = list(summaries.values())[:FEW_ASKS]
    soonest = min(
        (s.seconds_left for s in summaries.values() if s.seconds_left is not None), default=None
    )
    message = f"{len(summaries)} tasks wait on the user and prompting is off"
    if soonest is not None and soonest <= 0:
        message += "; an ask has expired"
    elif soonest is not None:
        message += f"; the first ask expires in {left_text(soonest).removesuffix(' left')}"
    rest = len(summaries) - len(first)
    listed = "`svc tasks --state blocked_on_user` lists them"
    asked = "on a terminal `svc watch --all` asks each in turn"
    hint = "; ".join([f"`{reply_command(s)}`" for s in first] + [f"and {rest} more: {listed}"])
    hint += f"; {asked}"
    return HumanNeeded(message, hint=hint, json_report=False)
