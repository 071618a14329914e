"""The fleet row of `make bench` (issue 24): the same 1000 paid tasks by one runner on its
SQLite ledger and by 4 runners sharing one PostgreSQL ledger, in one run, plus a paid submit on
each engine. The runners and the sandbox share this machine's cores, as CI runners would not:
the ratio is the figure that travels. The paid submits alternate, one on each engine per
round, and the ratio is the median of the rounds' (a burst of load then falls on both)."""

from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # tests.pg_cluster: the throw-away PostgreSQL the tests use

from tests.pg_cluster import start as start_cluster  # noqa: E402

RUNNERS = 4


def batch_file(folder: Path, name: str, start: int, count: int, stamp: str) -> Path:
    path = folder / name
    path.write_text(
        "".join(
            json.dumps({"task": f"fleet {stamp} {i} #slow", "email": f"f{i}@example.com"}) + "\n"
            for i in range(start, start + count)
        )
    )
    return path


def runner_home(base: Path, wallet_home: Path, name: str) -> Path:
    """A runner's home: a copy of the config dir (the wallet: one for the fleet), no data."""
    home = base / name
    shutil.copytree(wallet_home / "config", home / "config")
    return home


def server_cpu(data_dir: Path) -> float:
    """User + system seconds of a PostgreSQL server: the postmaster, its reaped children (the
    backends of runners that are gone) and the children still running (Linux /proc)."""
    postmaster = int((data_dir / "postmaster.pid").read_text().split()[0])
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # ended while listed
            continue
        pid = int(stat.parent.name)
        if pid == postmaster:
            total += sum(int(f) for f in fields[11:15])  # utime stime cutime cstime
        elif int(fields[1]) == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def run_batches(
    svc: str, jobs: list[tuple[Path, dict[str, str]]], peak_kb: Callable[[int], int]
) -> tuple[float, int, float, float]:
    """(wall seconds, accepted lines, largest runner peak MB, the runners' CPU seconds) of
    batches run side by side."""
    # Each runner's results go to a file beside its batch, not a pipe: nobody reads a pipe
    # while the runners run (the loop below samples memory), and a batch of 1000 lines fills
    # a pipe's 64 KB long before it ends, so the runner would block on its stdout for ever.
    outs = [source.with_suffix(".out") for source, _ in jobs]
    cpu, start = children_cpu(), time.perf_counter()
    procs = []
    for (source, env), out in zip(jobs, outs, strict=True):
        with out.open("w") as sink:
            procs.append(
                subprocess.Popen(
                    [svc, "submit", "--from", str(source)],
                    env=env,
                    stdout=sink,
                    stderr=subprocess.DEVNULL,
                )
            )
    peaks = [0] * len(procs)
    while any(p.poll() is None for p in procs):
        peaks = [max(k, peak_kb(p.pid)) for k, p in zip(peaks, procs, strict=True)]
        time.sleep(0.2)
    wall, cpu = time.perf_counter() - start, children_cpu() - cpu
    accepted = sum(
        1
        for out in outs
        for line in out.read_text().splitlines()
        if json.loads(line).get("outcome") == "accepted"
    )
    return wall, accepted, max(peaks) / 1024, cpu


ROUNDS = 3  # one pair's ratio swung 1.05x-1.48x on this machine: the median of 3 travels


def fleet_case(
    bench: Any, row: Callable[..., None], verdict: Callable[[float, float], str]
) -> None:
    bench.start_sandbox()
    n = bench.args.tasks
    cluster = start_cluster()
    try:
        url = cluster.create_database("svc_bench")
        folder = bench.home / "fleet"
        folder.mkdir()
        single_env = bench.env_for(runner_home(folder, bench.home, "single"))
        runner_envs = [
            {
                **bench.env_for(runner_home(folder, bench.home, f"runner-{r}")),
                "SVC_LEDGER_URL": url,
                "SVC_RUNNER": f"runner-{r}",
            }
            for r in range(RUNNERS)
        ]
        stamp = int(time.time())
        rounds = [
            _round(bench, folder / f"round-{k}", single_env, runner_envs, f"{stamp}-{k}", cluster)
            for k in range(ROUNDS)
        ]
        _rows(row, verdict, n, rounds)
        _submit_rows(bench, row, verdict, single_env, url)
    finally:
        cluster.stop()


Round = tuple[tuple[float, int, float, float], tuple[float, int, float, float], str]


def _round(
    bench: Any,
    folder: Path,
    single_env: dict[str, str],
    runner_envs: list[dict[str, str]],
    stamp: str,
    cluster: Any,
) -> Round:
    """One runner's batch of n fresh lines, then the fleet's (n fresh lines in RUNNERS parts):
    both results and where the CPU went (runners + PostgreSQL + sandbox)."""
    n, share = bench.args.tasks, bench.args.tasks // RUNNERS
    folder.mkdir()
    sandbox = bench.sandbox_cpu()
    single = run_batches(
        bench.svc, [(batch_file(folder, "all.jsonl", 0, n, stamp), single_env)], bench.peak_kb
    )
    single_sandbox = bench.sandbox_cpu() - sandbox
    jobs = [
        (batch_file(folder, f"part{r}.jsonl", n + r * share, share, stamp), env)
        for r, env in enumerate(runner_envs)
    ]
    sandbox, server = bench.sandbox_cpu(), server_cpu(cluster.root / "data")
    fleet = run_batches(bench.svc, jobs, bench.peak_kb)
    fleet_sandbox = bench.sandbox_cpu() - sandbox
    fleet_server = server_cpu(cluster.root / "data") - server
    cpu = (
        f"1 runner {single[3]:.1f} + 0 + {single_sandbox:.1f} s;"
        f" {RUNNERS} runners {fleet[3]:.1f} + {fleet_server:.1f} + {fleet_sandbox:.1f} s"
    )
    return single, fleet, cpu


def _rows(
    row: Callable[..., None], verdict: Callable[[float, float], str], n: int, rounds: list[Round]
) -> None:
    """The round of the median ratio, and the spread of the ratios."""
    ratios = [fleet[0] / max(single[0], 1e-9) for single, fleet, _ in rounds]
    ratio = statistics.median(ratios)
    single, fleet, cpu = rounds[ratios.index(ratio)]
    complete = all(s[1] == n and f[1] == n for s, f, _ in rounds)
    row(
        f"fleet: {n} tasks, 1 runner on SQLite",
        f"{single[1]} accepted in {single[0]:.1f} s (cpu {single[3]:.1f} s), peak"
        f" {single[2]:.0f} MB",
        "ok" if complete else "FAILED",
    )
    row(
        f"  {RUNNERS} runners sharing PostgreSQL",
        f"{fleet[1]} accepted in {fleet[0]:.1f} s = {ratio:.2f}x, median of {len(rounds)}"
        f" ({min(ratios):.2f}x-{max(ratios):.2f}x)",
        f"target <= 1.35x: {verdict(ratio, 1.35)}" if complete else "FAILED",
    )
    row("  cpu: runners + PostgreSQL + sandbox", cpu)
    # every round, for pairing runs of two trees: the median round alone hides the spread
    each = "; ".join(
        f"{s[0]:.1f}/{f[0]:.1f} s (cpu {s[3]:.1f} / {c.split('; ')[1]})" for s, f, c in rounds
    )
    row("  rounds: 1 runner / 4 runners wall (cpu)", each)
    peak = max(f[2] for _, f, _ in rounds)
    row("  largest runner peak memory", f"{peak:.0f} MB", f"target <= 150 MB: {verdict(peak, 150)}")


def _submit_rows(
    bench: Any,
    row: Callable[..., None],
    verdict: Callable[[float, float], str],
    env: dict[str, str],
    url: str,
) -> None:
    runs = max(5, bench.args.runs // 2)
    cmd = [bench.svc, "submit", "bench fleet submit #slow", "--email", "fs@example.com"]
    cmd += ["--json", "--allow-duplicate"]  # the same task each round, on purpose
    samples, cpus = alternated(
        cmd, {"sqlite": env, "postgres": {**env, "SVC_LEDGER_URL": url}}, runs
    )
    each = [p / s for p, s in zip(samples["postgres"], samples["sqlite"], strict=True)]
    ratio = statistics.median(each)
    cpu_ratio = statistics.median(
        p / max(s, 1e-9) for p, s in zip(cpus["postgres"], cpus["sqlite"], strict=True)
    )
    pg_ms, sqlite_ms = (statistics.median(samples[k]) * 1000 for k in ("postgres", "sqlite"))
    row(
        "  paid submit on PostgreSQL vs SQLite",
        f"{pg_ms:.0f} ms vs {sqlite_ms:.0f} ms = {ratio:.2f}x (min {min(each):.2f}x;"
        f" cpu {cpu_ratio:.2f}x)",
        f"target <= 1.2x: {verdict(ratio, 1.2)}",
    )


def alternated(
    cmd: list[str], envs: dict[str, dict[str, str]], runs: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Wall seconds and CPU seconds (user + system) of `cmd` under each env, the envs in
    turn within a round, after one warm-up round (the first PostgreSQL submit also creates
    the schema). CPU is steadier than wall on a loaded machine (docs/performance.md)."""
    walls: dict[str, list[float]] = {name: [] for name in envs}
    cpus: dict[str, list[float]] = {name: [] for name in envs}
    for i in range(runs + 1):
        for name, env in envs.items():
            cpu, start = children_cpu(), time.perf_counter()
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            elapsed = time.perf_counter() - start
            if proc.returncode != 0:
                raise SystemExit(f"bench case failed: {cmd}\n{proc.stderr[-2000:]}")
            if i:
                walls[name].append(elapsed)
                cpus[name].append(children_cpu() - cpu)
    return walls, cpus


def children_cpu() -> float:
    """User + system seconds of every child this process has waited for."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime
