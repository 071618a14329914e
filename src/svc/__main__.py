"""Entry point of the `svc` executable.

The hottest invocations (`--version`, tab completion, `poll ID` in JSON mode) are answered by
`svc.cli.fastpath` without importing Typer; everything else runs the full app.
"""

from __future__ import annotations

import os
import signal
import sys


def let_a_person_interrupt() -> None:
    """Make Ctrl-C work whenever a person can press it (issue 22.5).

    A non-interactive shell starts a background job with SIGINT ignored, and Python then never
    installs its KeyboardInterrupt handler: a `svc watch` started that way and later driven on
    a terminal (a pty under test, a job brought to the foreground) ignored Ctrl-C until killed.
    When svc is the foreground job of its terminal, the person there decides: the handler is
    put back. Anywhere else an inherited SIG_IGN is respected (nohup-style runs keep it)."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        return
    for stream in (sys.stdin, sys.stderr):
        try:
            foreground = stream.isatty() and os.tcgetpgrp(stream.fileno()) == os.getpgrp()
        except (OSError, ValueError, AttributeError):
            continue
        if foreground:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            return


def main() -> None:
    let_a_person_interrupt()
    from svc.cli.fastpath import dispatch

    code = dispatch(sys.argv[1:])
    if code is None:
        from svc.cli.app import main as run

        code = run()
    sys.exit(code)


if __name__ == "__main__":
    main()
