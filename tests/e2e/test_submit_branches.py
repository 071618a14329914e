"""A paid submit of one task loads what it uses (issue 34.3): not the batch (--from), not the
watch face (--wait), not eth_account; --from and --wait still reach their modules by name.

Checked on the installed executable run in a process of its own (imports are what it is about),
against the sandbox, with the wallet paying by x402. The modules are read from `sys.modules` at
exit, not from `-X importtime`, which does not see a module imported by name
(`importlib.import_module`, as the command table and these branches import theirs).
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox, unique_email, unique_request_id

from svc.commands import submit

SVC = str(Path(sys.executable).with_name("svc"))

# What a single paid submit never uses: the batch and its command, the watch face and its
# follower, and the signing library svc no longer signs with.
NOT_FOR_ONE = (
    "svc.commands.submit_batch",
    "svc.engines.batch",
    "svc.engines.batch_file",
    "svc.ui.batch",
    "svc.commands.watch_face",
    "svc.engines.watch",
    "svc.commands.watch_form",
    "eth_account",
    "eth_abi",
    "eth_utils",
)


# Runs the installed script as `svc` runs, and writes the names in sys.modules at exit.
RUN_AND_LIST = (
    "import atexit, runpy, sys\n"
    "out = sys.argv.pop(1)\n"
    "atexit.register(lambda: open(out, 'w').write('\\n'.join(sorted(sys.modules))))\n"
    "sys.argv.pop(0)\n"  # argv is now the script's own: [svc, ARGS...]
    "runpy.run_path(sys.argv[0], run_name='__main__')\n"
)


def imported(cli: Cli, *args: str, stdin: str | None = None) -> tuple[set[str], str]:
    """The modules a run of `svc ARGS` imported, and what it printed."""
    listing = cli.home / "modules.txt"
    proc = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST, str(listing), SVC, *args],
        capture_output=True,
        text=True,
        env=cli.env,
        input=stdin,
        check=False,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(listing.read_text(encoding="utf-8").split()), proc.stdout


def test_a_paid_submit_of_one_task_imports_neither_the_batch_nor_the_watch(cli: Cli) -> None:
    loaded, out = imported(cli, "submit", "One task #complete", "--email", unique_email(), "--json")
    assert json.loads(out)["id"].startswith("task_")  # it did pay and submit
    assert {"svc.pay.secp256k1", "svc.pay.eip712", "svc.engines.submit"} <= loaded
    assert not loaded & set(NOT_FOR_ONE), sorted(loaded & set(NOT_FOR_ONE))


def test_from_and_wait_reach_their_modules(cli: Cli, sandbox: Sandbox) -> None:
    line = json.dumps({"task": "Batch of one #complete", "email": unique_email()})
    loaded, _ = imported(cli, "submit", "--from", "-", "--json", stdin=line + "\n")
    assert {submit.BATCH, "svc.engines.batch"} <= loaded
    assert submit.FOLLOW not in loaded
    rid = unique_request_id()
    args = ["submit", "Wait for me #complete", "--email", unique_email(), "--request-id", rid]
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(imported, cli, *args, "--wait", "--json")
        _advance_once_paid(sandbox, rid, waiting)  # its 20 s on the sandbox's clock, not ours
        loaded, out = waiting.result()
    assert submit.FOLLOW in loaded
    assert submit.BATCH not in loaded
    assert out.strip()


def _advance_once_paid(sandbox: Sandbox, rid: str, waiting: Future[Any]) -> None:
    """Once the task exists (its charge is booked), move the sandbox's clock past its work;
    never before, since the clock also judges the payment's validity window."""
    deadline = time.monotonic() + 60
    while not sandbox.charges_for(rid) and not waiting.done():
        assert time.monotonic() < deadline, "the waiting submit never paid"
        time.sleep(0.1)
    sandbox.advance(30)


@pytest.mark.parametrize(
    ("module", "name"), [(submit.BATCH, "run_batch"), (submit.FOLLOW, "follow")]
)
def test_each_branch_names_a_module_with_its_entry(module: str, name: str) -> None:
    assert callable(getattr(importlib.import_module(module), name))
