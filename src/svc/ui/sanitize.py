"""Make server-provided text inert before it reaches a terminal.

Task text, results, questions, merchant names and error details come from the server and may
carry ANSI/OSC escapes, other control characters, bidi overrides or rich markup. On a terminal
they are shown as plain, bounded text; JSON output is never passed through here.
"""

from __future__ import annotations

import re

# C0 and C1 controls except tab and newline, DEL, and the bidi controls (Trojan Source).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_ESCAPE_SEQ = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[@-Z\\-_])")
DEFAULT_LIMIT = 2000


def clean(text: object, limit: int = DEFAULT_LIMIT, *, single_line: bool = False) -> str:
    """Strip escape sequences and control characters, then bound the length."""
    value = "" if text is None else str(text)
    value = _ESCAPE_SEQ.sub("", value)
    value = _UNSAFE.sub("\N{REPLACEMENT CHARACTER}", value)
    if single_line:
        value = " ".join(value.split())
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return value
