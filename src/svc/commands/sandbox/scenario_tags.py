"""The sandbox's task-tag cheat-sheet (and how to make it answer any of the spec's error
codes), shared by `svc sandbox tags` and `serve --help`.

Plain data (no sandbox import), so `svc sandbox tags` works, and stays fast, even where the
sandbox extra is not installed. Keep in step with svc_sandbox.scenarios, payments.paid and routes.advisor.
"""

from __future__ import annotations

# (tag, what it does), in the order a person tries them.
TASK_TAGS: tuple[tuple[str, str], ...] = (
    ("#complete", "finishes in ~20 s (the default)"),
    ("#slow", "takes ~10 minutes"),
    ("#fail", "fails; its reason says why"),
    ("#cancel", "is cancelled by the service"),
    ("#2fa", "asks for a 6-digit code (a secret field): svc reply ID"),
    ("#questions", "asks for address, phone and window/aisle: svc reply ID"),
    ("#questions-secret", "asks for an address and a card PIN (a secret key): svc reply ID"),
    ("#ask-expire", "asks questions that expire after 60 s"),
    ("#approval", "asks to approve 42.50 USD: svc sandbox approve ID"),
    ("#decline", "asks to approve a payment, for declining it"),
    ("#approval-expire", "asks to approve a payment that expires unanswered"),
    ("#hostile", "every server string carries terminal escapes and markup (with any tag)"),
    ("#fail-delivery", "paid by card or MPP: the delivery fails and the payment is refunded"),
    ("#advisor-down", "quote: the advisor is down (use the wallet-free guide)"),
)
QUOTE_TAGS = "#ready #needs-input #blocked #unknown #unsupported #unavailable #quoted"

# The spec's error codes on demand (docs/sandbox-wire.md): (which codes, admin path, a body).
CODE_FAULTS: tuple[tuple[str, str, str], ...] = (
    (
        "payment codes, on the next paid submit",
        "/_sandbox/payment-faults",
        '{"faults": [{"code": "payment_unknown"}]}',
    ),
    (
        "access and identity codes, on the next request under path",
        "/_sandbox/faults",
        '{"faults": [{"kind": "code", "code": "plan_not_found", "path": "/svc/tasks"}]}',
    ),
)


def cheat_sheet() -> str:
    """The tags, one per line, for people."""
    width = max(len(tag) for tag, _ in TASK_TAGS)
    lines = [f"  {tag.ljust(width)}  {what}" for tag, what in TASK_TAGS]
    lines.append(f"  quote status: {QUOTE_TAGS}")
    lines.append("  spec error codes, by an admin request:")
    lines += [f"    {what}: POST {path} {body}" for what, path, body in CODE_FAULTS]
    return "\n".join(lines)


def tag_list() -> str:
    """The task tags on one line, for help text."""
    return ", ".join(tag for tag, _ in TASK_TAGS)
