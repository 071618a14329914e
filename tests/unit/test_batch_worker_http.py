"""A batch's workers each send through an HTTP client of their own (issue 34, batch row).

httpcore's pool checks every idle connection of a pool (a socket poll each) on each request,
under one lock: one pool shared by a batch's eight threads made every request pay for eight
connections. Each worker's client is built by the same rules as the command's (the cleartext
guard, the answer's size cap, the deadline), and is closed when its worker ends."""

from __future__ import annotations

import io
import queue
import threading
from pathlib import Path
from typing import Any

import pytest

import svc.engines.batch as batch
from svc.context import AppContext
from svc.engines.batch import Options, _Results, _SharedSecrets, _work
from svc.engines.batch_file import Line
from svc.settings import resolve
from svc.ui.batch import BatchLines
from svc.ui.output import Output


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppContext:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("SVC_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SVC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SVC_KEYRING", "file")
    monkeypatch.setenv("SVC_MAX_RESPONSE_BYTES", "4096")
    settings = resolve(base_url="http://127.0.0.1:9", stdin_is_tty=False)
    return AppContext(settings, Output(stdout=io.StringIO(), stderr=io.StringIO()))


def test_each_worker_sends_through_its_own_client_closed_when_it_ends(
    app: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Any] = []
    started = threading.Barrier(2, timeout=10)  # both workers hold a line at once

    def record(ctx: AppContext, line: Line, results: _Results, options: Options) -> None:
        seen.append(ctx.http)
        assert ctx.tasks.http is ctx.http  # the task client sends through it too
        started.wait()

    monkeypatch.setattr(batch, "_submit_line", record)
    results = _Results(BatchLines(Output(json_mode=True, stdout=io.StringIO())))
    jobs: queue.Queue[Line | None] = queue.Queue()
    for number in (1, 2):
        jobs.put(Line(number, {"task": "t", "email": "a@example.com"}, f"req_own_http_{number}"))
    jobs.put(None)
    jobs.put(None)
    secrets = _SharedSecrets(app.secrets, app.report.warn)
    args = (app, secrets, jobs, results, Options())
    workers = [threading.Thread(target=_work, args=args) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(10)

    first, second = seen
    assert first is not second and app.http not in (first, second)
    for http in (first, second):
        assert http.client.is_closed  # the worker closed what it opened
        # the command's rules, not a bare client: no cleartext proof, the same size cap
        assert http.cleartext.allowed is app.settings.allow_insecure_http is False
        assert http.max_response_bytes == app.http.max_response_bytes == 4096
    assert not app.http.client.is_closed  # the command's own client is the command's to close
    app.close()
