"""Paired CPU of `svc watch --all` from two source trees over the same live tasks (issue 34).

    .venv/bin/python bench/watch_pair.py OLD_SRC NEW_SRC [--tasks 1000] [--seconds 60] [--rounds 3]

Starts a sandbox, submits a batch of `#slow` tasks (they stay live for 600 s), copies the home
once per tree, then in each round runs both trees' `watch --all --interval 15 --json` at the
same time (so a burst of load on a shared machine falls on both) and reads each process's CPU
(user + system, /proc) at the end of the window. Prints each round's ratio new / old and their
median. Both run as `python -c` with PYTHONPATH set to the tree's src, the same way.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from pair_tree import PY, RUN, TEST_ADDRESS, TEST_KEY, proc_cpu, tree_env

from svc_sandbox.server import SandboxProcess


def vm_hwm_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def svc(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    proc = subprocess.run(
        [PY, "-c", RUN, *args], env=env, input=stdin, capture_output=True, text=True, check=True
    )
    return proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="svc-watch-pair-"))
    with SandboxProcess(clock_speed=1.0) as sandbox:
        home = root / "seed"
        env = tree_env(home, args.new, sandbox.url)
        svc(env, "wallet", "import", stdin=TEST_KEY + "\n")
        import httpx

        httpx.post(
            f"{sandbox.url}/_sandbox/wallets/{TEST_ADDRESS}", json={"balance_atomic": 10**15}
        ).raise_for_status()
        source = root / "batch.jsonl"
        stamp = int(time.time())
        source.write_text(
            "".join(
                json.dumps({"task": f"pair {stamp} {i} #slow", "email": f"b{i}@example.com"}) + "\n"
                for i in range(args.tasks)
            )
        )
        svc(env, "submit", "--from", str(source))
        trees = {"old": args.old, "new": args.new}
        envs = {}
        for name, src in trees.items():
            shutil.copytree(home, root / name)
            envs[name] = tree_env(root / name, src, sandbox.url)
        ratios = []
        for n in range(args.rounds):
            procs = {
                name: subprocess.Popen(
                    [PY, "-c", RUN, "watch", "--all", "--interval", "15", "--json"],
                    env={**envs[name], "SVC_POLL_INTERVAL": "15"},
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
                for name in trees
            }
            deadline = time.monotonic() + args.seconds
            peak = dict.fromkeys(trees, 0.0)
            while time.monotonic() < deadline:
                time.sleep(0.5)
                for name, proc in procs.items():
                    peak[name] = max(peak[name], vm_hwm_mb(proc.pid))
            cpu = {name: proc_cpu(proc.pid) for name, proc in procs.items()}
            for proc in procs.values():
                proc.kill()
                proc.wait()
            ratio = cpu["new"] / cpu["old"]
            ratios.append(ratio)
            shares = {
                k: f"{v / args.seconds * 100:.2f}% ({peak[k]:.0f} MB)" for k, v in cpu.items()
            }
            print(
                f"round {n + 1}: old {shares['old']}, new {shares['new']}: {ratio:.3f}x", flush=True
            )
        print(f"median new/old CPU: {statistics.median(ratios):.3f}x (min {min(ratios):.3f}x)")
    shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
