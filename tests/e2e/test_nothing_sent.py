"""'Nothing is sent' means nothing is sent, on every face (svc.promises).

Each test drives a face as its user does, against the hostile peer (tests/hostile_peer.py),
which keeps every request it received: generated combinations of a face's options with each
option that promises nothing is sent (`--dry-run`, `--probe`, `dry_run`), and the peer's books
say what reached it. The property, for every combination:

* no payment proof or credential ever reaches the peer;
* with a dry run alone, no request reaches the task endpoint at all (a probe sends one
  unpaid request, without a request id: that is its promise);
* an option only a paid request could honour beside a promise is a usage error (exit 2,
  svc.UsageError) naming both, and then nothing at all reaches the task endpoint.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import ClientSession, StdioServerParameters, stdio_client
from tests.conftest import Cli, _base_env, home_with_wallet
from tests.hostile_peer import HostilePeer, Received
from tests.inproc import isolate_home

import svc
from svc.promises import NEEDS_SENDING, SPELLINGS

pytestmark = pytest.mark.e2e

TASKS_PATH = "/svc/tasks"
PROMISE_FLAGS = ("--dry-run", "--probe")
EXAMPLES = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture
def peer_home(tmp_path: Path, wallet_home: Path, hostile_peer: HostilePeer) -> Path:
    return home_with_wallet(tmp_path, wallet_home)


@pytest.fixture
def peer_cli(peer_home: Path, hostile_peer: HostilePeer) -> Cli:
    env = {**_base_env(peer_home), "SVC_BASE_URL": hostile_peer.url, "SVC_TIMEOUT": "10"}
    return Cli(peer_home, {**env, "SVC_SPT": f"spt_test_{uuid.uuid4().hex}"})


@contextlib.contextmanager
def received(peer: HostilePeer) -> Iterator[list[Received]]:
    """The requests the peer receives inside the block (filled in when it ends)."""
    before = len(peer.requests())
    got: list[Received] = []
    yield got
    got.extend(peer.requests()[before:])


def to_tasks(requests: list[Received]) -> list[Received]:
    return [r for r in requests if r.method == "POST" and r.path.endswith(TASKS_PATH)]


def check_nothing_sent(requests: list[Received], *, probing: bool, refused: bool) -> None:
    assert not [r for r in requests if r.proofs], "a proof or credential reached the server"
    posts = to_tasks(requests)
    if refused or not probing:
        assert not posts, "a request reached the task endpoint"
    else:
        assert len(posts) <= 1 and all(r.request_id is None for r in posts)


# --- the CLI ---------------------------------------------------------------------------------

SUBMIT_EXTRAS = st.fixed_dictionaries(
    {
        "--wait": st.booleans(),
        "--request-id": st.booleans(),
        "--allow-duplicate": st.booleans(),
        "--trust-recipient": st.booleans(),
        "--pay": st.sampled_from([None, "x402", "mpp", "card"]),
        "--max-price": st.sampled_from([None, "1.50", "0.50"]),
        "--from": st.sampled_from([None, "file", "-"]),
    }
)


def submit_args(promises: list[str], extras: dict[str, Any], batch: Path) -> list[str]:
    args = ["submit", *promises]
    source = extras["--from"]
    if source is None:
        args += ["Renew my library books", "--email", f"u-{uuid.uuid4().hex[:8]}@example.com"]
    else:
        args += ["--from", str(batch) if source == "file" else "-"]
    for flag in ("--wait", "--allow-duplicate", "--trust-recipient"):
        if extras[flag]:
            args.append(flag)
    if extras["--request-id"]:
        args += ["--request-id", f"req_{uuid.uuid4().hex}"]
    for flag in ("--pay", "--max-price"):
        if extras[flag] is not None:
            args += [flag, extras[flag]]
    return args


def batch_lines(count: int = 2) -> str:
    mail = f"b-{uuid.uuid4().hex[:8]}@example.com"
    return "".join(json.dumps({"task": f"Task {n}", "email": mail}) + "\n" for n in range(count))


@EXAMPLES
@given(
    promises=st.lists(st.sampled_from(PROMISE_FLAGS), min_size=1, max_size=2, unique=True),
    extras=SUBMIT_EXTRAS,
    machine=st.booleans(),
)
def test_submit_sends_nothing_its_promise_forbids(
    peer_cli: Cli,
    hostile_peer: HostilePeer,
    tmp_path: Path,
    promises: list[str],
    extras: dict[str, Any],
    machine: bool,
) -> None:
    batch = tmp_path / "tasks.jsonl"
    batch.write_text(batch_lines())
    args = submit_args(promises, extras, batch) + (["--json"] if machine else [])
    stdin = batch_lines() if extras["--from"] == "-" else None
    with received(hostile_peer) as requests:
        result = peer_cli(*args, input=stdin)
    conflicting = [
        SPELLINGS["cli"][name]
        for name in NEEDS_SENDING
        if (SPELLINGS["cli"][name] == "--from" and extras["--from"])
        or extras.get(SPELLINGS["cli"][name]) is True
    ]
    if conflicting:
        assert result.returncode == 2, result.stderr
        line = result.stderr.splitlines()[0]
        assert any(flag in line for flag in promises) and conflicting[0] in line, line
    else:
        assert result.returncode in (0, 5), result.stderr  # 5: the policy would refuse
    check_nothing_sent(requests, probing="--probe" in promises, refused=bool(conflicting))


@pytest.mark.parametrize(
    "args",
    [
        ["quote", "Renew my books", "--dry-run"],
        ["quote", "Renew my books", "--probe"],
        ["reply", "task_1", "--message", "yes", "--dry-run"],
        ["pay", "card", "--probe"],
        ["submit", "--from", "-", "--probe", "--yes"],
    ],
)
def test_a_promise_no_command_can_keep_is_a_usage_error(
    peer_cli: Cli, hostile_peer: HostilePeer, args: list[str]
) -> None:
    with received(hostile_peer) as requests:
        result = peer_cli(*args, input=batch_lines())
    assert result.returncode == 2, result.stderr
    assert not requests


def test_a_batch_probe_pays_nothing(
    peer_cli: Cli, hostile_peer: HostilePeer, tmp_path: Path
) -> None:
    batch = tmp_path / "tasks.jsonl"
    batch.write_text(batch_lines())
    with received(hostile_peer) as requests:
        result = peer_cli("submit", "--from", str(batch), "--probe", "--json")
    assert result.returncode == 2
    assert result.json()["error"] == "nothing_sent_conflict"
    assert "--probe" in result.json()["detail"] and "--from" in result.json()["detail"]
    assert not requests


# --- the library -----------------------------------------------------------------------------


@pytest.fixture
def peer_library(
    peer_home: Path, hostile_peer: HostilePeer, monkeypatch: pytest.MonkeyPatch
) -> HostilePeer:
    monkeypatch.setenv("SVC_BASE_URL", hostile_peer.url)
    for name in ("SVC_MAX_PRICE", "SVC_DAILY_CAP", "SVC_PAY"):
        monkeypatch.delenv(name, raising=False)
    isolate_home(peer_home, monkeypatch)
    return hostile_peer


@EXAMPLES
@given(
    request_id=st.booleans(),
    allow_duplicate=st.booleans(),
    pay=st.sampled_from([None, "x402", "card"]),
    max_price=st.sampled_from([None, "1.50", "0.50"]),
)
def test_the_library_dry_run_sends_nothing(
    peer_library: HostilePeer,
    request_id: bool,
    allow_duplicate: bool,
    pay: str | None,
    max_price: str | None,
) -> None:
    rid = f"req_{uuid.uuid4().hex}" if request_id else None
    with received(peer_library) as requests, svc.Client() as client:
        try:
            dry = client.submit(
                "Renew my library books",
                f"u-{uuid.uuid4().hex[:8]}@example.com",
                request_id=rid,
                pay=pay,
                max_price=max_price,
                allow_duplicate=allow_duplicate,
                dry_run=True,
            )
        except svc.UsageError as error:
            assert request_id or allow_duplicate
            assert "dry_run=True" in str(error)
            assert error.code == "nothing_sent_conflict"
        else:
            assert not (request_id or allow_duplicate)
            assert isinstance(dry, svc.DryRun)
            assert dry.within_policy is (max_price != "0.50")
    check_nothing_sent(requests, probing=False, refused=request_id or allow_duplicate)


# --- svc mcp ---------------------------------------------------------------------------------


def mcp_cases() -> Iterator[dict[str, Any]]:
    """Every combination of submit_task's options with dry_run (a small space: all of it)."""
    for request_id, allow, pay, cap in itertools.product(
        (False, True), (False, True), (None, "x402", "mpp", "card"), (None, "1.50", "0.50")
    ):
        args: dict[str, Any] = {"task": "Renew my library books", "dry_run": True}
        args["email"] = f"m-{uuid.uuid4().hex[:8]}@example.com"
        if request_id:
            args["request_id"] = f"req_{uuid.uuid4().hex}"
        if allow:
            args["allow_duplicate"] = True
        if pay:
            args["pay"] = pay
        if cap:
            args["max_price_usd"] = cap
        yield args


def test_mcp_submit_task_dry_run_sends_nothing(
    peer_cli: Cli, hostile_peer: HostilePeer, svc_mcp: list[str]
) -> None:
    params = StdioServerParameters(command=svc_mcp[0], args=svc_mcp[1:], env=peer_cli.env)

    async def body() -> None:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for args in mcp_cases():
                refused = "request_id" in args or "allow_duplicate" in args
                with received(hostile_peer) as requests:
                    result = await session.call_tool("submit_task", args)
                if refused:
                    assert result.is_error
                    error = (result.meta or {})["svc/error"]
                    assert error["error"] == "nothing_sent_conflict", error
                    assert "dry_run" in error["detail"]
                else:
                    assert not result.is_error, result.content
                    doc = (result.structured_content or {})["dry_run"]
                    assert doc["within_policy"] is (args.get("max_price_usd") != "0.50")
                check_nothing_sent(requests, probing=False, refused=refused)

    anyio.run(body)
