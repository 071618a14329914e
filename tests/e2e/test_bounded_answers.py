"""Every answer is bounded in memory, time and depth, and ids are ids (issue 13, items 3 and 4).

`svc` runs against a small loopback server (tests/loopback.py) that answers what the sandbox
never would: a gzip bomb, an answer trickling one byte at a time, JSON nested 100,000 deep. Ids
that are not ids are refused before a single request is sent.

What only a process shows runs as one: peak memory (each measured in a fresh interpreter), a
pty, and JSON nested to the bound (the room left for the call stack is a real process's).
The rest runs `svc` in this process through its entry point (tests/inproc.py): the same argv,
environment, streams and exit code, without a start-up per call (issue 34.6).
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
from tests.inproc import run_main, task_doc
from tests.loopback import Loopback, bomb, nested, send, trickle

from svc.api.jsonsafe import MAX_JSON_DEPTH

pytestmark = pytest.mark.e2e

RSS_BOUND_KB = 150 * 1024
TIMEOUT = 1.0  # SVC_TIMEOUT for the trickle rows
# The trickle's gap between bytes: a quarter of TIMEOUT (as tests/loopback.trickle's half
# second is of 2 s), so only a deadline on the whole answer cuts it, never one per read.
GAP = TIMEOUT / 4
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


def run(
    home: Path, url: str, *args: str, process: bool = False, **env: str
) -> tuple[Result, float]:
    """`svc ARGS` against `url`, in this process unless `process`; the result and its wall
    time in seconds."""
    full_env = {**_base_env(home), "SVC_BASE_URL": url, **env}
    started = time.monotonic()
    if process:
        proc = subprocess.run(
            [SVC, *args], capture_output=True, text=True, env=full_env, timeout=90, check=False
        )
        code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    else:
        code, stdout, stderr = run_main(list(args), full_env, None, program=SVC)
    elapsed = time.monotonic() - started
    return Result([SVC, *args], code, stdout, stderr), elapsed


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
        trickle(server, handler, in_headers=in_headers, gap=GAP)

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
def test_json_nested_100000_deep_is_an_unreadable_answer(home: Path, body: str) -> None:
    with _serving(body) as server:
        result, _ = run(home, server.url, "poll", "task_x")
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
        result, _ = run(home, server.url, "--json", "poll", "task_x", process=True)
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
        result, _ = run(home, server.url, "poll", "task_x", process=True)
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
        result, _ = run(home, no_server.url, "poll", bad)
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


# --- memory: a listing of endless huge pages (issue 30.16) ---------------------------------

PAGE_OPS = 10  # the spec's page size
PAD = 1_600_000  # one operation's description: ten make a page just under the 16 MiB cap
LISTING_RSS_BOUND_KB = 300 * 1024  # measured: 160 MiB (table), 206 MiB (JSON); before: 2 GiB


def huge_page(number: int) -> bytes:
    """Page `number` of an OpenAPI listing that never ends: ~16 MB, its next page linked."""
    ops = ",".join(
        f'"/op-{number}-{i}":{{"get":{{"summary":"op {number}.{i}","description":"'
        + "x" * PAD
        + '"}}'
        for i in range(PAGE_OPS)
    )
    head = '{"openapi":"3.1.0","info":{"title":"big","version":"1",'
    head += f'"x-next":"/openapi.json?page={number + 1}"}},"paths":{{'
    return (head + ops + "}}").encode()


# MEASURE with stdout on a pseudo-terminal, so that svc draws its table (piped, it is JSON).
MEASURE_ON_TTY = """
import json, os, resource, subprocess, sys, threading
def cap():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
master, slave = os.openpty()
screen = []
def drain():
    while True:
        try:
            data = os.read(master, 1 << 16)
        except OSError:
            return
        if not data:
            return
        screen.append(data)
reader = threading.Thread(target=drain, daemon=True)
reader.start()
p = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE,
                   text=True, preexec_fn=cap)
os.close(slave)
reader.join(5)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
out = b"".join(screen).decode("utf-8", "replace")
print(json.dumps({"rc": p.returncode, "out": out, "err": p.stderr, "peak_kb": peak}))
"""


@pytest.fixture
def endless_pages() -> Iterator[Loopback]:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        number = int(handler.path.rpartition("page=")[2]) if "page=" in handler.path else 1
        send(handler, huge_page(number))

    with Loopback(answer) as server:
        yield server


@pytest.mark.parametrize("json_mode", [False, True], ids=["table", "json"])
def test_a_listing_of_endless_huge_pages_stops_at_its_total_bound(
    home: Path, endless_pages: Loopback, json_mode: bool
) -> None:
    """`svc api search --all` folds each page as it comes (a table keeps only the summaries)
    and stops once the pages together pass 4 times the answer cap: exit 1, one line, as one
    answer over its cap is (the service answered: exit 9's "try again later" would mislead)."""
    assert len(huge_page(1)) < 16 << 20
    env = {**_base_env(home), "SVC_BASE_URL": endless_pages.url}
    args = [SVC, *(["--json"] if json_mode else []), "api", "search", "--all"]
    proc = subprocess.run(
        [sys.executable, "-c", MEASURE if json_mode else MEASURE_ON_TTY, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
        check=True,
    )
    report = json.loads(proc.stdout)
    print(f"listing ({'json' if json_mode else 'table'}): peak RSS {report['peak_kb'] >> 10} MiB")
    assert report["rc"] == 1, report["err"][-2000:]
    line = one_line(report["err"])
    assert f"pages together are larger than {4 * (16 << 20)} bytes (5 read)" in line, line
    if json_mode:
        assert json.loads(report["out"])["error"] == "listing_too_large"
    else:
        assert report["out"].strip() == "", report["out"][-2000:]  # no table, no error object
    assert len(endless_pages.requests) == 5
    assert report["peak_kb"] < LISTING_RSS_BOUND_KB, f"peak RSS {report['peak_kb']} KiB"


def test_a_listing_of_a_few_big_pages_within_the_bound_is_shown(home: Path) -> None:
    """Three such pages (48 MB together) are under the bound: every operation is listed."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        number = int(handler.path.rpartition("page=")[2]) if "page=" in handler.path else 1
        page = huge_page(number)
        if number == 3:  # the last one: no next link
            page = page.replace(b',"x-next":"/openapi.json?page=4"', b"")
        send(handler, page)

    with Loopback(answer) as server:
        result, _ = run(home, server.url, "api", "search", "--all", "--json", SVC_NO_INPUT="1")
    assert result.returncode == 0, result.stderr
    doc = result.json()
    assert len(doc["paths"]) == 3 * PAGE_OPS and doc["info"]["x-pages-fetched"] == 3
    assert doc["paths"]["/op-3-9"]["get"]["description"] == "x" * PAD  # JSON: as returned
