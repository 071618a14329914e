"""`svc request -o FILE` streams the body with bounded memory: 1 GiB from the sandbox's paid
endpoint through the installed executable, its peak RSS read from the kernel (wait4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Sandbox

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]

SIZE = 2**30  # 1 GiB: about 12 s on loopback here
PEAK_RSS_BOUND = 100 * 2**20  # the process, interpreter and libraries included (45 MB seen)


# Run by a small launcher, not forked from pytest: a child's peak RSS counts the image it was
# forked from until its exec, and pytest's is itself about 100 MB.
LAUNCHER = """
import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
_, status, usage = os.wait4(proc.pid, 0)
sys.stderr.write(proc.stderr.read().decode())
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024)
"""


@pytest.mark.timeout(180)
def test_a_gigabyte_body_streams_to_a_file_in_bounded_memory(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    target = tmp_path / "big.bin"
    url = f"{sandbox.url}/svc/paid/echo?bytes={SIZE}"
    launched = subprocess.run(
        [sys.executable, "-c", LAUNCHER, SVC, "request", "-o", str(target), url],
        env=cli.env,
        capture_output=True,
        text=True,
        check=False,
    )
    code, peak = (int(word) for word in launched.stdout.split())
    assert code == 0, launched.stderr
    try:
        assert target.stat().st_size == SIZE
        assert peak < PEAK_RSS_BOUND, f"peak RSS {peak} bytes"
        with target.open("rb") as body:
            body.seek(SIZE - 4)
            assert body.read() == b"xxxx"
    finally:
        target.unlink()
    assert "paid 1.50 USD by x402" in launched.stderr
