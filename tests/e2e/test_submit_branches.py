"""A paid submit of one task loads what it uses, and not eth_account: svc signs with its own
EIP-712 encoder over pycryptodome and coincurve.

Checked on the installed executable run in a process of its own (imports are what it is about),
against the sandbox, with the wallet paying by x402. The modules are read from `sys.modules` at
exit, not from `-X importtime`, which does not see a module imported by name (the command table
imports each command's module so).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import Cli, unique_email

SVC = str(Path(sys.executable).with_name("svc"))

# What a single paid submit never uses: the signing library svc no longer signs with.
NOT_FOR_ONE = (
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
