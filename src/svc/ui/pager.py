"""A pager for long terminal output: `$SVC_PAGER`, else `$PAGER`, else
`less -FRX`; never into a pipe, and not with `--no-pager` or an empty `SVC_PAGER`/`PAGER`.

What is paged was drawn by `Output` first, so it is already cleaned: the only escape sequences
in it are rich's own colours, which `less -R` shows as colours.
"""

from __future__ import annotations

import os
from typing import TextIO

from svc.ui import terminal

DEFAULT_PAGER = "less -FRX"  # quit if one screen, keep colours, leave the text on screen


def pager_command(no_pager: bool) -> str | None:
    """The pager to use, or None for none."""
    if no_pager:
        return None
    for name in ("SVC_PAGER", "PAGER"):
        if name in os.environ:
            value = os.environ[name].strip()
            return None if value in ("", "cat") else value
    return DEFAULT_PAGER


def page(text: str, stream: TextIO, command: str) -> None:
    """`text` through the pager when it is taller than the terminal, else written as is."""
    if text.count("\n") < _rows(stream) - 1:
        terminal.write(stream, text)
        return
    import shlex
    import subprocess

    try:
        argv = shlex.split(command)
        stream.flush()
        subprocess.run(argv, input=text.encode("utf-8", "replace"), check=False)
    except (OSError, ValueError):  # no such pager, or an unquotable command: no paging
        terminal.write(stream, text)


def _rows(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).lines
    except (OSError, ValueError, AttributeError):
        return 24
