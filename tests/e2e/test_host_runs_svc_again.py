"""Found by a hostile review: svc's own interrupt record outlives the run in a host process.

fd0eb72 says a host's old interrupt no longer ends svc nor the host. But svc leaves its SIGINT
handler installed after a run and never clears `terminal._interrupts` when a run begins: a Ctrl-C
the host later takes for its own work (caught, handled, the session goes on) is noted by svc's
handler. The next svc run in that host then takes itself as interrupted:
- process_main's `interrupted()` check os._exit()s the host beside a daemon thread (the very
  failure fd0eb72 fixed for sys.last_value), after a run that succeeded (exit 0);
- 05a6c7c's rule makes a real internal error of that run "svc: interrupted", exit 130.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.conftest import Cli

pytestmark = pytest.mark.e2e

PRELUDE = """
import runpy, signal, sys, threading, time

def svc(*args):
    sys.argv = ["svc", *args]
    try:
        runpy.run_module("svc", run_name="__main__", alter_sys=True)
    except SystemExit as e:
        print("svc exit", e.code, flush=True)

svc("--version")  # a first run, not interrupted
try:  # later the person stops the host's own work; the host handles it and goes on
    signal.raise_signal(signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    print("host handled its own Ctrl-C", flush=True)
"""

KILLS_THE_HOST = (
    PRELUDE
    + """
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
svc("--version")
print("host goes on", flush=True)
"""
)

HIDES_AN_INTERNAL_ERROR = (
    PRELUDE
    + """
import svc.cli.app as app

def broken(*args, **kwargs):  # stands for any bug svc has: an internal error
    raise RuntimeError("a bug in svc")

app.build_context = broken
svc("config", "path")
"""
)


def _host(cli: Cli, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=cli.env,
        timeout=60,
        check=False,
    )


def test_a_host_ctrl_c_handled_by_the_host_does_not_end_the_host_on_the_next_run(
    cli: Cli,
) -> None:
    done = _host(cli, KILLS_THE_HOST)
    assert "host handled its own Ctrl-C" in done.stdout, done
    assert done.stdout.count("svc exit 0") == 2, done  # the second run's exit reached the host
    assert "host goes on" in done.stdout, done  # happened: os._exit(0) inside process_main


def test_a_host_ctrl_c_does_not_turn_a_later_internal_error_into_interrupted(
    cli: Cli,
) -> None:
    done = _host(cli, HIDES_AN_INTERNAL_ERROR)
    assert "host handled its own Ctrl-C" in done.stdout, done
    assert "svc: internal error: RuntimeError: a bug in svc" in done.stderr, done
    assert "svc exit 1" in done.stdout, done  # happened: "svc: interrupted", exit 130
