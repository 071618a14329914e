"""A Ctrl-C that CPython's own start-up takes and goes on from still ends the command.

Checking whether argv[0] is an import path entry, CPython prints a KeyboardInterrupt raised
there ("Failed checking if argv[0] is an import path entry") and runs the script anyway: a
loaded run's `svc reply` then opened its sms_code prompt after the Ctrl-C. Here a path hook
(installed by a sitecustomize, as start-up imports it) raises the interrupt at exactly that
step, in a real `svc` process.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli

pytestmark = pytest.mark.e2e

TAKES_THE_CTRL_C = """
import sys

def _hook(path):
    if path == sys.argv[0] or path.endswith("/svc"):
        sys.path_hooks.remove(_hook)
        raise KeyboardInterrupt
    raise ImportError

sys.path_hooks.insert(0, _hook)
sys.path_importer_cache.clear()
"""


@pytest.mark.parametrize("args", [["--version"], ["poll", "task_0123456789abcdef"]])
def test_an_interrupt_cpython_took_at_start_up_ends_the_command(
    cli: Cli, tmp_path: Path, args: list[str]
) -> None:
    (tmp_path / "sitecustomize.py").write_text(TAKES_THE_CTRL_C)
    env = {**cli.env, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [SVC, *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert "Failed checking if argv[0]" in done.stderr  # CPython took it, and went on
    assert done.returncode == 130, done
    assert done.stderr.rstrip().endswith("svc: interrupted")
    assert done.stdout == ""


def test_without_an_interrupt_the_command_runs(cli: Cli) -> None:
    done = subprocess.run(
        [SVC, "--version"], env=cli.env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0 and done.stdout.startswith("svc ")


# A Python session (piped, as `python -i` reads it) where one statement was interrupted
# earlier, then `svc --version` run in that process as `python -m svc` runs it: the session's
# old interrupt is its own, not one CPython's start-up took from svc.
SESSION = """raise KeyboardInterrupt
import runpy, sys, threading, time
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
sys.argv = ["svc", "--version"]
try:
    runpy.run_module("svc", run_name="__main__", alter_sys=True)
except SystemExit as e:
    print("host caught exit", e.code)

print("host goes on")
"""


def test_an_old_interrupt_of_a_host_session_does_not_end_svc_nor_the_host(cli: Cli) -> None:
    done = subprocess.run(
        [sys.executable, "-i", "-q"],
        input=SESSION,
        capture_output=True,
        text=True,
        env=cli.env,
        timeout=60,
        check=False,
    )
    assert "svc: interrupted" not in done.stderr, done
    assert "svc 0." in done.stdout and "host caught exit 0" in done.stdout, done
    assert "host goes on" in done.stdout and done.returncode == 0, done
