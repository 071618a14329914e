"""`svc request` where money meets a failure: an interrupt after the proof went, a body cut off
after payment, headers an agent may not set, and `-o` over a file the person already had.

The hostile origin is tests/request_peer.py; the paid endpoint the sandbox's `/svc/paid/echo`.
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import Cli, Sandbox
from tests.e2e.test_library import home  # noqa: F401 - the fixture
from tests.e2e.test_mcp import Person, error_of, run, served
from tests.e2e.test_request import ECHO, charges_of, only_request_id, paid_then, spent
from tests.request_peer import Peer, Reply, challenge

from svc import Client, PolicyRefused, Unavailable

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]

CUT = Reply(200, {"content-type": "application/octet-stream"}, b"x" * 10, length=100_000)
SILENT = Reply(200, {"content-type": "application/octet-stream"}, b"late", stall=2.5)


# --- an interrupt after the proof was sent ----------------------------------------------------


@pytest.mark.parametrize("name", ["INT", "TERM"])
def test_an_interrupt_after_the_proof_went_names_the_request_and_its_resume(
    cli: Cli, forked_cli: Cli, sandbox: Sandbox, name: str
) -> None:
    url = f"{sandbox.url}{ECHO}?x402=2"
    env = {"SVC_TEST_CRASH_AT": "proof_sent", "SVC_TEST_CRASH_SIGNAL": name}
    hit = forked_cli("request", "--json", url, env=env)
    assert hit.returncode == 128 + getattr(signal, f"SIG{name}"), hit.stderr
    assert "interrupted while sending the paid request; it may have been paid" in hit.stderr
    found = re.search(r"svc request --request-id (req_[0-9a-f]+)", hit.stderr)
    assert found is not None, hit.stderr
    rid = found.group(1)
    doc = json.loads(hit.stdout)
    assert doc["error"] == "interrupted" and doc["request_id"] == rid
    assert doc["next"]["action"] == "resume_request"
    resumed = cli("request", "--request-id", rid, url)
    assert resumed.returncode == 0, resumed.stderr
    assert '"replayed":true' in resumed.stdout  # the journaled proof again, not a new charge
    assert len(charges_of(sandbox, rid)) == 1


# --- a body cut off after payment -------------------------------------------------------------


@pytest.mark.parametrize("reply", [CUT, SILENT], ids=["closed", "silent"])
def test_a_body_cut_off_after_payment_is_an_error_that_names_the_paid_request(
    cli: Cli, reply: Reply
) -> None:
    with Peer(paid_then(reply)) as peer:
        result = cli("request", "--json", f"{peer.url}/big", env={"SVC_TIMEOUT": "1"})
    rid = only_request_id(cli)
    assert result.returncode == 1, result.stderr  # never 9: that would read as nothing charged
    assert "internal error" not in result.stderr
    assert "the answer's body was cut off after" in result.stderr
    assert "the request was paid" in result.stderr and f"svc receipt {rid}" in result.stderr
    doc = json.loads(result.stdout)
    assert doc["error"] == "unavailable" and doc["exit_code"] == 1
    assert doc["paid"] == [{"request_id": rid, "task_id": rid}]
    assert len(peer.proofs()) == 1 and len(spent(cli)) == 1


def test_a_free_body_cut_off_is_unavailable_and_charges_nothing(cli: Cli) -> None:
    with Peer(lambda s: CUT) as peer:
        result = cli("request", f"{peer.url}/free")
    assert result.returncode == 9, result.stderr
    assert "cut off after 10 bytes" in result.stderr and "nothing was paid" in result.stderr
    assert peer.proofs() == []


@pytest.mark.usefixtures("home")
def test_client_request_raises_svcs_error_for_a_cut_off_body() -> None:
    with Peer(paid_then(CUT)) as peer, Client() as client, pytest.raises(Unavailable) as raised:
        client.request(f"{peer.url}/big")
    error = raised.value
    assert "cut off after 10 bytes" in error.message and "the request was paid" in error.message
    [paid] = error.data["paid"]
    assert int(error.exit_code) == 1 and paid["request_id"] in str(error)


def test_paid_request_tool_names_the_request_when_the_body_is_cut_off(
    cli: Cli, svc_mcp: list[str]
) -> None:
    with Peer(paid_then(CUT)) as peer:
        env = {"SVC_REQUEST_ORIGINS": peer.url, "SVC_MCP_PREAPPROVED_USD": "2"}

        async def body() -> None:
            async with served(cli, svc_mcp, person=Person(), env=env) as (session, _):
                answer = await session.call_tool("paid_request", {"url": f"{peer.url}/big"})
                error = error_of(answer)
                rid = only_request_id(cli)
                assert error["error"] == "unavailable" and error["exit_code"] == 1
                assert "the request was paid" in error["detail"] and rid in error["hint"]

        run(body)


# --- headers an agent may not set -------------------------------------------------------------

REFUSED = ("Host", "content-length", "Transfer-Encoding", "CONNECTION", "Upgrade", "TE")
REFUSED += ("Trailer", "Keep-Alive", "Proxy-Authorization", "proxy-connection")


def test_paid_request_refuses_host_and_the_connections_headers_and_sends_nothing(
    cli: Cli, svc_mcp: list[str]
) -> None:
    with Peer(lambda s: challenge()) as peer:
        env = {"SVC_REQUEST_ORIGINS": peer.url, "SVC_MCP_PREAPPROVED_USD": "2"}

        async def body() -> None:
            async with served(cli, svc_mcp, person=Person(), env=env) as (session, _):
                for name in REFUSED:
                    args: dict[str, Any] = {"url": f"{peer.url}/x", "headers": {name: "v"}}
                    error = error_of(await session.call_tool("paid_request", args))
                    assert error["error"] == "header_refused" and name in error["detail"]
                    assert error["exit_code"] == 2

        run(body)
        assert peer.seen == []
    assert spent(cli) == []


@pytest.mark.parametrize("header", ["Content-Length: 3", "transfer-encoding: chunked"])
def test_the_cli_refuses_a_hand_written_body_framing(cli: Cli, header: str) -> None:
    with Peer(lambda s: challenge()) as peer:
        result = cli("request", "-H", header, "-d", "hello", f"{peer.url}/x")
    assert result.returncode == 2 and "nothing was sent" in result.stderr
    assert peer.seen == []


def test_the_cli_still_sends_a_host_header_as_curl_does(cli: Cli) -> None:
    with Peer(lambda s: Reply(200, {}, b"ok")) as peer:
        result = cli("request", "-H", "Host: vhost.example", f"{peer.url}/x")
    assert result.returncode == 0, result.stderr
    assert [s.headers["host"] for s in peer.seen] == ["vhost.example"]


# --- -o over a file the person had ------------------------------------------------------------


def _kept(tmp_path: Path) -> Path:
    keep = tmp_path / "out" / "keep.txt"
    keep.parent.mkdir()
    keep.write_text("IMPORTANT\n")
    return keep


def test_output_is_untouched_when_nothing_is_paid(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    keep = _kept(tmp_path)
    result = cli("request", "-o", str(keep), "--max-price", "0.01", f"{sandbox.url}{ECHO}")
    assert result.returncode == 5, result.stderr
    assert keep.read_text() == "IMPORTANT\n" and list(keep.parent.iterdir()) == [keep]


def test_output_is_untouched_when_the_body_is_cut_off(cli: Cli, tmp_path: Path) -> None:
    keep = _kept(tmp_path)
    with Peer(paid_then(CUT)) as peer:
        result = cli("request", "-o", str(keep), f"{peer.url}/big")
    assert result.returncode == 1, result.stderr
    assert keep.read_text() == "IMPORTANT\n" and list(keep.parent.iterdir()) == [keep]


def test_output_takes_the_whole_body_and_keeps_the_files_mode(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    keep = _kept(tmp_path)
    keep.chmod(0o640)
    result = cli("request", "-o", str(keep), f"{sandbox.url}{ECHO}?bytes=70000")
    assert result.returncode == 0, result.stderr
    assert keep.read_bytes() == b"x" * 70000 and keep.stat().st_mode & 0o777 == 0o640
    assert list(keep.parent.iterdir()) == [keep]


@pytest.mark.parametrize("where", ["a directory", "a missing directory"])
def test_output_that_cannot_be_written_is_refused_before_anything_is_sent(
    cli: Cli, tmp_path: Path, where: str
) -> None:
    target = tmp_path if where == "a directory" else tmp_path / "nowhere" / "x.bin"
    with Peer(lambda s: challenge()) as peer:
        result = cli("request", "-o", str(target), f"{peer.url}/x")
    assert result.returncode == 2 and "cannot write" in result.stderr
    assert peer.seen == []


@pytest.mark.usefixtures("home")
def test_client_request_output_is_untouched_when_nothing_is_paid(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    keep = _kept(tmp_path)
    with Client() as client, pytest.raises(PolicyRefused):
        client.request(f"{sandbox.url}{ECHO}", output=keep, max_price="0.01")
    assert keep.read_text() == "IMPORTANT\n" and list(keep.parent.iterdir()) == [keep]
