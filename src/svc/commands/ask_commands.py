"""The CLI's words for answering an ask (engines/asks.AskSummary): the reply and watch
commands a person or a script runs, quoted for the shell (server text in them: field names,
the task id).

The reply command is safe to follow as is: never one that spends or cancels. For a payment
ask that is `svc watch ID` once the person approved in their app (or, when the approval
expired, `--approve-payment`, which asks the person again and spends nothing itself); the
decline is offered beside it, never as the default.
"""

from __future__ import annotations

import shlex
from typing import Any

from svc.engines.asks import AskSummary


def reply_command(summary: AskSummary) -> str | None:
    tid = shlex.quote(summary.task_id)
    if summary.kind == "plain":
        if summary.field is None:
            return f"svc reply {tid} --message TEXT"
        sensitive = " --sensitive" if summary.sensitive else ""
        return f"svc reply {tid} --field {shlex.quote(summary.field)}{sensitive} --value-file -"
    if summary.kind == "structured":
        sets = "".join(f" --set {shlex.quote(key + '=')}VALUE" for key in summary.keys)
        return f"svc reply {tid}{sets}"
    if summary.kind == "payment":
        return (
            f"svc reply {tid} --approve-payment" if summary.approval_expired else f"svc watch {tid}"
        )
    return None


def decline_command(summary: AskSummary) -> str | None:
    if summary.kind != "payment":
        return None
    return f"svc reply {shlex.quote(summary.task_id)} --decline-payment"


def stop_line(summary: AskSummary) -> dict[str, Any]:
    """The ask's members of watch's --json stop line (pinned by the hooks' tests)."""
    return {
        "ask": summary.kind,
        "reply_command": reply_command(summary),
        "decline_command": decline_command(summary),
        "reply_keys": list(summary.keys),
        "expires_at": summary.expires_at,
        "seconds_left": summary.seconds_left,
    }


def next_step(summary: AskSummary) -> str:
    """What to do, for a person or a script reading the hint."""
    command = reply_command(summary)
    if summary.kind == "payment" and not summary.approval_expired:
        return (
            f"approve the payment in the user's payment app, then `{command}` "
            f"(or decline it: `{decline_command(summary)}`)"
        )
    return f"answer with `{command}`"
