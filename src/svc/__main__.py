"""Entry point of the `svc` executable.

`svc --version` and tab completion are answered without importing Typer; every command runs
through the Typer app (svc.cli.app).
"""

from __future__ import annotations

import gc
import os
import sys

from svc.ui.terminal import (
    RESENDS,
    SIGINT,
    caused_by_interrupt,
    error_line,
    interrupt_exit_code,
    interrupted,
    interrupted_line,
    let_a_person_interrupt,
    note_interrupt,
    open_closed_streams,
    settle_streams,
)


class Process:
    """What the console script's entry tells the rest of svc about this process."""

    owned = False  # True: svc's own process, which runs one command and ends


def main() -> None:
    open_closed_streams()
    let_a_person_interrupt()
    code: int | None = None
    try:
        code = _command()
    except KeyboardInterrupt:  # the command's Ctrl-C, raised again after its own boundary
        pass
    finally:  # whatever ends the command: a hung-up terminal must not make the exit 120
        RESENDS.over = True  # before any call, where a signal on its way would land
        settle_streams()
    if code is None:
        error_line(interrupted_line())
        code = interrupt_exit_code()
    sys.exit(code)


def _command() -> int:
    try:
        return _run()
    except Exception as error:  # only a Ctrl-C that CPython wrapped during an import
        if not caused_by_interrupt(error):
            raise
        error_line(interrupted_line())
        return interrupt_exit_code()


def process_main() -> None:
    """The `svc` console script: `main`, then the heap frozen for the interpreter's exit.

    At exit CPython runs one last cyclic collection over every object the command left (the
    modules of httpx, pydantic, Typer, rich...): about 35 ms of a 0.3 s paid submit, to free
    memory the process is about to give back whole. Frozen objects are skipped by it; reference
    counting still frees what it frees, `atexit` and `weakref.finalize` callbacks still run,
    and svc closes its files and ledgers itself. Only this process entry freezes: a caller of
    `main` in a longer-lived process (the in-process test runner) keeps its collections.
    An interrupt that leaves daemon threads running ends the process here, even under a host
    that would catch the SystemExit (`_end_beside_running_threads`).
    """
    Process.owned = True  # a long run may freeze what start-up built (svc.cli.heap)
    try:
        main()
    except SystemExit as ending:
        if interrupted():
            _end_beside_running_threads(ending.code)
        raise
    finally:
        gc.freeze()
        Process.owned = False  # a host that called this and goes on owns its process again


def script_main() -> None:
    """The `svc` console script: `process_main`, unless CPython's own start-up took a Ctrl-C
    and went on. Running a script, CPython checks whether argv[0] is an import path entry and
    prints a KeyboardInterrupt raised there, then runs the script anyway: `svc reply` opened its
    prompt as if nothing had been pressed. What it printed is left in `sys.last_value`
    (PyErr_Print), which nothing else sets before a console script's first line; a host that
    runs svc (`python -m svc`, runpy, a notebook) has its own last error there, so only this
    entry reads it."""
    if isinstance(getattr(sys, "last_value", None), KeyboardInterrupt):
        _end_as_interrupted()
    process_main()


def _end_as_interrupted() -> None:
    open_closed_streams()
    note_interrupt(SIGINT)
    error_line(interrupted_line())
    settle_streams()
    sys.exit(interrupt_exit_code())


def _end_beside_running_threads(code: object) -> None:
    """After an interrupt, end the process here while daemon threads still run (a poll or a
    paid line in flight, abandoned on purpose; its record is already written).

    The interpreter's own exit ends in C-level exit handlers, and OpenSSL's (OPENSSL_cleanup)
    frees libcrypto's locks while such a thread may be inside the library (building an SSL
    context, in a handshake): a loaded run saw an interrupted `svc watch` die by SIGSEGV
    after its last line. What that exit does and matters here is done first (the atexit
    callbacks, both streams flushed). A non-daemon thread left keeps the interpreter's exit,
    which waits for it."""
    import threading

    others = [t for t in threading.enumerate() if t is not threading.main_thread()]
    if not isinstance(code, int) or not others or not all(t.daemon for t in others):
        return
    import atexit

    atexit._run_exitfuncs()
    settle_streams()
    os._exit(code)


def _run() -> int:
    """The command: Typer's app, but for the two answers that need none of it (their imports
    are where a Ctrl-C may land). `--version` alone prints the version; `__complete` is the
    completion protocol, answered from the table `make docs` generates from the commands."""
    argv = sys.argv[1:]
    if argv == ["--version"]:
        from svc import __version__
        from svc.ui.plain import say

        return say(f"svc {__version__}\n")
    if argv[:1] == ["__complete"]:
        from svc.completion.complete import main as complete

        return complete(argv[1:])
    from svc.cli.app import main as run

    return run()


if __name__ == "__main__":
    process_main()
