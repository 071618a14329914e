"""What a task waiting on the user asks, told in our own words: kind, reply command, time left.

Used by `watch` (stop message, --json stop line, countdown, notifications) and by `--exec`
hooks (`SVC_TASK_ASK`). Server text (field names, merchant) is quoted for the shell and
cleaned for the terminal; the values a person types are never part of it.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from svc import numbers
from svc.sanitize import clean
from svc.words import usd

# A key whose name reads like a secret (sms_code, password, card_pin, ...) is one, whatever the
# ask says: the terminal form hides it and marks the reply sensitive, and svc mcp asks the
# person for it instead of taking it from the model.
_SECRET_NAME = re.compile(
    r"(^|[_\-\s])(otp|totp|2fa|mfa|pin|cvv|cvc|password|passwd|passcode|passphrase|secret|token)"
    r"($|[_\-\s])|(sms|verification|auth|security|login|one[_\-]?time|access)[_\-\s]?code",
    re.IGNORECASE,
)


def looks_secret(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


@dataclass(frozen=True)
class AskSummary:
    kind: str  # none | plain | structured | payment
    # The command that moves the task on, safe to follow as is: never one that spends or
    # cancels. For a payment ask that is `svc watch ID` once the person approved in their app.
    reply_command: str | None
    keys: tuple[str, ...]
    expires_at: str | None
    seconds_left: int | None
    what: str  # one short line: what is asked (for a notification or the stop message)
    decline_command: str | None = None  # a payment ask's alternative, never the default

    def as_json(self) -> dict[str, Any]:
        return {
            "ask": self.kind,
            "reply_command": self.reply_command,
            "decline_command": self.decline_command,
            "reply_keys": list(self.keys),
            "expires_at": self.expires_at,
            "seconds_left": self.seconds_left,
        }

    def next_step(self) -> str:
        """What to do, for a person or a script reading the hint."""
        if self.kind == "payment" and self.reply_command and " watch " in self.reply_command:
            return (
                f"approve the payment in the user's payment app, then `{self.reply_command}` "
                f"(or decline it: `{self.decline_command}`)"
            )
        return f"answer with `{self.reply_command}`"


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
    tid = shlex.quote(str(task.get("id")))
    decline = None
    if kind == "plain":
        command, keys, what = _plain(task, tid)
    elif kind in ("structured", "payment"):
        command, keys, what = _structured(ask or {}, tid, kind)
        if kind == "payment":
            decline = f"svc reply {tid} --decline-payment"
            expired = (ask or {}).get("payment_status") == "approval_expired"
            # Re-sending an expired approval asks the person again; it spends nothing itself.
            command = f"svc reply {tid} --approve-payment" if expired else f"svc watch {tid}"
    else:
        command, keys, what = None, (), f"is {clean(str(task.get('state')), 40)}"
    return AskSummary(kind, command, keys, expires, left, what, decline)


def _plain(task: dict[str, Any], tid: str) -> tuple[str, tuple[str, ...], str]:
    payload = plain_payload(task)
    field = payload.get("field")
    if not isinstance(field, str) or not field:
        return f"svc reply {tid} --message TEXT", (), "asks for an answer"
    name = clean(field, 64, single_line=True)
    sensitive = " --sensitive" if payload.get("sensitive") else ""
    command = f"svc reply {tid} --field {shlex.quote(name)}{sensitive} --value-file -"
    hidden = " (a secret)" if payload.get("sensitive") else ""
    return command, (name,), f"asks for {name}{hidden}"


def plain_payload(task: dict[str, Any]) -> dict[str, Any]:
    events = task.get("events") if isinstance(task.get("events"), list) else []
    for event in reversed(events or []):
        if isinstance(event, dict) and event.get("type") in ("input_requested", "ask", "question"):
            payload = event.get("payload")
            return payload if isinstance(payload, dict) else {}
    return {}


def _structured(ask: dict[str, Any], tid: str, kind: str) -> tuple[str, tuple[str, ...], str]:
    keys = [str(k) for k in ask.get("requested_fields") or [] if isinstance(k, str)]
    for question in ask.get("questions") or []:
        key = question.get("key") if isinstance(question, dict) else None
        if isinstance(key, str) and key not in keys:
            keys.append(key)
    names = tuple(clean(k, 64, single_line=True) for k in keys)
    sets = "".join(f" --set {shlex.quote(k + '=')}VALUE" for k in names)
    if kind == "payment":
        amount = usd(ask.get("amount_usd"))
        merchant = clean(str(ask.get("merchant_name") or "the merchant"), 80, single_line=True)
        what = f"waits for the approval of {amount} to {merchant} (in the user's app)"
        return f"svc watch {tid}", names, what
    what = "asks for " + (", ".join(names) or "an answer")
    return f"svc reply {tid}{sets}", names, what


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
