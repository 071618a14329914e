"""Lines of ours fitted to the terminal's width at word boundaries.

A terminal wraps a long line at its last column, whatever is there: a request id, a URL or a
word came out in two pieces (`(i` / `n the user's app)`). Text for a person on a terminal is
wrapped here instead, between words: a word (an id, a URL, a path) is never split, and a
command (in backticks, or from `svc ` to the end of its clause) stays on one line when it fits
on one. Lines that fit are left exactly as they are; nothing is wrapped for a pipe or a file.

Only built-in modules (`re` is imported at start-up anyway): `terminal.error_line` uses it on
the way out of any failure.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False  # typing itself costs ~10 ms on `svc --version`

if TYPE_CHECKING:
    from typing import TextIO

CLAUSE_ENDS = (";", ",", ")", ":")
UNITS = frozenset({"USD", "ms", "s", "min", "h", "days"})  # `1.50 USD`, `38 ms`: one unit
MIN_WIDTH = 20  # narrower than this, wrapping helps nobody: the terminal does it


def columns(stream: TextIO) -> int | None:
    """The width of the terminal `stream` writes to (COLUMNS first, as rich reads it), or
    None when it is not a terminal."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return 80


def fit(text: str, width: int | None, indent: str = "  ") -> str:
    """`text` with every line longer than `width` wrapped between words; continuation lines
    start with `indent`. None or a tiny width: unchanged."""
    if width is None or width < MIN_WIDTH:
        return text
    return "\n".join(_fit_line(line, width, indent) for line in text.split("\n"))


def _fit_line(line: str, width: int, indent: str) -> str:
    if len(line) <= width:
        return line
    pairs = re.findall(r"(\s*)(\S+)", line)  # (the space before, a word): spacing is kept
    lines: list[str] = []
    current = ""
    for space, unit in _units(pairs, width - len(indent)):
        if current.strip() and len(current) + len(space) + len(unit) > width:
            lines.append(current)
            # a word too long for an indented line starts at the margin: still whole
            current = unit if len(indent) + len(unit) > width else indent + unit
        else:
            current += space + unit
    lines.append(current)
    return "\n".join(lines)


def _units(pairs: list[tuple[str, str]], room: int) -> list[tuple[str, str]]:
    """Words, with each command (and amount) joined into one unit when it fits in `room`."""
    words = [word for _, word in pairs]
    units: list[tuple[str, str]] = []
    i = 0
    while i < len(pairs):
        end = _command_end(words, i)
        span = pairs[i][1] + "".join(space + word for space, word in pairs[i + 1 : end])
        if end - i > 1 and len(span) <= room:
            units.append((pairs[i][0], span))
        else:
            units.extend(pairs[i:end])
        i = end
    return units


def _command_end(words: list[str], start: int) -> int:
    """The index after the command that starts at `start`, or start + 1 for a plain word."""
    word = words[start]
    if word.startswith("`") and "`" not in word[1:]:
        for j in range(start + 1, len(words)):
            if "`" in words[j]:
                return j + 1
        return start + 1
    if start + 1 < len(words) and words[start + 1].rstrip(";,.)") in UNITS:
        return start + 2  # an amount or a duration on one line
    if word.strip("`(") == "svc" and start + 1 < len(words):
        for j in range(start + 1, len(words)):
            if words[j].endswith(CLAUSE_ENDS):
                return j + 1
        return len(words)
    return start + 1
