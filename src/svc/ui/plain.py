"""Plain text for the fast paths (`svc --version`, `svc --help`), which run without an
`Output`: one write to stdout, and the width Click would wrap help to. Part of the one door to
the terminal (tests/unit/test_one_door.py), with nothing but the standard library and
`svc.ui.terminal` imported: these paths cost one Python start (issue 34.2)."""

from __future__ import annotations

import os
import sys

from svc.ui.terminal import error_line, silence_stdout, write_out


def say(text: str) -> int:
    """`text` on stdout: 0; a reader gone (`svc --help | head -1`) is no error either; a stdout
    that cannot take it (closed, a full disk) is one line on stderr and 1, never a traceback."""
    try:
        if sys.stdout is None:  # started with stdout closed (`svc --version >&-`)
            raise OSError(9, "it is closed")
        write_out(text)
    except BrokenPipeError:
        silence_stdout()
        return 0
    except OSError as exc:
        if sys.stderr is not None:
            error_line(f"svc: cannot write to standard output: {exc.strerror or exc}")
        return 1
    return 0


def help_columns() -> int:
    """The columns Click wraps help to, read as `shutil.get_terminal_size` reads them (COLUMNS,
    else stdout's terminal, else 80) without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    try:
        lines = int(os.environ["LINES"])
    except (KeyError, ValueError):
        lines = 0
    if columns > 0 and lines > 0:
        return columns
    try:
        size = os.get_terminal_size(sys.__stdout__.fileno())  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        size = os.terminal_size((80, 24))
    return columns if columns > 0 else (size.columns or 80)
