"""Paired client CPU of `svc submit --from FILE` from two source trees (issue 34's batch row).

    .venv/bin/python bench/batch_pair.py OLD_SRC NEW_SRC [--tasks 1000] [--rounds 6]
        [--concurrency N]

Starts one sandbox, gives each tree a home of its own (the same wallet, a ledger each), then in
each round runs one batch of fresh `#slow` lines per tree, in turn (the order alternates from
round to round, so a burst of load on a shared machine falls on both). For each batch: the
client's user and system CPU and voluntary context switches (wait4's rusage), the wall time and
the sandbox's CPU over the same batch. Prints each round and the medians of the ratios new /
old. Both trees run as `python -c` with PYTHONPATH set to the tree's src, the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from pair_tree import PY, RUN, TEST_ADDRESS, TEST_KEY, proc_cpu, tree_env

from svc_sandbox.server import SandboxProcess


def one_batch(
    env: dict[str, str], path: Path, extra: list[str], sandbox_pid: int
) -> dict[str, float]:
    before = proc_cpu(sandbox_pid)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [PY, "-c", RUN, "submit", "--from", str(path), *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    out, err = proc.communicate()
    wall = time.perf_counter() - start
    usage = proc.rusage  # type: ignore[attr-defined]
    accepted = out.count(b'"accepted"')
    if proc.returncode != 0:
        raise SystemExit(f"batch failed ({proc.returncode}): {err.decode()[-2000:]}")
    return {
        "user": usage.ru_utime,
        "sys": usage.ru_stime,
        "cpu": usage.ru_utime + usage.ru_stime,
        "vcsw": usage.ru_nvcsw,
        "wall": wall,
        "sandbox": proc_cpu(sandbox_pid) - before,
        "accepted": accepted,
    }


class _Popen(subprocess.Popen[bytes]):
    """Popen that keeps the child's rusage (wait4) when it reaps it."""

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        pid, status, usage = os.wait4(self.pid, wait_flags)
        if pid:
            self.rusage = usage
        return pid, status


subprocess.Popen = _Popen  # type: ignore[misc]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--new-concurrency", type=int, help="the new tree's, if not the same")
    args = parser.parse_args()
    trees = {"old": str(Path(args.old).resolve()), "new": str(Path(args.new).resolve())}
    extra = [] if args.concurrency is None else ["--concurrency", str(args.concurrency)]
    extras = {"old": extra, "new": extra}
    if args.new_concurrency is not None:
        extras["new"] = ["--concurrency", str(args.new_concurrency)]
    root = Path(tempfile.mkdtemp(prefix="svc-batch-pair-"))
    rows: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    with SandboxProcess(clock_speed=1.0) as sandbox:
        assert sandbox.process is not None
        pid = sandbox.process.pid
        import httpx

        httpx.post(
            f"{sandbox.url}/_sandbox/wallets/{TEST_ADDRESS}", json={"balance_atomic": 10**15}
        ).raise_for_status()
        envs = {}
        for name, src in trees.items():
            home = root / name
            envs[name] = tree_env(home, src, sandbox.url)
            subprocess.run(
                [PY, "-c", RUN, "wallet", "import"],
                input=(TEST_KEY + "\n").encode(),
                env=envs[name],
                capture_output=True,
                check=True,
            )
        stamp = int(time.time())
        for r in range(args.rounds):
            order = list(trees) if r % 2 == 0 else list(reversed(trees))
            for name in order:
                path = root / f"{name}-{r}.jsonl"
                path.write_text(
                    "".join(
                        json.dumps(
                            {"task": f"pair {stamp} {name} {r} {i} #slow", "email": f"p{i}@x.io"}
                        )
                        + "\n"
                        for i in range(args.tasks)
                    )
                )
                rows[name].append(one_batch(envs[name], path, extras[name], pid))
            o, n = rows["old"][-1], rows["new"][-1]
            print(
                f"round {r}: "
                + "  ".join(
                    f"{k} {o[k]:.2f}->{n[k]:.2f}" for k in ("cpu", "user", "sys", "wall", "sandbox")
                )
                + f"  vcsw {o['vcsw']:.0f}->{n['vcsw']:.0f}"
                + f"  ok {o['accepted']:.0f}/{n['accepted']:.0f}",
                flush=True,
            )
    shutil.rmtree(root, ignore_errors=True)
    for key in ("cpu", "user", "sys", "wall", "sandbox", "vcsw"):
        each = [b[key] / a[key] for a, b in zip(rows["old"], rows["new"], strict=True)]
        olds = statistics.median(a[key] for a in rows["old"])
        news = statistics.median(b[key] for b in rows["new"])
        mid = statistics.median(each)
        print(
            f"{key:8} old {olds:8.2f}  new {news:8.2f}  new/old median {mid:.3f}"
            f" (min {min(each):.3f}, max {max(each):.3f}, lower in {sum(e < 1 for e in each)}"
            f" of {len(each)})"
        )


if __name__ == "__main__":
    main()
