"""`make demo`: a complete paid task against a local sandbox, through the real `svc` executable.

Starts the sandbox on a free loopback port, uses a throw-away home (your own config, ledger and
keyring are never touched), then: wallet -> submit (x402) -> watch -> answer the 2FA ask ->
watch to the result -> what was spent. Every command is printed before it runs.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from svc_sandbox.server import SandboxProcess

SVC = str(Path(sys.executable).with_name("svc"))


def run(
    args: list[str],
    env: dict[str, str],
    *,
    stdin: str | None = None,
    expect: int = 0,
    capture: bool = False,
) -> str:
    """Run one command as a user would; its output goes straight to this terminal."""
    shown = "svc " + " ".join(shlex.quote(a) for a in args)
    if stdin is not None:
        shown = f"echo {shlex.quote(stdin.strip())} | {shown}"
    print(f"\n$ {shown}", flush=True)
    proc = subprocess.run(
        [SVC, *args],
        input=stdin,
        env=env,
        stdout=subprocess.PIPE if capture else None,
        text=True,
        check=False,
    )
    if capture:
        print(proc.stdout, end="", flush=True)
    if proc.returncode != expect:
        sys.exit(f"demo: expected exit {expect}, got {proc.returncode}")
    return proc.stdout or ""


def main() -> None:
    with (
        tempfile.TemporaryDirectory(prefix="svc-demo-") as home,
        SandboxProcess(clock_speed=5.0) as sandbox,
    ):
        env = {
            **os.environ,
            "SVC_BASE_URL": sandbox.url,
            "SVC_CONFIG_DIR": str(Path(home) / "config"),
            "SVC_DATA_DIR": str(Path(home) / "data"),
            "SVC_KEYRING": "file",
        }
        print(f"sandbox running at {sandbox.url} (no money moves)")
        run(["wallet", "create"], env)
        task = json.loads(
            run(
                [
                    "submit",
                    "Book a table for two at Luigi's tonight at 7pm #2fa",
                    "--email",
                    "ana@example.com",
                    "--json",
                ],
                env,
                capture=True,
            )
        )
        task_id = task["id"]
        # The task asks for a 2FA code; with --no-input, watch stops (exit 6) so a script can answer.
        run(["watch", task_id, "--no-input"], env, expect=6)
        run(
            ["reply", task_id, "--field", "sms_code", "--sensitive", "--value-file", "-"],
            env,
            stdin="123456\n",
        )
        run(["watch", task_id], env)
        run(["poll", task_id], env)
        run(["spend"], env)
        print("\ndemo: the task completed and was paid once.")


if __name__ == "__main__":
    main()
