"""`make demo`: a complete paid task against a local sandbox, through the real `svc` executable.

Starts the sandbox on a free loopback port (it asks for Base Sepolia test USDC: no live money),
uses a throw-away home (your own config, ledger and keyring are never touched), then: wallet ->
submit (x402) -> watch -> answer the 2FA ask -> watch to the result -> what was spent. Every
command is printed before it runs.

Nothing from your shell reaches svc here: every `SVC_*` variable (a wallet key, a fleet ledger,
a cap, a profile) and `CI` are dropped, so the demo pays with its own new wallet into its own
SQLite ledger, whatever is set where it is started.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

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


def demo_env(home: Path, base_url: str) -> dict[str, str]:
    """The environment svc runs in: yours without SVC_* and CI, plus the throw-away home."""
    kept = {k: v for k, v in os.environ.items() if not k.startswith("SVC_") and k != "CI"}
    # A proxy of your network (HTTP_PROXY, ...) has no business with a sandbox on loopback:
    # svc honours NO_PROXY as curl does, so the demo lists loopback there.
    for name in ("NO_PROXY", "no_proxy"):
        kept[name] = ",".join(filter(None, (kept.get(name), "127.0.0.1,localhost,::1")))
    return {
        **kept,
        "SVC_BASE_URL": base_url,
        "SVC_CONFIG_DIR": str(home / "config"),
        "SVC_DATA_DIR": str(home / "data"),
        "SVC_KEYRING": "file",
    }


def paid_by(env: dict[str, str]) -> str:
    """The one payer of the demo's ledger, checked to be the wallet the demo created."""

    def quiet(*args: str) -> Any:
        done = subprocess.run([SVC, *args], env=env, capture_output=True, text=True, check=True)
        return json.loads(done.stdout)

    wallet, spend = quiet("wallet", "address", "--json"), quiet("spend", "--json")
    payers = {task["payer"] for task in spend["tasks"]}
    if payers != {wallet["address"]}:
        sys.exit(f"demo: paid by {sorted(payers)}, not the demo's wallet {wallet['address']}")
    return str(wallet["address"])


def main() -> None:
    # The demo's waits are the sandbox's task time (the 2FA ask at +10 s, the end 20 s after
    # the code): at 10x they take 1 and 2 s, still long enough that each watch shows the task
    # pending first (at 20x the first watch opened on the ask already).
    with (
        tempfile.TemporaryDirectory(prefix="svc-demo-") as home,
        SandboxProcess(clock_speed=10.0) as sandbox,
    ):
        env = demo_env(Path(home), sandbox.url)
        print(f"sandbox running at {sandbox.url} (Base Sepolia test USDC: no money moves)")
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
        payer = paid_by(env)
        print(f"\ndemo: the task completed and was paid once, by the demo's own wallet {payer}.")


if __name__ == "__main__":
    main()
