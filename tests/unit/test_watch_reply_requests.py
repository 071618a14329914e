"""`svc watch` and `svc reply` read their arguments and options from their operations' requests
(WaitRequest, ReplyRequest): the CLI's own fields stay off svc mcp and the library, the MCP's
own stay off the CLI (a secret value above all), and the command's checks word their errors as
the flags, exactly as before."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from svc.cli.options import with_options_of
from svc.commands import reply, watch
from svc.errors import UsageError
from svc.operations.fields import offered
from svc.operations.reply import ReplyRequest
from svc.operations.watch import WaitRequest

REPLY_TOOL = [
    "task_id",
    "message",
    "field",
    "value",
    "sensitive",
    "field_values",
    "approve_payment",
    "decline_payment",
]


def test_each_face_offers_its_own_fields_in_the_declared_order() -> None:
    assert offered(WaitRequest, "mcp") == ["task_id", "timeout_seconds"]
    assert offered(WaitRequest, "library") == ["task_id", "timeout_seconds"]
    assert offered(WaitRequest, "cli") == [
        "task_ids",
        "all_live",
        "interval",
        "notify",
        "exec_command",
        "exec_timeout",
    ]
    assert offered(ReplyRequest, "mcp") == REPLY_TOOL
    assert offered(ReplyRequest, "library") == REPLY_TOOL
    assert offered(ReplyRequest, "cli") == [
        "task_id",
        "message",
        "field",
        "value_file",
        "sensitive",
        "sets",
        "approve",
        "decline",
    ]


def _parse(request: type[Any], args: list[str]) -> tuple[int, dict[str, Any]]:
    """Typer's exit code for `args` and what it hands the command built from `request`."""
    seen: list[dict[str, Any]] = []

    def command(**given: Any) -> None:
        seen.append(given)

    app = typer.Typer(rich_markup_mode=None)
    app.command()(with_options_of(request, command))
    result = CliRunner().invoke(app, args)
    return result.exit_code, (seen[0] if seen else {})


def test_a_value_never_comes_from_argv() -> None:
    code, _ = _parse(ReplyRequest, ["task_1", "--field", "pin", "--value", "1234"])
    assert code == 2  # no such option: a secret is read from a file, stdin or a prompt
    for spelled in ("--field-values", "--approve-payment/--decline-payment", "--timeout"):
        assert _parse(ReplyRequest, ["task_1", spelled, "x"])[0] == 2


def test_reply_flags_become_one_reply(tmp_path: Path) -> None:
    secret = tmp_path / "pin"
    secret.write_text("123456\n")
    code, given = _parse(
        ReplyRequest, ["task_1", "--field", "pin", "--sensitive", "--value-file", str(secret)]
    )
    assert code == 0
    opts = reply.options(ReplyRequest.model_construct(**given))
    assert (opts.task_id, opts.field, opts.value, opts.sensitive) == (
        "task_1",
        "pin",
        "123456",
        True,
    )
    _, given = _parse(ReplyRequest, ["task_1", "--set", "a=1", "--set", "b=", "--decline-payment"])
    opts = reply.options(ReplyRequest.model_construct(**given))
    assert (opts.sets, opts.payment_approved, opts.sensitive) == ({"a": "1", "b": ""}, False, False)
    _, given = _parse(ReplyRequest, ["task_1", "-m", "hello"])
    opts = reply.options(ReplyRequest.model_construct(**given))
    assert (opts.message, opts.empty) == ("hello", False)
    assert reply.options(ReplyRequest.model_construct(**_parse(ReplyRequest, ["t"])[1])).empty


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--approve-payment", "--decline-payment"], "exclude each other"),
        (["--value-file", "-"], "--value-file goes with --field"),
        (["-m", "hi", "--field", "x"], "--message and --field exclude each other"),
        (["-m", "hi", "--set", "a=b"], "--message (a plain ask's answer) and --set"),
        (["--set", "novalue"], "--set takes KEY=VALUE"),
        (["--set", "a=1", "--set", "a=2"], "--set a given twice"),
    ],
)
def test_reply_refuses_in_the_flags_words(args: list[str], words: str) -> None:
    code, given = _parse(ReplyRequest, ["task_1", *args])
    assert code == 0
    with pytest.raises(UsageError, match=words.replace("(", r"\(").replace(")", r"\)")):
        reply.options(ReplyRequest.model_construct(**given))


def _app_notifying(notify: bool) -> Any:
    return SimpleNamespace(settings=SimpleNamespace(notify=notify))


def test_watch_options_checked_before_any_poll() -> None:
    code, given = _parse(WaitRequest, ["task_aaaaaaaa", "--interval", "20", "--exec", "true"])
    assert code == 0
    opts = watch.options(WaitRequest.model_construct(**given), _app_notifying(True))
    assert opts.task_ids == ["task_aaaaaaaa"] and opts.interval == 20.0
    assert (opts.notify, opts.exec_command, opts.exec_timeout) == (True, "true", 30.0)
    _, given = _parse(WaitRequest, ["--all", "--no-notify", "--exec-timeout", "5"])
    opts = watch.options(WaitRequest.model_construct(**given), _app_notifying(True))
    assert (opts.task_ids, opts.all_live, opts.notify, opts.exec_timeout) == ([], True, False, 5.0)
    for args, words in (
        (["--interval", "soon"], "--interval must be a number of seconds"),
        (["--exec-timeout", "0"], "--exec-timeout must be positive"),
    ):
        _, given = _parse(WaitRequest, args)
        with pytest.raises(UsageError, match=words):
            watch.options(WaitRequest.model_construct(**given), _app_notifying(False))
