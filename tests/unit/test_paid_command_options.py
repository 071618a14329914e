"""`svc submit` and `svc request` read their options from their operations' requests
(svc.operations.submit, svc.operations.request), which are also the MCP tools' inputs: the
CLI's own fields stay off the tools, the paying options are declared once for both commands,
and what a person types reaches the run parsed as before."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from svc.commands import request as request_command
from svc.commands import submit as submit_command
from svc.commands.request import RequestOptions
from svc.commands.submit_options import SubmitOptions
from svc.errors import UsageError
from svc.operations.fields import Flag, marker, offered
from svc.operations.request import PaidRequestRequest
from svc.operations.submit import SubmitRequest

SUBMIT_TOOL = ["task", "email", "pay", "request_id", "max_price_usd", "allow_duplicate", "dry_run"]
REQUEST_TOOL = ["url", "method", "headers", "body", "request_id", "max_price_usd"]


def test_the_tools_and_the_library_see_none_of_the_clis_own_fields() -> None:
    assert offered(SubmitRequest, "mcp") == SUBMIT_TOOL
    assert offered(SubmitRequest, "library") == SUBMIT_TOOL
    assert offered(PaidRequestRequest, "mcp") == REQUEST_TOOL
    assert offered(PaidRequestRequest, "library") == REQUEST_TOOL


def test_the_paying_options_are_declared_once_for_both_commands() -> None:
    for name in ("max_price", "trust_recipient"):
        assert marker(SubmitRequest, name, Flag) is marker(PaidRequestRequest, name, Flag)
        described = SubmitRequest.model_fields[name].description
        assert described and described == PaidRequestRequest.model_fields[name].description


def _ran(monkeypatch: pytest.MonkeyPatch, module: Any, args: list[str]) -> Any:
    """What the command hands its run for `args`, with a context that has only settings."""
    seen: list[Any] = []
    settings = SimpleNamespace(pay="x402", email=None)
    monkeypatch.setattr(module, "current", lambda: SimpleNamespace(settings=settings))
    monkeypatch.setattr(module, "run", lambda opts, ctx: seen.append(opts) or 0)
    result = CliRunner().invoke(module.app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == 0, result.output
    return seen[0]


def test_submit_parses_its_flags_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["Renew", "-e", "a@b.c", "-w", "--pay", "mpp", "--max-price", "1.20"]
    opts = _ran(monkeypatch, submit_command, [*args, "--interval", "20", "--allow-duplicate"])
    assert opts == SubmitOptions(
        text="Renew",
        email="a@b.c",
        rail="mpp",
        max_price_usd=Decimal("1.20"),
        wait=True,
        interval=20.0,
        allow_duplicate=True,
    )
    batch = ["--from", "lines.jsonl", "--concurrency", "3", "--skip-bad-lines", "-y"]
    assert _ran(monkeypatch, submit_command, batch) == SubmitOptions(
        batch_file="lines.jsonl", concurrency=3, skip_bad_lines=True, yes=True
    )


@pytest.mark.parametrize(
    "args",
    [
        ["Task", "--dry-run", "--request-id", "req_12345678"],
        ["Task", "--probe", "--trust-recipient"],
        ["--from", "lines.jsonl", "--dry-run"],
        ["Task", "--dry-run", "--allow-duplicate"],
    ],
)
def test_submit_refuses_sending_beside_a_promise_that_nothing_is_sent(
    monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    with pytest.raises(UsageError, match="cannot be combined"):
        _ran(monkeypatch, submit_command, args)


def test_request_parses_curls_spellings_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["-X", "PUT", "-H", "A: b", "-H", "C: d", "-d", "x", "-o", "out", "-i"]
    args += ["--pay", "mpp", "--max-price", "0.5", "https://api.example.com/run"]
    assert _ran(monkeypatch, request_command, args) == RequestOptions(
        url="https://api.example.com/run",
        method="PUT",
        headers=("A: b", "C: d"),
        data="x",
        output="out",
        include=True,
        rail="mpp",
        max_price_usd=Decimal("0.5"),
    )
    plain = _ran(monkeypatch, request_command, ["--dry-run", "https://api.example.com/a"])
    assert plain == RequestOptions(url="https://api.example.com/a", dry_run=True)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--dry-run", "--request-id", "req_12345678"], "cannot be combined"),
        (["--probe", "--trust-recipient"], "cannot be combined"),
        (["--pay", "card"], "x402 or mpp"),
    ],
)
def test_request_refuses_before_sending(
    monkeypatch: pytest.MonkeyPatch, args: list[str], words: str
) -> None:
    with pytest.raises(UsageError, match=words):
        _ran(monkeypatch, request_command, [*args, "https://api.example.com/a"])
