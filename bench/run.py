"""`make bench`: start-up, the poll hot path, a paid submit, batch and watch at scale.

Runs every case several times in one run against a throw-away sandbox on loopback and prints
medians and ratios next to the issue's targets. Everything uses this venv's own python (a pyenv
shim would add ~80 ms to every start and flatter every ratio).

    .venv/bin/python bench/run.py [--quick] [--tasks N] [--watch-seconds S] [--only CASES]

CASES: startup,poll,submit,batch,watch,async_watch,fleet,ledger (watch follows the tasks the
batch submitted; async_watch follows them with the library's AsyncClient.watch_many in one event
loop, bench/async_watch.py; fleet runs the same tasks by one runner on SQLite and by 4 runners
sharing a throw-away PostgreSQL; ledger times `svc spend` and a paid submit on a 1,000,000-row
ledger).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx

from svc_sandbox.server import SandboxProcess

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SVC = str(Path(PY).with_name("svc"))
TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
TEST_ADDRESS = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
RESULTS: list[tuple[str, str, str]] = []  # (case, figure, verdict)


def timed(cmd: list[str], env: dict[str, str], runs: int, input_: str | None = None) -> float:
    """Median wall seconds of `cmd` over `runs` runs (after one warm-up run)."""
    samples = []
    for i in range(runs + 1):
        start = time.perf_counter()
        proc = subprocess.run(
            cmd, env=env, input=input_, capture_output=True, text=True, check=False
        )
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"bench case failed: {cmd}\n{proc.stderr[-2000:]}")
        if i:
            samples.append(elapsed)
    return statistics.median(samples)


def rounds(
    cmds: dict[str, list[str]], env: dict[str, str], runs: int, envs: dict[str, dict[str, str]]
) -> dict[str, list[float]]:
    """Wall seconds of each command over `runs` rounds, the commands run in turn within a
    round (after one warm-up round), so a burst of load on a shared machine falls on all of
    them and a ratio taken round by round stays meaningful."""
    samples: dict[str, list[float]] = {name: [] for name in cmds}
    for i in range(runs + 1):
        for name, cmd in cmds.items():
            start = time.perf_counter()
            proc = subprocess.run(
                cmd, env=envs.get(name, env), capture_output=True, text=True, check=False
            )
            elapsed = time.perf_counter() - start
            if proc.returncode != 0:
                raise SystemExit(f"bench case failed: {cmd}\n{proc.stderr[-2000:]}")
            if i:
                samples[name].append(elapsed)
    return samples


def ratios(samples: dict[str, list[float]], name: str, base: str) -> tuple[float, float]:
    """(min, median) of `name`'s time over `base`'s, round by round."""
    each = [a / b for a, b in zip(samples[name], samples[base], strict=True)]
    return min(each), statistics.median(each)


def verdict(value: float, limit: float) -> str:
    return "ok" if value <= limit else "MISSED"


def row(case: str, figure: str, ok: str = "") -> None:
    RESULTS.append((case, figure, ok))
    print(f"  {case:<44} {figure:<44} {ok}", flush=True)


class Bench:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.home = Path(tempfile.mkdtemp(prefix="svc-bench-"))
        self.env = {
            **{k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR")},
            "HOME": str(self.home),
            "SVC_CONFIG_DIR": str(self.home / "config"),
            "SVC_DATA_DIR": str(self.home / "data"),
            "SVC_KEYRING": "file",
            "NO_COLOR": "1",
            "CI": "1",
            # The benches pay far more than a fresh home's 15.00 USD a day; the cap is not
            # what they measure (as before the default cap: no exposure sum per payment).
            "SVC_DAILY_CAP": "none",
        }
        self.sandbox: SandboxProcess | None = None
        self.url = ""
        self.http = httpx.Client(timeout=30)
        self.batch_ids: list[str] = []
        self.batch_live = False  # the batch's tasks have not been watched to the end yet
        self.changes_seen = 0  # NDJSON lines of the last watch: one per change (and hook)

    # --- set-up ----------------------------------------------------------------------------

    def start_sandbox(self) -> None:
        if self.sandbox is not None:
            return
        self.sandbox = SandboxProcess(clock_speed=1.0)
        self.sandbox.__enter__()
        self.url = self.sandbox.url
        self.env["SVC_BASE_URL"] = self.url
        subprocess.run(
            [SVC, "wallet", "import"],
            input=TEST_KEY + "\n",
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        self.admin("POST", f"/wallets/{TEST_ADDRESS}", json={"balance_atomic": 10**15})

    def admin(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.http.request(method, f"{self.url}/_sandbox{path}", **kwargs)
        response.raise_for_status()
        return response.json()

    def sandbox_cpu(self) -> float:
        assert self.sandbox is not None and self.sandbox.process is not None
        return proc_cpu(self.sandbox.process.pid)

    def close(self) -> None:
        self.http.close()
        if self.sandbox is not None:
            self.sandbox.close()
        shutil.rmtree(self.home, ignore_errors=True)

    # --- cases -----------------------------------------------------------------------------

    def startup(self) -> None:
        """Start-up against `python -c pass`, ratios taken round by round."""
        cases = {
            "python -c pass": ([PY, "-c", "pass"], 0.0),
            "svc --version": ([SVC, "--version"], 1.5),
            "svc --help": ([SVC, "--help"], 8.0),
            "completion (svc __complete po)": ([SVC, "__complete", "po"], 3.0),
            "completion (svc __complete poll '')": ([SVC, "__complete", "poll", ""], 3.0),
        }
        samples = rounds({k: c for k, (c, _) in cases.items()}, self.env, self.args.runs, {})
        base = statistics.median(samples["python -c pass"])
        row("python -c pass", f"{base * 1000:.1f} ms")
        for name, (_, limit) in list(cases.items())[1:]:
            low, mid = ratios(samples, name, "python -c pass")
            t = statistics.median(samples[name])
            row(
                name,
                f"{t * 1000:.1f} ms = {mid:.2f}x python (min {low:.2f}x)",
                f"target <= {limit}x: {verdict(mid, limit)}",
            )

    def poll(self) -> None:
        """`svc poll ID --json` against a hygienic httpx script (httpx's CLI import blocked),
        in one interleaved run."""
        self.start_sandbox()
        task = json.loads(
            subprocess.run(
                [SVC, "submit", "bench poll #slow", "--email", "bench@example.com", "--json"],
                env=self.env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        url = f"{self.url}/svc/tasks/{task['id']}"
        cmds = {
            "bare": [PY, "-c", f"import httpx; print(httpx.get({url!r}).text)"],
            "hygienic": [
                PY,
                "-c",
                "import sys; sys.modules['httpx._main'] = None; import httpx; "
                f"print(httpx.get({url!r}).text)",
            ],
            "svc": [SVC, "poll", task["id"], "--json"],
        }
        if shutil.which("curl"):
            cmds["curl"] = ["curl", "-sf", url]
        samples = rounds(cmds, self.env, self.args.runs, {})
        med = {name: statistics.median(times) for name, times in samples.items()}
        row("bare httpx script", f"{med['bare'] * 1000:.1f} ms")
        row("bare httpx script, httpx CLI import blocked", f"{med['hygienic'] * 1000:.1f} ms")
        low, mid = ratios(samples, "svc", "hygienic")
        row(
            "svc poll ID --json (vs httpx CLI blocked)",
            f"{med['svc'] * 1000:.1f} ms = {mid:.2f}x (min {low:.2f}x)",
            f"target <= 1.5x: {verdict(mid, 1.5)}",
        )
        row("  (vs the bare httpx script)", f"{ratios(samples, 'svc', 'bare')[1]:.2f}x")
        if "curl" in med:
            row("curl", f"{med['curl'] * 1000:.1f} ms; svc = {med['svc'] / med['curl']:.1f}x curl")

    def submit(self) -> None:
        """A paid submit against the official x402 SDK client, interleaved."""
        self.start_sandbox()
        runs = max(3, self.args.runs // 2)
        cmds = {
            "svc": [
                *[SVC, "submit", "bench submit #slow", "--email", "bench@example.com"],
                *["--json", "--allow-duplicate"],  # the same task each round, on purpose
            ],
            "sdk": [
                PY,
                str(ROOT / "bench" / "x402_sdk_submit.py"),
                self.url,
                "bench sdk #slow",
                "bench@example.com",
            ],
        }
        sdk_env = {**self.env, "SVC_WALLET_KEY": TEST_KEY}
        samples = rounds(cmds, self.env, runs, {"sdk": sdk_env})
        low, mid = ratios(samples, "svc", "sdk")
        row(
            "x402 SDK client, same paid submit",
            f"{statistics.median(samples['sdk']) * 1000:.0f} ms",
        )
        row(
            "svc submit (x402 signed, ledger journaled)",
            f"{statistics.median(samples['svc']) * 1000:.0f} ms = {mid:.2f}x SDK (min {low:.2f}x)",
            f"target <= 0.6x: {verdict(mid, 0.6)}",
        )

    def batch(self) -> None:
        self.start_sandbox()
        n = self.args.tasks
        source = self.home / "batch.jsonl"
        stamp = int(time.time())
        source.write_text(
            "".join(
                json.dumps({"task": f"bench batch {stamp} {i} #slow", "email": f"b{i}@example.com"})
                + "\n"
                for i in range(n)
            )
        )
        cpu_before = self.sandbox_cpu()
        children_before = children_cpu()
        start = time.perf_counter()
        proc = subprocess.Popen(
            [SVC, "submit", "--from", str(source)],
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        out, err = proc.communicate()
        wall = time.perf_counter() - start
        usage = last_child_usage(proc)
        usage["cpu_s"] = children_cpu() - children_before
        sandbox_cpu = self.sandbox_cpu() - cpu_before
        lines = [json.loads(line) for line in out.splitlines()]
        ok = [d for d in lines if d.get("outcome") == "accepted"]
        self.batch_ids = [d["task_id"] for d in ok]
        self.batch_live = True
        rss_mb = usage["maxrss_mb"]
        row(
            f"batch: {n} tasks submitted and paid",
            f"{len(ok)} accepted in {wall:.1f} s, exit {proc.returncode}",
            "ok" if len(ok) == n and proc.returncode == 0 else "FAILED: " + err.strip()[-300:],
        )
        rate = len(ok) / wall
        row(
            "  client throughput",
            f"{rate:.0f} tasks/s (cpu {usage['cpu_s']:.1f} s)",
            f"target >= 300 tasks/s: {'ok' if rate >= 300 else 'MISSED'}",
        )
        row(
            "  sandbox throughput (its cpu per task)",
            f"{len(ok) / max(sandbox_cpu, 1e-9):.0f} tasks/s per core ({sandbox_cpu:.1f} s cpu)",
        )
        row("  client peak memory", f"{rss_mb:.0f} MB", f"target <= 100 MB: {verdict(rss_mb, 100)}")
        again_start = time.perf_counter()
        again = subprocess.run(
            [SVC, "submit", "--from", str(source)],
            env=self.env,
            capture_output=True,
            text=True,
            check=False,
        )
        skipped = sum(1 for line in again.stdout.splitlines() if '"already_accepted"' in line)
        row(
            "  re-run of the same file",
            f"{skipped} already accepted, 0 sent, {time.perf_counter() - again_start:.1f} s",
            "ok" if skipped == len(ok) else "FAILED",
        )

    def fleet(self) -> None:
        from fleet import fleet_case  # bench/fleet.py: starts PostgreSQL, only for this case

        fleet_case(self, row, verdict)

    def ledger(self) -> None:
        from ledger_bench import ledger_case  # bench/ledger_bench.py: a million rows

        ledger_case(self, row, verdict)

    # What bench/fleet.py and ledger_bench.py need of the bench: a runner's env, timing,
    # peak memory, the test key.
    svc = SVC
    key = TEST_KEY

    def env_for(self, home: Path) -> dict[str, str]:
        return {
            **self.env,
            "HOME": str(home),
            "SVC_CONFIG_DIR": str(home / "config"),
            "SVC_DATA_DIR": str(home / "data"),
        }

    def timed(self, cmd: list[str], env: dict[str, str], runs: int) -> float:
        return timed(cmd, env, runs)

    @staticmethod
    def peak_kb(pid: int) -> int:
        return vm_hwm_kb(pid)

    def watch(self) -> None:
        if not self.batch_ids:
            self.batch()
        baseline = self._watch_all([])
        # Issue 14: the same watch with an --exec hook on every change, over a fresh batch.
        self.batch()
        hooked = self._watch_all(["--exec", "true"])
        ratio = hooked / max(baseline, 1e-9)
        row(
            f"watch --exec true vs no hook ({len(self.batch_ids)} tasks, whole run, hooks incl.)",
            f"cpu {hooked:.2f} s vs {baseline:.2f} s: {ratio:.2f}x",
            f"target <= 2x: {verdict(ratio, 2)}",
        )
        # What each hook adds (svc's side and the `true` process together): the ratio above
        # also moves with the watch without hooks, which the cost of each poll decides.
        hooks = self.changes_seen
        row(
            "  CPU each hook adds (svc and the hook's own process)",
            f"{(hooked - baseline) / max(hooks, 1) * 1000:.2f} ms over {hooks} changes",
        )

    def async_watch(self) -> None:
        """Issue 32: `AsyncClient.watch_many` of the batch's tasks in one event loop, measured
        as the CLI's watch is (the same window, interval and targets)."""
        if not self.batch_live:
            self.batch()
        ids_path = self.home / "async-watch-ids.txt"
        ids_path.write_text("\n".join(self.batch_ids) + "\n")
        script = str(ROOT / "bench" / "async_watch.py")
        self._watch_all([], cmd=[PY, script, str(ids_path)], label="AsyncClient.watch_many")

    def _watch_all(
        self, extra: list[str], *, cmd: list[str] | None = None, label: str = ""
    ) -> float:
        """One `watch --all` (or `cmd`, printing the same NDJSON) over the batch's live tasks
        to the end; its whole cpu (with the hooks it ran and reaped)."""
        n = len(self.batch_ids)
        interval = 15.0
        seconds = self.args.watch_seconds
        before = children_cpu()
        start = time.perf_counter()
        # NDJSON to a file: a pipe nobody reads during the window would block the watcher.
        out_path = self.home / "watch.ndjson"
        out_file = out_path.open("w")
        proc = subprocess.Popen(
            cmd or [SVC, "watch", "--all", "--interval", str(interval), "--json", *extra],
            env={**self.env, "SVC_POLL_INTERVAL": str(interval)},
            stdout=out_file,
            stderr=subprocess.PIPE,
            text=True,
        )
        peak_kb = 0
        deadline = start + seconds
        while time.perf_counter() < deadline and proc.poll() is None:
            time.sleep(0.5)
            peak_kb = max(peak_kb, vm_hwm_kb(proc.pid))
        cpu = proc_cpu(proc.pid)
        window = time.perf_counter() - start
        share = cpu / window * 100
        label = label or " ".join(["watch", *extra])
        row(
            f"{label}: {n} live tasks, interval {interval:g} s",
            f"{window:.0f} s window, cpu {cpu:.2f} s",
            # A watch with hooks is judged by issue 14's ratio below, not by the watch's target.
            f"target <= 2.5% of a core: {share:.1f}% {verdict(share, 2.5)}"
            if not extra
            else f"{share:.1f}% of a core (hooks: see the ratio)",
        )
        row(
            "  peak memory",
            f"{peak_kb / 1024:.0f} MB",
            f"target <= 60 MB: {verdict(peak_kb / 1024, 60)}",
        )
        self.admin("POST", "/clock", json={"advance_seconds": 700})  # every #slow task completes
        self.batch_live = False
        try:
            _, err = proc.communicate(timeout=150)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        out_file.close()
        total = children_cpu() - before
        out = out_path.read_text()
        finals: dict[str, str] = {}
        for line in out.splitlines():
            doc = json.loads(line)
            finals[doc["id"]] = doc["state"]
        self.changes_seen = len(out.splitlines())  # one NDJSON line per change: one hook each
        done = sum(1 for tid in self.batch_ids if finals.get(tid) == "completed")
        row(
            "  all tasks followed to the end",
            f"{done}/{n} completed, exit {proc.returncode}",
            "ok" if done == n and proc.returncode == 0 else "FAILED: " + err.strip()[-300:],
        )
        gaps, polls = [], 0
        for tid in self.batch_ids:
            times = [parse_ts(t) for t in self.admin("GET", f"/tasks/{tid}")["poll_times"]]
            polls += len(times)
            gaps += [b - a for a, b in pairwise(times)]
        smallest = min(gaps) if gaps else float("inf")
        row(
            "  polls per task / smallest gap between two polls of a task",
            f"{polls / max(n, 1):.1f} / {smallest:.1f} s",
            f">= {interval:g} s: {'ok' if smallest >= interval else 'MISSED'}",
        )
        return total


def parse_ts(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def proc_cpu(pid: int) -> float:
    """User + system seconds of a live process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def vm_hwm_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


def last_child_usage(proc: subprocess.Popen[str]) -> dict[str, float]:
    """Peak memory and cpu of a child that was reaped by communicate(): from RUSAGE_CHILDREN.

    ru_maxrss over all children is the largest child so far; the batch process is by far
    the largest, so this is its peak.
    """
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"maxrss_mb": usage.ru_maxrss / 1024, "cpu_s": usage.ru_utime + usage.ru_stime}


def children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="fewer runs, 200 tasks, 30 s watch")
    parser.add_argument("--runs", type=int, help="runs per start-up case, median (15; quick 7)")
    parser.add_argument("--tasks", type=int, help="tasks in the batch (1000; --quick: 200)")
    parser.add_argument("--watch-seconds", type=float, help="watch window (90 s; --quick: 30)")
    parser.add_argument(
        "--only", default="startup,poll,submit,batch,watch,async_watch,fleet,ledger"
    )
    args = parser.parse_args()
    # --quick changes the defaults only: a figure given on the command line wins.
    quick = {"runs": 7, "tasks": 200, "watch_seconds": 30.0}
    full = {"runs": 15, "tasks": 1000, "watch_seconds": 90.0}
    for name, value in (quick if args.quick else full).items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    bench = Bench(args)
    try:
        for case in args.only.split(","):
            print(f"[{case}]", flush=True)
            getattr(bench, case.strip())()
    finally:
        bench.close()
    missed = [r for r in RESULTS if "MISSED" in r[2] or "FAILED" in r[2]]
    print(f"\n{len(RESULTS)} figures, {len(missed)} missed target(s)")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
