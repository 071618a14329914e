"""`svc ARGS` for a program that starts svc itself (an MCP host: the TypeScript SDK's client, the
MCP Inspector, the Python SDK's stdio client, fastmcp), forked from a test worker's fork server
(tests/forkserver.py) instead of exec'd: `svc mcp` imports the MCP SDK at every start (0.9 s of
CPU), and the suite's hosts start it about seventy times.

    python -I tests/fork_launch.py SOCKET START_ENV PROGRAM [ARGS...]

The host sees this process where it would see svc, and it behaves as svc does towards it:

* streams: this process's stdin, stdout and stderr become the child's, and are then let go here
  (pointed at /dev/null), so the host reads end-of-file when svc closes them, not later;
* signals: TERM, INT and HUP sent here are passed on to the child (one that arrives before the
  child exists is passed on once it does); a signal the host left ignored starts ignored;
* the end: the child's exit status becomes this process's, a child killed by a signal kills
  this process with the same signal; if this process dies, the server sees its connection
  close and kills the child; with no server to ask (its worker ended), PROGRAM is exec'd;
* an environment whose start-up variables (PYTHON*, the locale) differ from the server's
  cannot be forked: PROGRAM is exec'd instead, as if this launcher were not there.

`ForkServer.launch_command` builds the command line.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.forkserver import Forked, ForkServer, start_environment

FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class _Relay:
    """Signals for a child that may not exist yet: passed on now, or as soon as it does."""

    def __init__(self) -> None:
        self.child: Forked | None = None
        self.pending: list[int] = []

    def __call__(self, number: int, _frame: FrameType | None) -> None:
        if self.child is None:
            self.pending.append(number)
        else:
            self.child.relay_signal(number)

    def started(self, child: Forked) -> None:
        self.child = child
        for number in self.pending:
            child.relay_signal(number)


def _let_go_of_streams() -> None:
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _end_like(code: int) -> None:
    if code < 0:  # killed by a signal: so is this process, for the host to see
        with contextlib.suppress(OSError):  # SIGKILL's disposition cannot be set (nor need be)
            signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def main(argv: list[str]) -> None:
    path, start_env, program, args = argv[1], json.loads(argv[2]), argv[3], argv[4:]
    env = dict(os.environ)
    if start_environment(env) != start_env:
        os.execv(program, [program, *args])
    ignored = {sig: signal.SIG_IGN for sig in FORWARDED if signal.getsignal(sig) == signal.SIG_IGN}
    relay = _Relay()
    for sig in FORWARDED:
        if sig not in ignored:
            signal.signal(sig, relay)
    server = ForkServer.attached(path, program, start_env)
    try:
        child = server.popen(args, env=env, stdin=None, stdout=None, stderr=None, signals=ignored)
    except OSError:  # the server is gone (its worker ended): svc itself, as without a launcher
        os.execv(program, [program, *args])
    relay.started(child)
    _let_go_of_streams()
    _end_like(child.wait())


if __name__ == "__main__":
    main(sys.argv)
