"""What the paired benches (batch_pair.py, watch_pair.py) share: the test wallet, a source
tree's svc run as `python -c` with PYTHONPATH at that tree's src (the same way for both trees),
its environment, and a process's CPU read from /proc."""

from __future__ import annotations

import os
import sys
from pathlib import Path

PY = sys.executable
TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
TEST_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
RUN = (
    "import sys; from svc.__main__ import process_main; sys.argv[0] = 'svc'; "
    "sys.exit(process_main())"
)


def proc_cpu(pid: int) -> float:
    """User + system seconds of a live process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_env(home: Path, src: str, url: str) -> dict[str, str]:
    """A tree's svc in its own home against the sandbox at `url`, with no daily cap (the
    benches pay more than a fresh home's cap; the cap is not what they measure)."""
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR")
    return {
        **{k: v for k, v in os.environ.items() if k in keep},
        "HOME": str(home),
        "SVC_CONFIG_DIR": str(home / "config"),
        "SVC_DATA_DIR": str(home / "data"),
        "SVC_KEYRING": "file",
        "SVC_BASE_URL": url,
        "SVC_DAILY_CAP": "none",
        "NO_COLOR": "1",
        "CI": "1",
        "PYTHONPATH": src,
    }
