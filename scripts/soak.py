"""`make soak`: the long randomized runs of issue 6, kept out of `make test`.

* parser fuzzing with SVC_FUZZ_EXAMPLES (default 3000 per property; the poll fuzz runs 1/12);
* the crash-safety tests repeated ROUNDS times (SIGKILL at every step, x402 and MPP);
* the payment fault storm over SVC_STORM_SUBMISSIONS (default 1000) paid submissions;
* the fault matrix once more.

The figures replace the soak section of docs/reliability.md (between its markers); the rest of
the document is `make test`'s. Exit status: non-zero if any run failed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.reliability_report import DOC, SOAK_BEGIN, SOAK_END  # noqa: E402

ROUNDS = int(os.environ.get("SOAK_CRASH_ROUNDS", "5"))
FUZZ = os.environ.get("SVC_FUZZ_EXAMPLES", "3000")
STORM = os.environ.get("SVC_STORM_SUBMISSIONS", "1000")


def run(label: str, args: list[str], env: dict[str, str]) -> tuple[bool, float]:
    print(f"soak: {label}", flush=True)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=ROOT, env=env, check=False)
    return done.returncode == 0, time.monotonic() - start


def rows(directory: Path, part: str) -> list[dict[str, object]]:
    return [json.loads(p.read_text())["row"] for p in sorted(directory.glob(f"{part}@*.json"))]


def main() -> int:
    results: list[str] = []
    ok_all = True
    fuzz_dir = Path(tempfile.mkdtemp(prefix="svc-soak-"))
    env = {**os.environ, "SVC_RELIABILITY_DIR": str(fuzz_dir), "SVC_FUZZ_EXAMPLES": FUZZ}
    ok, secs = run("fuzz", ["tests/unit/test_fuzz_parsers.py", "tests/e2e/test_poll_fuzz.py"],
                   env)
    ok_all &= ok
    fuzz = rows(fuzz_dir, "fuzz")
    total = sum(int(str(r["examples"])) for r in fuzz)
    results.append(f"| parser fuzzing ({len(fuzz)} properties) | {total} examples | "
                   f"{secs:.0f} s | {'pass' if ok else 'FAIL'} |")

    survived = doubles = 0
    crash_ok = True
    crash_secs = 0.0
    for i in range(ROUNDS):
        crash_dir = Path(tempfile.mkdtemp(prefix="svc-soak-crash-"))
        ok, secs = run(f"crash round {i + 1}/{ROUNDS}", ["tests/e2e/test_crash_safety.py"],
                       {**os.environ, "SVC_RELIABILITY_DIR": str(crash_dir)})
        crash_ok &= ok
        crash_secs += secs
        crash = rows(crash_dir, "crash_safety")
        survived += sum(1 for r in crash if r["passed"])
        doubles += sum(int(str(r["double_charges"])) for r in crash)
        doubles += sum(int(str(r["double_charges"])) for r in rows(crash_dir, "ledger_concurrency"))
    ok_all &= crash_ok
    results.append(f"| crash safety x{ROUNDS} (+ parallel ledger writers) | {survived} crashes "
                   f"survived, {doubles} double charges | {crash_secs:.0f} s | "
                   f"{'pass' if crash_ok and not doubles else 'FAIL'} |")

    ok, secs = run(f"payment fault storm ({STORM} submissions)",
                   ["tests/e2e/test_payment_fault_storm.py"],
                   {**os.environ, "SVC_STORM_SUBMISSIONS": STORM})
    ok_all &= ok
    results.append(f"| payment fault storm | {STORM} paid submissions, 0 double charges "
                   f"(asserted) | {secs:.0f} s | {'pass' if ok else 'FAIL'} |")

    matrix_dir = Path(tempfile.mkdtemp(prefix="svc-soak-matrix-"))
    ok, secs = run("fault matrix", ["tests/e2e/test_fault_matrix.py"],
                   {**os.environ, "SVC_RELIABILITY_DIR": str(matrix_dir)})
    ok_all &= ok
    matrix = rows(matrix_dir, "fault_matrix")
    results.append(f"| fault matrix again | {sum(1 for r in matrix if r['passed'])} of "
                   f"{len(matrix)} rows passed | {secs:.0f} s | {'pass' if ok else 'FAIL'} |")

    block = "\n".join([
        SOAK_BEGIN,
        f"Last `make soak`: {time.strftime('%Y-%m-%d')}, SVC_FUZZ_EXAMPLES={FUZZ}, "
        f"SOAK_CRASH_ROUNDS={ROUNDS}, SVC_STORM_SUBMISSIONS={STORM}.",
        "",
        "| run | figures | time | pass |",
        "|---|---|---|---|",
        *results,
        SOAK_END,
    ])
    text = DOC.read_text()
    start, end = text.find(SOAK_BEGIN), text.find(SOAK_END)
    if start >= 0 and end > start:
        text = text[:start] + block + text[end + len(SOAK_END):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    DOC.write_text(text)
    print("\n".join(results))
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
