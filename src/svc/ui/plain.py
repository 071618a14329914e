"""Plain text for `svc --version`, which runs without an `Output`: one write to stdout. Part
of the one door to the terminal (tests/unit/test_one_door.py), with nothing but the standard
library and `svc.ui.terminal` imported: it costs one Python start."""

from __future__ import annotations

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
