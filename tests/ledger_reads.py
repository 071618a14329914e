"""Tests read the client's ledger through `svc.store.ledger.Ledger`, never with SQL (issue
17.4): a schema change then breaks only the tests that are about the schema."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from svc.store.ledger import Ledger, Submission


def ledger_file(home: Path) -> Path:
    """Where the `svc` under test (HOME/XDG isolated by the cli fixture) keeps its ledger."""
    return home / "data" / "ledger.sqlite3"


@contextmanager
def opened(path: Path) -> Iterator[Ledger]:
    ledger = Ledger(path)
    try:
        yield ledger
    finally:
        ledger.close()


def submissions(path: Path) -> list[Submission]:
    with opened(path) as ledger:
        return ledger.submissions()


def submission_row(path: Path, request_id: str) -> dict[str, Any]:
    """One submission as a plain dict ({} when the ledger has no such request)."""
    with opened(path) as ledger:
        row = ledger.get(request_id)
    return asdict(row) if row else {}
