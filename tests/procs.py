"""Reading a child process's output after a test already read some of it line by line.

`Popen.communicate()` reads the pipes' file descriptors, not the text readers a test's
`readline()` went through: whatever those had buffered past the lines read was lost (a
batch's 21st result line, once in a while under load). `rest_of` reads on through the same
readers, both at once so that neither pipe can fill and stall the child.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from typing import IO


def rest_of(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """(stdout, stderr) still to come, once the process has ended (TimeoutExpired past
    `timeout`, as communicate() raises); a stream that is no pipe reads as ""."""
    return read_both(proc.stdout, proc.stderr, lambda: proc.wait(timeout=timeout), timeout)


def read_both(
    out: IO[str] | None,
    err: IO[str] | None,
    wait: Callable[[], object],
    timeout: float | None,
) -> tuple[str, str]:
    """Both readers read to their end at once, so that neither pipe can fill and stall the
    child, while `wait` runs (it waits for the child, after writing its input if any)."""
    found = {"out": "", "err": ""}

    def drain(name: str, stream: IO[str]) -> None:
        found[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=(name, stream), daemon=True)
        for name, stream in (("out", out), ("err", err))
        if stream is not None
    ]
    for reader in readers:
        reader.start()
    wait()
    for reader in readers:
        reader.join(timeout)
    return found["out"], found["err"]
