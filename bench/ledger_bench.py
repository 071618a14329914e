"""`make bench`'s ledger case (issue 34.5): `svc spend`, `svc tasks` (its filters in SQL),
`svc doctor` and a paid submit on a ledger of 1,000,000 charges against an empty one,
interleaved, so a ratio is measured in one run.

The history is written in bulk (tests/ledger_fill.py), 40 to 400 days old: a year of a busy
fleet, older than `svc spend`'s default window. Target: within 1.5x of the empty ledger.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ROWS = 1_000_000
TARGET = 1.5


def _noon(days_ago: int) -> float:
    day = date.today() - timedelta(days=days_ago)
    return datetime.combine(day, datetime.min.time()).timestamp() + 12 * 3600


def ledger_case(
    bench: Any, row: Callable[..., None], verdict: Callable[[float, float], str]
) -> None:
    sys.path.insert(0, str(ROOT))  # tests/ledger_fill.py
    from tests.ledger_fill import fill, spread

    bench.start_sandbox()
    homes = {name: bench.home / f"ledger-{name}" for name in ("empty", "big")}
    envs = {
        name: {**bench.env_for(home), "SVC_WALLET_KEY": bench.key} for name, home in homes.items()
    }
    began = time.perf_counter()
    fill(homes["empty"] / "data" / "ledger.sqlite3", [])
    fill(homes["big"] / "data" / "ledger.sqlite3", spread(ROWS, _noon(400), _noon(40)))
    row("ledger: 1,000,000 charges written", f"{time.perf_counter() - began:.1f} s")
    runs = max(3, bench.args.runs // 3)
    spend = [bench.svc, "spend", "--json"]
    submit = [bench.svc, "submit", "bench ledger #slow", "--email", "bench@example.com"]
    submit += ["--json", "--allow-duplicate"]  # the same task each round, on purpose
    tasks = [bench.svc, "tasks", "--state", "completed", "--json"]
    doctor = [bench.svc, "doctor", "--json"]
    cases = (("svc spend", spend), ("svc tasks --state", tasks), ("svc doctor", doctor))
    for case, cmd in (*cases, ("paid submit", submit)):
        took: dict[str, list[float]] = {"empty": [], "big": []}
        for _ in range(runs):  # interleaved: load on the machine falls on both
            for name, samples in took.items():
                samples.append(bench.timed(cmd, envs[name], 1))
        empty, big = (statistics.median(took[n]) for n in ("empty", "big"))
        row(
            f"{case}: 1,000,000-row ledger vs empty",
            f"{big * 1000:.0f} vs {empty * 1000:.0f} ms = {big / empty:.2f}x",
            f"target <= {TARGET}x: {verdict(big / empty, TARGET)}",
        )
