"""Make outside text inert before it reaches a terminal.

Task text, results, questions, merchant names, headers, ledger rows and error details come from
outside and may carry ANSI/OSC escapes, other control characters, bidi overrides or rich markup.
On a terminal they are shown as plain, bounded text; JSON output is never passed through here.

Two passes: whole escape sequences are removed first (so the payload of a window-title or
clipboard sequence does not clutter the line), then every remaining control character,
including a lone ESC or C1 byte the first pass did not recognise, becomes U+FFFD. The second
pass alone is what makes the text safe; the first only makes it readable.
"""

from __future__ import annotations

import re

# C0 and C1 controls except tab and newline, DEL, the bidi controls (Trojan Source) and the
# Unicode line/paragraph separators (a terminal may break the line on them).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)
# String sequences (OSC, DCS, SOS, PM, APC) in 7-bit (ESC ] / P / X / ^ / _) and 8-bit
# (\x9d \x90 \x98 \x9e \x9f) form, ended by BEL, ESC \ or ST (\x9c), or unterminated to the end.
_STRING_SEQ = r"(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
# CSI in both forms (ESC [ and \x9b), with its parameter and intermediate bytes.
_CSI_SEQ = r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
# Other escape sequences: ESC, intermediates (e.g. the `(` of a charset switch), a final byte.
_OTHER_SEQ = r"\x1b[ -/]*[0-~]?"
_ESCAPE_SEQ = re.compile(f"{_STRING_SEQ}|{_CSI_SEQ}|{_OTHER_SEQ}")
DEFAULT_LIMIT = 2000


def clean(text: object, limit: int = DEFAULT_LIMIT, *, single_line: bool = False) -> str:
    """Strip escape sequences and control characters, then bound the length."""
    value = "" if text is None else str(text)
    if len(value) > 4 * limit + 4096:
        value = value[: 4 * limit + 4096]  # bound the work on huge input; cut again below
    value = _ESCAPE_SEQ.sub("", value)
    value = _UNSAFE.sub("\N{REPLACEMENT CHARACTER}", value)
    if single_line:
        value = " ".join(value.split())
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return value
