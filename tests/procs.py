"""Reading a child process's output after a test already read some of it line by line.

`Popen.communicate()` reads the pipes' file descriptors, not the text readers a test's
`readline()` went through: whatever those had buffered past the lines read was lost (a
batch's 21st result line, once in a while under load). `rest_of` reads on through the same
readers, both at once so that neither pipe can fill and stall the child.
"""

from __future__ import annotations

import subprocess
import threading
from typing import IO


def rest_of(proc: subprocess.Popen[str], timeout: float) -> tuple[str, str]:
    """(stdout, stderr) still to come, once the process has ended (TimeoutExpired past
    `timeout`, as communicate() raises); a stream that is no pipe reads as ""."""
    found = {"out": "", "err": ""}

    def drain(name: str, stream: IO[str]) -> None:
        found[name] = stream.read()

    readers = [
        threading.Thread(target=drain, args=(name, stream), daemon=True)
        for name, stream in (("out", proc.stdout), ("err", proc.stderr))
        if stream is not None
    ]
    for reader in readers:
        reader.start()
    proc.wait(timeout=timeout)
    for reader in readers:
        reader.join(timeout)
    return found["out"], found["err"]
