"""`svc poll` and `svc watch` over https against a loopback TLS peer whose CA is made at test
time (tests/tls_peer.py) and trusted through SSL_CERT_FILE as a user trusts a private CA; without it, the certificate is refused with one
line and the contract's exit code, and no request is sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import SVC, _base_env
from tests.inproc import run_main, task_doc
from tests.raw_peer import RawPeer, json_answer
from tests.tls_peer import Pki, make_pki

pytestmark = pytest.mark.e2e

TASK = json.dumps(task_doc(id="task_x", state="completed")).encode()


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


def _svc(
    home: Path, url: str, ca: Path | None, *args: str, timeout: str = "2"
) -> tuple[int, str, str]:
    env = {**_base_env(home), "SVC_BASE_URL": url, "SVC_TIMEOUT": timeout}
    if ca is not None:
        env["SSL_CERT_FILE"] = str(ca)
    return run_main(list(args), env, None, program=SVC)


def test_a_poll_over_https_reads_the_task(tmp_path: Path, pki: Pki) -> None:
    with RawPeer(lambda _: (json_answer(TASK), False), tls=pki.good) as peer:
        code, out, err = _svc(tmp_path, peer.url, pki.ca, "poll", "task_x", "--json")
    assert (code, err) == (0, "")
    assert json.loads(out)["id"] == "task_x"
    assert peer.requests[0][1].startswith(b"GET /svc/tasks/task_x HTTP/1.1\r\n")


def test_a_watch_over_https_reuses_its_connections(tmp_path: Path, pki: Pki) -> None:
    ids = [f"task_{n}" for n in range(12)]

    def answer(index: int) -> tuple[bytes, bool]:
        # The task the request names (a retry on a loaded machine asks for one again).
        line = peer.requests[index][1].split(b"\r\n", 1)[0].decode()
        task_id = line.split()[1].rsplit("/", 1)[-1]
        return json_answer(json.dumps(task_doc(id=task_id, state="completed")).encode()), False

    with RawPeer(answer, tls=pki.good) as peer:
        args = ("watch", *ids, "--json", "--interval", "1")
        code, out, err = _svc(tmp_path, peer.url, pki.ca, *args, timeout="15")
    finals = {json.loads(line)["id"] for line in out.splitlines()}
    assert (code, finals) == (0, set(ids)), err
    assert peer.handshakes < len(ids)  # kept and reused, not a handshake per poll


@pytest.mark.parametrize("command", [("poll", "task_x"), ("watch", "task_x")])
def test_without_the_ca_the_certificate_is_refused_with_exit_9(
    tmp_path: Path, pki: Pki, command: tuple[str, ...]
) -> None:
    with RawPeer(lambda _: (json_answer(TASK), False), tls=pki.good) as peer:
        code, out, err = _svc(tmp_path, peer.url, None, *command, "--json")
    assert code == 9 and "Traceback" not in err
    error = json.loads(out.splitlines()[-1])  # --json: the error is one JSON line
    assert (error["error"], error["exit_code"]) == ("unavailable", 9)
    assert "cannot connect to https://127.0.0.1:" in error["detail"]
    assert "CERTIFICATE_VERIFY_FAILED" in error["detail"]
    # Refused once, not retried: another try meets the same certificate (it was tried 4 times,
    # then reported "after 4 attempts").
    assert "failed after 1 attempt:" in error["detail"] and "retrying" not in err
    assert peer.requests == [] and peer.handshakes == 0  # nothing sent unverified
    # The next step names the certificate, not a sandbox that is not running.
    assert "hint: the server's certificate is not trusted" in err and "sandbox" not in err
