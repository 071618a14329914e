"""The follower engine (`svc.engines.watch`) in-process against the loopback sandbox: what
following yields (`TaskChange`), where it stops, and that it presents nothing itself (issue 32:
engines return data; `svc watch`, svc mcp and the Python client present it)."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.import_graph import import_graph
from tests.inproc import captured, isolate_home

from svc.context import AppContext
from svc.engines.changes import TaskChange
from svc.engines.watch import Follower, follow
from svc.engines.watch_parts import ledger_states, ledger_view, live_task_ids
from svc.errors import NotFound

INTERVAL = 0.2


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    isolate_home(tmp_path / "inproc", monkeypatch)
    return tmp_path


def submit(cli: Cli, text: str) -> str:
    return str(cli.ok("submit", text, "--email", unique_email()).json()["id"])


def silent(out: io.StringIO, err: io.StringIO) -> None:
    assert out.getvalue() == "" and err.getvalue() == "", "the engine presented something"


def kinds(changes: list[TaskChange]) -> list[str]:
    return [change.kind for change in changes]


def polls_of(sandbox: Sandbox, task_id: str) -> int:
    seen = sandbox.admin("GET", "/requests")["requests"]
    return sum(1 for r in seen if r["method"] == "GET" and r["path"].endswith(f"/{task_id}"))


def test_a_slow_task_yields_its_state_then_its_end(cli: Cli, sandbox: Sandbox, home: Path) -> None:
    task_id = submit(cli, "Take your time #slow")
    app, out, err = captured(sandbox.url)
    changes: list[TaskChange] = []
    for change in follow(app, task_id, INTERVAL):
        changes.append(change)
        if change.kind == "state":
            sandbox.advance(601)  # the slow work ends while the follower polls on
    assert kinds(changes) == ["event", "state", "event", "final"]
    created, pending, moved, final = changes
    assert created.event is not None and created.event["type"] == "created"
    assert (pending.previous, pending.state, pending.moved) == (None, "pending", True)
    assert moved.event is not None and moved.event["to_state"] == "completed"
    assert (final.previous, final.state, final.task["id"]) == ("pending", "completed", task_id)
    silent(out, err)
    app.close()


def test_a_2fa_task_stops_at_its_ask_and_is_not_polled_again(
    cli: Cli, sandbox: Sandbox, home: Path
) -> None:
    task_id = submit(cli, "Log in #2fa")
    sandbox.advance(11)
    app, out, err = captured(sandbox.url)
    changes = list(follow(app, [task_id], INTERVAL))
    assert kinds(changes)[-1] == "ask" and set(kinds(changes)[:-1]) == {"event"}
    ask = changes[-1]
    assert ask.state == "blocked_on_user" and ask.previous is None
    assert [c.event["type"] for c in changes[:-1] if c.event] == [
        "created",
        "state_changed",
        "input_requested",
    ]
    assert polls_of(sandbox, task_id) == 1  # the ask ended the following: no poll after it
    silent(out, err)
    app.close()


def test_a_follower_that_does_not_stop_at_an_ask_sees_the_answer_move_the_task(
    cli: Cli, sandbox: Sandbox, home: Path
) -> None:
    """The caller decides: a face that answers the ask keeps the task followed."""
    task_id = submit(cli, "Log in #2fa")
    sandbox.advance(11)
    app, _, _ = captured(sandbox.url)
    with Follower(app, [task_id], INTERVAL, stop_at_ask=False) as follower:
        while "ask" not in kinds(follower.step()):
            pass
        while (follower.last_answer(task_id) or ({}, 0))[1] < 3:  # polled on, nothing new
            assert follower.step() == []
        cli.ok("reply", task_id, "--field", "sms_code", "--value-file", "-", input="123456\n")
        after = follower.step()
        while not after:
            after = follower.step()
    assert after[-1].kind == "state" and (after[-1].previous, after[-1].state) == (
        "blocked_on_user",
        "pending",
    )
    app.close()


def test_an_unknown_ledger_id_is_gone_and_the_others_are_followed(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = submit(cli, "Still known #complete")
    forgot = submit(cli, "Forgotten #complete")
    sandbox.advance(30)
    # What a restarted sandbox answers for a task it no longer has.
    sandbox.faults({"kind": "status", "status": 404, "path": f"/svc/tasks/{forgot}", "count": 50})
    isolate_home(cli.home, monkeypatch)  # the ledger the submits wrote
    app, out, err = captured(sandbox.url)
    ledger_ids = live_task_ids(app)
    assert set(ledger_ids) == {done, forgot}
    changes = list(follow(app, ledger_ids, INTERVAL, from_ledger=ledger_ids))
    gone = [c for c in changes if c.kind == "gone"]
    assert [(c.task_id, c.task) for c in gone] == [(forgot, {"id": forgot, "state": "gone"})]
    assert [c.state for c in changes if c.task_id == done][-1] == "completed"
    states = {row["task_id"]: row["state"] for row in cli.ok("tasks", "--json").json()}
    assert states == {done: "completed", forgot: "gone"}  # the ledger's cache, kept by the engine
    silent(out, err)
    with pytest.raises(NotFound):  # an id the caller named stays not found
        list(follow(app, [forgot], INTERVAL))
    app.close()


def test_watch_all_reads_the_ledger_rows_once(
    cli: Cli, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ledger_view` gives the live ids and the known states of one read, the same as the two
    reads it replaces; a follower handed those states reads no row at its start."""
    live = submit(cli, "Live #slow")
    done = submit(cli, "Done #complete")
    sandbox.advance(30)
    cli.ok("poll", done)  # the ledger's cache now says completed
    isolate_home(cli.home, monkeypatch)
    app, out, err = captured(sandbox.url)
    view = ledger_view(app)
    assert view.live == live_task_ids(app) == [live]
    assert view.states == ledger_states(app) and view.states[done] == "completed"
    reads: list[int] = []
    rows = app.ledger.submissions

    def counted(**kw: Any) -> Any:
        reads.append(1)
        return rows(**kw)

    monkeypatch.setattr(app.ledger, "submissions", counted)
    with Follower(app, view.live, INTERVAL, known_states=view.states) as follower:
        follower.start()
        assert reads == [] and follower.step(5.0)[-1].task_id == live
    with Follower(app, view.live, INTERVAL) as follower:  # without them: read as before
        follower.start()
        assert reads == [1]
    silent(out, err)
    app.close()


def test_many_tasks_share_one_schedule(cli: Cli, sandbox: Sandbox, home: Path) -> None:
    """The first polls are spread over one interval, and two polls of one task are never
    closer than the interval: lower bounds, so a busy machine cannot make them fail."""
    ids = [submit(cli, f"Many {n} #complete") for n in range(4)]
    interval = 0.5
    app, _, _ = captured(sandbox.url)
    answers: dict[str, list[float]] = {tid: [] for tid in ids}
    finals: list[str] = []
    advanced = False
    started = time.monotonic()
    with Follower(app, ids, interval) as follower:
        while follower.following:
            changes = follower.step()
            for tid in ids:
                count = (follower.last_answer(tid) or ({}, 0))[1]
                if count > len(answers[tid]):
                    answers[tid].append(time.monotonic())
            finals += [c.task_id for c in changes if c.kind == "final"]
            if not advanced and all(len(times) >= 2 for times in answers.values()):
                sandbox.advance(30)  # every task polled twice: let them all end
                advanced = True
    assert sorted(finals) == sorted(ids)  # each ends once, and the following with them
    for n, tid in enumerate(ids):
        assert answers[tid][0] - started >= interval * n / len(ids) - 0.01
        gaps = [b - a for a, b in zip(answers[tid], answers[tid][1:], strict=False)]
        assert gaps and min(gaps) >= interval - 0.05, gaps
    app.close()


def test_the_following_engines_import_nothing_that_presents() -> None:
    graph = import_graph("svc", deferred=True)
    engines = [
        "svc.engines.watch",
        "svc.engines.watch_parts",
        "svc.engines.poll",
        "svc.engines.schedule",
        "svc.engines.changes",
    ]
    for name in engines:
        reach, todo = set(), [name]
        while todo:
            for dep in graph[todo.pop()] - reach:
                reach.add(dep)
                todo.append(dep)
        assert not {m for m in reach if m.startswith(("svc.ui", "svc.commands", "svc.cli"))}, name


def test_each_id_is_followed_once_at_the_profiles_interval(sandbox: Sandbox, home: Path) -> None:
    app: AppContext = captured(sandbox.url)[0]
    follower = Follower(app, ["tsk_a", "tsk_a", "tsk_b"])
    assert follower.task_ids == ["tsk_a", "tsk_b"]  # one schedule, each id once
    assert follower.interval.seconds == app.settings.default_poll_interval()
    assert not follower.interval.raised
    follower.close()  # never started: nothing to stop
    with Follower(app, []) as idle:  # nothing to follow: a step returns at once, timeout or not
        started = time.monotonic()
        assert not idle.following and idle.step(5.0) == [] and list(idle.changes()) == []
        assert time.monotonic() - started < 2
    app.close()
