"""`pyright --verifytypes svc` scores svc's public types at least 95 % (issue 49.5).

A program type-checked against svc sees the types pyright sees: a public attribute, parameter or
return whose type a checker has to guess (an instance attribute assigned without an annotation,
a class attribute a subclass overrides with a narrower inferred type) counts against the score.
Pyright is the one pinned in tests/ts/package-lock.json (a dev dependency, installed by `npm ci`
in tests/ts as `make test` does), run on Node with this venv's `python` first on PATH, so it
finds svc through the editable install and its dependencies in site-packages (pyright 1.1.390's
`--verifytypes` ignores `--pythonpath`: it reports "No py.typed file found" with it);
`--ignoreexternal` leaves the dependencies' own gaps out of svc's score.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
TS = REPO / "tests" / "ts"
PYRIGHT = TS / "node_modules" / ".bin" / "pyright"
MIN_SCORE = 0.95
SHOWN = 30  # offenders listed when the score falls short


def pyright() -> list[str]:
    node = shutil.which("node")
    assert node and PYRIGHT.exists(), (
        "pyright is not installed: run `make test` (Node from Debian, then `npm ci` in tests/ts)"
    )
    return [node, str(PYRIGHT)]


def offenders(report: dict[str, Any]) -> str:
    """The exported symbols pyright counts against the score, grouped by the first line of its
    diagnostic, most frequent first, with a few of each."""
    by_message: dict[str, list[str]] = {}
    for symbol in report["typeCompleteness"]["symbols"]:
        if not symbol["isExported"]:
            continue
        for diagnostic in symbol["diagnostics"]:
            if diagnostic["severity"] == "error":
                first = diagnostic["message"].splitlines()[0]
                detail = " ".join(line.strip() for line in diagnostic["message"].splitlines()[1:2])
                key = f"{first} {detail}".strip()
                by_message.setdefault(key, []).append(symbol["name"])
    counts = Counter({message: len(names) for message, names in by_message.items()})
    lines = []
    for message, count in counts.most_common(SHOWN):
        names = by_message[message]
        more = f", ... ({count - 3} more)" if count > 3 else ""
        lines.append(f"{count:5d}  {message}: {', '.join(names[:3])}{more}")
    return "\n".join(lines)


@pytest.mark.timeout(300)
def test_public_types_are_complete() -> None:
    proc = subprocess.run(
        [
            *pyright(),
            "--verifytypes",
            "svc",
            "--ignoreexternal",
            "--outputjson",
        ],
        cwd=REPO,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
    )
    # Exit 1 only says the package is not 100 % complete; the JSON report is what counts.
    assert proc.stdout.strip(), (
        f"pyright printed no report (exit {proc.returncode}):\n{proc.stderr}"
    )
    report = json.loads(proc.stdout)
    completeness = report["typeCompleteness"]
    assert completeness.get("pyTypedPath"), (
        f"pyright did not find svc's py.typed: {report.get('generalDiagnostics')}"
    )
    assert completeness["packageRootDirectory"].startswith(str(REPO / "src")), completeness
    counts = completeness["exportedSymbolCounts"]
    score = completeness["completenessScore"]
    assert score >= MIN_SCORE, (
        f"pyright --verifytypes svc: {score:.1%} < {MIN_SCORE:.0%} "
        f"({counts['withKnownType']} known, {counts['withAmbiguousType']} ambiguous, "
        f"{counts['withUnknownType']} unknown); the offenders:\n{offenders(report)}"
    )
