"""The README's one-minute tour works exactly as written.

The block after the `<!-- tour: ... -->` marker is run line by line in one bash, from the top of
the repository, with an empty home directory and no SVC_* variables, as a new user would paste
it. Each line's exit code is recorded and compared with what its comment promises
(`# exits N`, else 0).

The tour starts its own sandbox on the default port 8402. To keep that from clashing with
anything else on the machine (another test run, a developer's sandbox), the tour runs in a
private network namespace (`unshare -rn`, own loopback) where the kernel allows it; elsewhere
runs are serialised with a lock and the port must be free.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
MARKER = "<!-- tour:"


def tour_lines() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert MARKER in text, "README.md lost its tour marker"
    after = text[text.index(MARKER) :]
    block = re.search(r"```sh\n(.*?)\n```", after, re.S)
    assert block is not None, "no ```sh block after the tour marker"
    return [line for line in block.group(1).splitlines() if line.strip()]


def expected_code(line: str) -> int:
    comment = line.partition("  #")[2]
    found = re.search(r"\bexits (\d+)", comment)
    return int(found.group(1)) if found else 0


def _namespace_prefix() -> list[str] | None:
    """`unshare -rn` with loopback up, if this kernel lets us; else None."""
    unshare = shutil.which("unshare")
    ip = shutil.which("ip") or next(
        (p for p in ("/usr/sbin/ip", "/sbin/ip") if Path(p).exists()), None
    )
    if unshare is None or ip is None:
        return None
    probe = subprocess.run(
        [unshare, "-rn", ip, "link", "set", "lo", "up"], capture_output=True, check=False
    )
    if probe.returncode != 0:
        return None
    return [unshare, "-rn", "sh", "-c", f'{ip} link set lo up && exec "$@"', "sh"]


@contextmanager
def _port_8402_to_ourselves() -> Iterator[None]:
    with open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "svc-readme-tour.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", 8402))
            except OSError:
                pytest.fail(
                    "port 8402 is in use and this kernel refuses a private network namespace: "
                    "stop whatever listens on 127.0.0.1:8402 (the tour starts its sandbox there)"
                )
        yield


def test_readme_tour_runs_as_written(tmp_path: Path) -> None:
    lines = tour_lines()
    assert any(line.startswith("svc sandbox serve") for line in lines)
    assert any(line.startswith("svc reply") for line in lines)
    rc_file = tmp_path / "codes"
    script = tmp_path / "tour.sh"
    body = [f'exec 3>"{rc_file}"']
    for line in lines:
        body += [line, 'echo "$?" >&3']
    script.write_text("\n".join(body) + "\n", encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "HOME": str(home),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
    }
    bash = shutil.which("bash") or "/bin/bash"
    prefix = _namespace_prefix()
    guard = _port_8402_to_ourselves() if prefix is None else _noop()
    with guard:
        proc = subprocess.Popen(
            [*(prefix or []), bash, str(script)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=90)
        finally:
            # The sandbox, should the tour have failed before `kill %1`.
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    assert "Traceback" not in err, err
    codes = [int(c) for c in rc_file.read_text(encoding="utf-8").split()]
    report = "\n".join(f"{c:>3} {line}" for c, line in zip(codes, lines, strict=False))
    assert codes == [expected_code(line) for line in lines], f"{report}\n--- stderr\n{err[-3000:]}"
    # What the comments promise is what happened.
    assert "\n1.500000\n" in out  # svc spend --jq .total_usd (a string: printed raw)
    assert "waits on the user and prompting is off" in err  # the exit 6
    assert '"summary": "Sandbox task finished (2fa)."' in out  # svc poll --jq .result
    assert '"state": "completed"}]' in out  # svc tasks --refresh --json=task_id,state
    assert list(home.iterdir()), "the tour wrote nothing under its fresh home"


@contextmanager
def _noop() -> Iterator[None]:
    yield
