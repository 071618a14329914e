"""`svc poll` and `svc watch` against a raw loopback peer: a sound answer is the task, kept
connections are reused, and a hostile answer is one clear line with the contract's exit code,
never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import SVC, _base_env
from tests.inproc import run_main, task_doc
from tests.raw_peer import RawPeer, json_answer

pytestmark = pytest.mark.e2e

TASK = json.dumps(task_doc(id="task_x", state="completed")).encode()
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"


def _svc(home: Path, url: str, *args: str) -> tuple[int, str, str]:
    env = {**_base_env(home), "SVC_BASE_URL": url, "SVC_TIMEOUT": "2"}
    return run_main(list(args), env, None, program=SVC)


def test_a_poll_reads_the_task_and_keeps_its_connection(tmp_path: Path) -> None:
    with RawPeer(lambda _: (json_answer(TASK), False)) as peer:
        code, out, err = _svc(tmp_path, peer.url, "poll", "task_x", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["id"] == "task_x"
    assert peer.requests[0][1].startswith(b"GET /svc/tasks/task_x HTTP/1.1\r\n")


def test_a_watch_of_many_tasks_reuses_its_connections(tmp_path: Path) -> None:
    ids = [f"task_{n}" for n in range(12)]

    def answer(index: int) -> tuple[bytes, bool]:
        return json_answer(json.dumps(task_doc(id=ids[index], state="completed")).encode()), False

    with RawPeer(answer) as peer:
        code, out, err = _svc(tmp_path, peer.url, "watch", *ids, "--json", "--interval", "1")
    finals = {json.loads(line)["id"] for line in out.splitlines()}
    assert (code, finals) == (0, set(ids)), err
    assert peer.connections < len(ids)  # kept and reused, not one per poll


@pytest.mark.parametrize(
    "answer",
    [
        HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n",
        HEAD + b"Content-Length: 2x\r\n\r\n{}",
        HEAD + b"X-Bad: a\x00b\r\nContent-Length: 2\r\n\r\n{}",
        HEAD + b"Content-Length: 100\r\n\r\n{",
        b"",
    ],
    ids=["bad chunk", "bad length", "NUL in a header", "cut body", "closed at once"],
)
def test_a_broken_answer_is_one_line_and_exit_9(tmp_path: Path, answer: bytes) -> None:
    with RawPeer(lambda _: (answer, True)) as peer:
        code, out, err = _svc(tmp_path, peer.url, "poll", "task_x", "--json")
    assert code == 9 and "Traceback" not in err
    [line] = out.splitlines()  # --json: the error is one JSON line
    error = json.loads(line)
    assert (error["error"], error["exit_code"]) == ("unavailable", 9)
    assert error["detail"].startswith("poll failed after 4 attempts: the connection broke (")
    assert len(peer.requests) == 4  # a read: retried, each on a new connection


def test_an_answer_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    big = HEAD + b"Transfer-Encoding: chunked\r\n\r\n" + (b"400\r\n" + b" " * 1024 + b"\r\n") * 8
    with RawPeer(lambda _: (big, True)) as peer:
        env = {**_base_env(tmp_path), "SVC_BASE_URL": peer.url, "SVC_MAX_RESPONSE_BYTES": "4096"}
        code, _, err = run_main(["poll", "task_x", "--json"], env, None, program=SVC)
    assert code != 0 and "larger than 4096 bytes" in err
