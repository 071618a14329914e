"""The cyclic collector in svc's own process: what start-up built is frozen before a long run.

A batch of 1000 paid lines allocates enough to run the collector's older generations several
times, and each of those passes walked every object the imports made (the modules of httpx,
pydantic, Typer ...), which live as long as the process anyway: frozen, they are skipped (a
batch's client CPU 0.97x, lower in 6 of 6 paired runs). Only the process the console script
owns freezes (`svc.__main__.process_main` says so; read here, so that `svc --version` loads no
module more): a program that runs a command in a longer life (the in-process test runner, a
library host) keeps its collections whole, since a frozen object that later becomes cyclic
garbage is never collected.
"""

from __future__ import annotations

import gc
import sys

# The entry's module: `svc.__main__` for the console script, `__main__` under `python -m svc`.
_ENTRY_NAMES = ("svc.__main__", "__main__")


def owns_process() -> bool:
    """Whether svc's console script runs this process (one command, then the exit)."""
    entries = (getattr(sys.modules.get(name), "Process", None) for name in _ENTRY_NAMES)
    return any(getattr(entry, "owned", False) is True for entry in entries)


def freeze_start_up() -> None:
    """Before a long run (a batch, a watch): the objects made so far skip every later pass."""
    if owns_process():
        gc.freeze()
