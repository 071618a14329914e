"""In-process test scaffolding (issue 17.1): an isolated home, an `FaceContext` against the
sandbox whose output is captured, and a whole task object to vary. One place, so the `run`
tests of submit, reply and watch build their world the same way."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

from svc.settings import resolve
from svc.ui.face import FaceContext
from svc.ui.output import Output


def isolate_home(home: Path, monkeypatch: pytest.MonkeyPatch, *, person: bool = False) -> Path:
    """Point svc's config, data and secrets at `home`; `person`: drop CI and SVC_NO_INPUT,
    which CI runners set and which force no_input."""
    for name, sub in (("HOME", ""), ("SVC_CONFIG_DIR", "config"), ("SVC_DATA_DIR", "data")):
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("SVC_KEYRING", "file")
    if person:
        for name in ("CI", "SVC_NO_INPUT"):
            monkeypatch.delenv(name, raising=False)
    return home


def captured(
    base_url: str, *, person: bool = False
) -> tuple[FaceContext, io.StringIO, io.StringIO]:
    """An FaceContext in JSON mode whose stdout and stderr are kept; `person`: prompts allowed."""
    out, err = io.StringIO(), io.StringIO()
    settings = resolve(
        base_url=base_url, json_output=True, no_input=not person, stdin_is_tty=person
    )
    return FaceContext(settings, Output(json_mode=True, stdout=out, stderr=err)), out, err


def task_doc(**changes: Any) -> dict[str, Any]:
    """A task object with every member the spec lists, then `changes`."""
    doc: dict[str, Any] = {
        "id": "task_1",
        "state": "pending",
        "goal": "g",
        "flow": "standard",
        "max_budget_usd": None,
        "webhook_url": None,
        "result": None,
        "error": None,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
        "completed_at": None,
    }
    return doc | changes
