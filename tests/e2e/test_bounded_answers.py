"""Every answer is bounded in memory, time and depth, and ids are ids (issue 13, items 3 and 4).

`svc` runs as a subprocess against a small loopback server (tests/loopback.py) that answers
what the sandbox never would: a gzip bomb, an answer trickling one byte every half second, JSON
nested 100,000 deep. Ids that are not ids are refused before a single request is sent.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from urllib.parse import unquote

import pexpect
import pytest
from tests.conftest import SVC, Result, _base_env
from tests.inproc import task_doc
from tests.loopback import Loopback, bomb, nested, send, trickle

from svc.api.jsonsafe import MAX_JSON_DEPTH

pytestmark = pytest.mark.e2e

RSS_BOUND_KB = 150 * 1024
TIMEOUT = 2.0  # SVC_TIMEOUT for the trickle rows
ATTEMPTS = 4  # RetryPolicy's attempts: a read that times out is retried like any other
# The full-jitter backoff between the 4 attempts waits at most 0.25 + 0.5 + 1.0 s.
BACKOFF_MAX = 0.25 + 0.5 + 1.0
# Start-up, a loaded 2-core machine, the trickle's half-second granularity: generous, and
# still far below the minute the trickle would otherwise last.
MARGIN = 5.0  # start-up and backoff on a loaded 2-core machine
TASK = task_doc(id="task_x", state="completed", goal="Bounded", flow=None)

# Runs a command and reports the peak RSS of its process tree's largest member. A fresh
# interpreter per run, so that no other child of pytest's own process pollutes the figure;
# the address space is capped at 2 GiB so that a regression fails instead of eating the
# machine (without the fix, `svc poll` reached 2.15 GB).
MEASURE = """
import json, resource, subprocess, sys
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
p = subprocess.run(sys.argv[1:], capture_output=True, text=True, preexec_fn=cap)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"rc": p.returncode, "out": p.stdout, "err": p.stderr, "peak_kb": peak}))
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


def run(home: Path, url: str, *args: str, **env: str) -> tuple[Result, float]:
    """`svc ARGS` against `url`; the result and its wall time in seconds."""
    full_env = {**_base_env(home), "SVC_BASE_URL": url, **env}
    started = time.monotonic()
    proc = subprocess.run(
        [SVC, *args], capture_output=True, text=True, env=full_env, timeout=90, check=False
    )
    elapsed = time.monotonic() - started
    return Result([SVC, *args], proc.returncode, proc.stdout, proc.stderr), elapsed


def one_line(stderr: str) -> str:
    """The one `svc:` line of a failure (a `hint:` line may follow); never a traceback."""
    assert "Traceback" not in stderr, stderr
    assert "internal error" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("svc: ")]
    assert len(errors) == 1 and all(line.startswith(("svc: ", "hint: ")) for line in lines), stderr
    return errors[0]


# --- memory: a gzip bomb -----------------------------------------------------------------


@pytest.fixture(params=["gzip", "deflate"])
def bomb_server(request: pytest.FixtureRequest) -> Iterator[Loopback]:
    payload = bomb(request.param)
    assert len(payload) < 2 << 20  # ~1 MiB on the wire, far under the 16 MiB cap

    def answer(handler: BaseHTTPRequestHandler) -> None:
        send(handler, payload, headers={"Content-Encoding": request.param})

    with Loopback(answer) as server:
        yield server


def test_a_gzip_bomb_is_refused_within_the_cap_not_inflated(
    home: Path, bomb_server: Loopback
) -> None:
    env = {**_base_env(home), "SVC_BASE_URL": bomb_server.url}
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", MEASURE, SVC, "poll", "task_x"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    elapsed = time.monotonic() - started
    report = json.loads(proc.stdout)
    print(f"bomb: peak RSS {report['peak_kb'] / 1024:.1f} MiB, {elapsed:.2f} s")
    assert report["rc"] == 1, report["err"]
    line = one_line(report["err"])
    assert "larger than" in line and "refusing" in line, line
    assert json.loads(report["out"])["error"] == "response_too_large"
    assert report["peak_kb"] < RSS_BOUND_KB, f"peak RSS {report['peak_kb']} KiB"
    assert bomb_server.requests == [("GET", "/svc/tasks/task_x")]  # a read: not retried


def test_a_compressed_answer_within_the_cap_still_reads(home: Path) -> None:
    import gzip

    body = gzip.compress(json.dumps(TASK).encode())

    def answer(handler: BaseHTTPRequestHandler) -> None:
        send(handler, body, headers={"Content-Encoding": "gzip"})

    with Loopback(answer) as server:
        result, _ = run(home, server.url, "--json", "poll", "task_x")
    assert result.returncode == 0, result.stderr
    assert result.json() == TASK


# --- time: an answer that trickles -------------------------------------------------------


@pytest.mark.parametrize("in_headers", [False, True], ids=["body", "headers"])
def test_a_trickling_read_ends_within_the_bound_and_is_retried(
    home: Path, in_headers: bool
) -> None:
    server: Loopback

    def answer(handler: BaseHTTPRequestHandler) -> None:
        trickle(server, handler, in_headers=in_headers)

    with Loopback(answer) as server:
        result, elapsed = run(home, server.url, "poll", "task_x", SVC_TIMEOUT=str(TIMEOUT))
        sent = list(server.requests)
    bound = TIMEOUT * ATTEMPTS + BACKOFF_MAX + MARGIN
    print(f"trickle ({'headers' if in_headers else 'body'}): {elapsed:.2f} s, bound {bound} s")
    assert result.returncode == 9, result.stderr
    line = one_line(result.stderr)
    assert "timed out" in line and f"after {ATTEMPTS} attempts" in line, line
    assert sent == [("GET", "/svc/tasks/task_x")] * ATTEMPTS
    # Each attempt is cut at SVC_TIMEOUT, not at the minute the trickle would last; and not
    # much sooner either (the deadline is the whole answer, not a fraction of it).
    assert TIMEOUT * ATTEMPTS <= elapsed < bound


def test_a_trickling_reply_is_not_resent_and_may_have_been_applied(home: Path) -> None:
    server: Loopback
    blocked = {**TASK, "state": "blocked_on_user"}

    def answer(handler: BaseHTTPRequestHandler) -> None:
        if handler.command == "GET":
            send(handler, json.dumps(blocked).encode())
        else:
            trickle(server, handler, in_headers=False)

    with Loopback(answer) as server:
        result, elapsed = run(
            home, server.url, "reply", "task_x", "--message", "x", SVC_TIMEOUT=str(TIMEOUT)
        )
        sent = list(server.requests)
    print(f"trickle (reply): {elapsed:.2f} s")
    assert result.returncode == 9, result.stderr
    assert "may or may not have been applied" in one_line(result.stderr)
    assert sent == [("GET", "/svc/tasks/task_x"), ("POST", "/svc/tasks/task_x/reply")]
    assert TIMEOUT <= elapsed < TIMEOUT * 2 + MARGIN  # the poll was quick; the reply, one bound


# --- depth: nested JSON ------------------------------------------------------------------


def _serving(body: str) -> Loopback:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        send(handler, body.encode())

    return Loopback(answer)


@pytest.mark.parametrize(
    "body",
    [nested(100_000), '{"a":' * 100_000 + "1" + "}" * 100_000, "[" * 100_000],
    ids=["arrays", "objects", "unclosed"],
)
@pytest.mark.parametrize("fastpath", [True, False], ids=["fastpath", "full-app"])
def test_json_nested_100000_deep_is_an_unreadable_answer(
    home: Path, body: str, fastpath: bool
) -> None:
    env = {} if fastpath else {"SVC_NO_FASTPATH": "1"}
    with _serving(body) as server:
        result, _ = run(home, server.url, "poll", "task_x", **env)
    assert result.returncode == 1, result.stderr
    line = one_line(result.stderr)
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in line, line
    assert result.json()["error"] == "bad_response"


def test_json_nested_to_the_bound_reads_and_renders(home: Path) -> None:
    """Depth exactly MAX_JSON_DEPTH (the task object is level 1) is accepted, printed exactly
    in JSON and drawn on a terminal; brackets inside strings are text, not nesting."""
    output = json.loads(nested(MAX_JSON_DEPTH - 2))
    task = {**TASK, "result": {"output": output}, "note": "[{" * 100_000 + '\\"[['}
    body = json.dumps(task)
    with _serving(body) as server:
        result, _ = run(home, server.url, "--json", "poll", "task_x")
        assert result.returncode == 0, result.stderr
        assert result.json() == task
        env = {k: v for k, v in _base_env(home).items() if k != "CI"}
        env["SVC_BASE_URL"] = server.url
        child = pexpect.spawn(SVC, ["poll", "task_x"], env=env, encoding="utf-8", timeout=30)
        screen = child.read()
        child.close()
    assert child.exitstatus == 0, screen
    assert "completed" in screen and "Traceback" not in screen and "error" not in screen
    deeper = json.dumps({**TASK, "result": {"output": json.loads(nested(MAX_JSON_DEPTH - 1))}})
    with _serving(deeper) as server:
        result, _ = run(home, server.url, "poll", "task_x")
    assert result.returncode == 1 and "nested deeper" in one_line(result.stderr)


# --- ids -----------------------------------------------------------------------------------

BAD_IDS = ["", ".", "..", "a/b", "a b", "task?x=1", "t#1", "é", "a\x1b]0;x\x07", "x" * 257]


@pytest.fixture
def no_server() -> Iterator[Loopback]:
    """A server that answers anything: a test asserts it received nothing."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        asked = unquote(handler.path.split("/")[3]) if handler.path.count("/") >= 3 else "x"
        send(handler, json.dumps({**TASK, "id": asked}).encode())  # about the task asked

    with Loopback(answer) as server:
        yield server


COMMANDS = {
    "poll": ["poll", "{}"],
    "poll-json": ["--json", "poll", "{}"],
    "reply": ["reply", "{}", "--message", "x"],
    "watch": ["watch", "{}"],
    "watch-two": ["watch", "task_ok", "{}"],  # the good id is not polled before the bad one
}
# Every bad id on the poll fast path; the cases of the issue on every command.
CASES = [("poll", bad) for bad in BAD_IDS] + [
    (command, bad) for command in COMMANDS if command != "poll" for bad in ("", ".", "..", "a/b")
]


@pytest.mark.parametrize(("command", "bad"), CASES, ids=[f"{c}-{b!r}" for c, b in CASES])
def test_an_id_that_is_not_one_is_refused_before_anything_is_sent(
    home: Path, no_server: Loopback, command: str, bad: str
) -> None:
    args = [bad if arg == "{}" else arg for arg in COMMANDS[command]]
    result, _ = run(home, no_server.url, *args)
    assert result.returncode == 2, (args, result.stderr)
    line = one_line(result.stderr)
    assert line.startswith("svc: invalid ID ") and "\x1b" not in line, line
    assert no_server.requests == []


def test_the_full_app_refuses_them_too(home: Path, no_server: Loopback) -> None:
    for bad in ("", ".", ".."):
        result, _ = run(home, no_server.url, "poll", bad, SVC_NO_FASTPATH="1")
        assert result.returncode == 2 and "invalid ID" in one_line(result.stderr)
    assert no_server.requests == []


def test_a_service_slug_that_is_a_dot_segment_is_refused(home: Path, no_server: Loopback) -> None:
    for bad in (".", ".."):
        result, _ = run(home, no_server.url, "services", "show", bad)
        assert result.returncode == 2 and "invalid SLUG" in one_line(result.stderr)
    assert no_server.requests == []


def test_every_id_character_is_sent_inside_its_own_path_segment(
    home: Path, no_server: Loopback
) -> None:
    for task_id in ("task.v1", "ns:task-1_a", "..."):
        result, _ = run(home, no_server.url, "--json", "poll", task_id)
        assert result.returncode == 0, result.stderr
    # ':' is percent-encoded; '.' needs not be, once '.' and '..' alone are refused.
    assert [path for _, path in no_server.requests] == [
        "/svc/tasks/task.v1",
        "/svc/tasks/ns%3Atask-1_a",
        "/svc/tasks/...",
    ]
