"""Make outside text inert before it reaches a terminal.

Task text, results, questions, merchant names, headers, ledger rows and error details come from
outside and may carry ANSI/OSC escapes, other control characters, bidi overrides or rich markup.
On a terminal they are shown as plain, bounded text; JSON output is never passed through here.

Two passes: whole escape sequences are removed first (so the payload of a window-title or
clipboard sequence does not clutter the line), then every remaining control character,
including a lone ESC or C1 byte the first pass did not recognise, and every invisible format
character (zero-width space, word joiner, bidi override, BOM: Unicode category Cf) becomes
U+FFFD. The second pass alone is what makes the text safe; the first only makes it readable.
"""

from __future__ import annotations

import re

# Format characters (Unicode category Cf, as of Unicode 15): they draw nothing, so
# `shop\u200b.example` looks like `shop.example`; the bidi controls among them reorder what
# follows (Trojan Source). tests/unit/test_sanitize_format.py checks this against unicodedata.
FORMAT_CHARACTERS = (
    "\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001\U000e0020-\U000e007f"
)
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"
# The joiners (ZWNJ, ZWJ) are how Persian, Indic scripts and emoji sequences are written: one
# between two characters of such a script stays; next to ASCII, a space or alone it is a spoof.
_SCRIPT = f"[^\\x00-\\x7f\\s{_CONTROLS}{FORMAT_CHARACTERS}]"
_JOINED = f"(?<={_SCRIPT})[\u200c\u200d](?={_SCRIPT})"
# C0 and C1 controls except tab and newline, DEL, every format character but a joined joiner,
# and the Unicode line/paragraph separators (a terminal may break the line on them).
_UNSAFE = re.compile(f"(?!{_JOINED})[{_CONTROLS}{FORMAT_CHARACTERS}\u2028\u2029]")
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
