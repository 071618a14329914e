"""A long run freezes what start-up built, in svc's own process only (svc/cli/heap.py): the
cyclic collector then skips the imports' objects at each pass of a batch or a watch, and a
program that runs commands in a longer life keeps its collections whole."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import Cli, unique_email
from tests.e2e.test_batch import write_lines

pytestmark = pytest.mark.e2e

# Runs the console script's entry (`process_main`) with the batch engine wrapped to say how many
# objects were frozen when the batch began.
PROBE = """
import gc, sys
import svc.commands.submit_batch as face
run = face.run_lines
def counted(*args, **kwargs):
    print(f"frozen-at-start {gc.get_freeze_count()}", file=sys.stderr)
    return run(*args, **kwargs)
face.run_lines = counted
from svc.__main__ import {entry}
sys.argv[0] = "svc"
{entry}()
"""


def _batch(tmp_path: Path, n: int) -> Path:
    email = unique_email()
    lines: list[object] = [{"task": f"heap {i} #complete", "email": email} for i in range(n)]
    return write_lines(tmp_path / "lines.jsonl", lines)


def _frozen_at_start(cli: Cli, entry: str, path: Path) -> int:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.replace("{entry}", entry), "submit", "--from", str(path)],
        capture_output=True,
        text=True,
        env=cli.env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    said = [line for line in proc.stderr.splitlines() if line.startswith("frozen-at-start")]
    assert said, proc.stderr
    return int(said[0].split()[1])


def test_the_svc_process_freezes_start_up_before_its_batch(cli: Cli, tmp_path: Path) -> None:
    assert _frozen_at_start(cli, "process_main", _batch(tmp_path, 2)) > 10_000  # the imports


def test_a_host_running_main_keeps_its_collections(cli: Cli, tmp_path: Path) -> None:
    """`main` without the console script (a host process): nothing frozen, in a process of its
    own as in this one (the in-process runner, below)."""
    assert _frozen_at_start(cli, "main", _batch(tmp_path, 2)) == 0
    before = gc.get_freeze_count()
    cli.ok("submit", "--from", str(_batch(tmp_path, 2)))
    assert gc.get_freeze_count() == before


def test_a_host_that_calls_the_console_entry_owns_its_process_again(cli: Cli) -> None:
    """`process_main` raises SystemExit; a host that catches it and goes on is not svc's own
    process any longer: a later batch there keeps its collections."""
    code = (
        "import sys\nfrom svc.__main__ import Process, process_main\nsys.argv = ['svc', '--version']\n"
        "try:\n    process_main()\nexcept SystemExit:\n    pass\nprint('owned', Process.owned)\n"
    )
    run = [sys.executable, "-c", code]
    proc = subprocess.run(run, capture_output=True, text=True, env=cli.env, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "owned False"
