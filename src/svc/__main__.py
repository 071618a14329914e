"""Entry point of the `svc` executable.

`svc --version` and tab completion are answered without importing Typer; every command runs
through the Typer app (svc.cli.app).
"""

from __future__ import annotations

import gc
import sys

from svc.ui.terminal import (
    caused_by_interrupt,
    error_line,
    interrupt_exit_code,
    interrupted_line,
    let_a_person_interrupt,
    open_closed_streams,
    settle_streams,
)


class Process:
    """What the console script's entry tells the rest of svc about this process."""

    owned = False  # True: svc's own process, which runs one command and ends


def main() -> None:
    open_closed_streams()
    let_a_person_interrupt()
    try:
        code = _run()
    except Exception as error:  # only a Ctrl-C that CPython wrapped during an import
        if not caused_by_interrupt(error):
            raise
        error_line(interrupted_line())
        code = interrupt_exit_code()
    finally:  # whatever ends the command: a hung-up terminal must not make the exit 120
        settle_streams()
    sys.exit(code)


def process_main() -> None:
    """The `svc` console script: `main`, then the heap frozen for the interpreter's exit.

    At exit CPython runs one last cyclic collection over every object the command left (the
    modules of httpx, pydantic, Typer, rich...): about 35 ms of a 0.3 s paid submit, to free
    memory the process is about to give back whole. Frozen objects are skipped by it; reference
    counting still frees what it frees, `atexit` and `weakref.finalize` callbacks still run,
    and svc closes its files and ledgers itself. Only this process entry freezes: a caller of
    `main` in a longer-lived process (the in-process test runner) keeps its collections.
    """
    Process.owned = True  # a long run may freeze what start-up built (svc.cli.heap)
    try:
        main()
    finally:
        gc.freeze()
        Process.owned = False  # a host that called this and goes on owns its process again


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
