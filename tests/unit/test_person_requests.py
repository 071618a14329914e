"""The person's commands (`svc wallet`, `svc identity`, `svc entitlements`, `svc budget`,
`svc pay card`) take their arguments and options from their operations' requests, and none
of those requests carries a key, a token or an assertion: only where one is read."""

from __future__ import annotations

from typing import Any

import pytest
import typer
from typer import _click as click

from svc.cli.app import app
from svc.cli.globals import KEYS
from svc.operations.budget import BUDGET
from svc.operations.declare import Command, Operation
from svc.operations.fields import Flag, is_secret_field, marker, offered
from svc.operations.identity import IDENTITY
from svc.operations.wallet import WALLET

PERSONS: tuple[Operation[Any], ...] = (*WALLET, *IDENTITY, *BUDGET)


def _command(path: str) -> Any:
    command: Any = typer.main.get_command(app)
    ctx = click.Context(command)
    for name in path.split():
        command = command.get_command(ctx, name)
    return command


@pytest.mark.parametrize("op", PERSONS, ids=lambda op: op.name)
def test_the_command_reads_its_request_in_order(op: Operation[Any]) -> None:
    assert isinstance(op.cli, Command) and op.request is not None
    own = [p.name for p in _command(op.cli.path).params if p.name not in {"help", *KEYS}]
    assert own == offered(op.request, "cli")
    assert op.request.__doc__, f"{op.name}: a request says what it asks for"


# Every value a person types to these commands: none is a secret. A new one is a decision.
VALUES = {
    "wallet import": ["file"],
    "identity register": ["email", "assertion_file"],
    "identity claim": ["code", "email", "timeout"],
    "budget set": ["amount", "per", "runner"],
    "budget unset": ["per", "runner"],
    "budget reset-breaker": ["runner"],
    "pay card": ["request_id"],
}


def test_no_request_takes_a_secret_on_the_command_line() -> None:
    """A key, a signer token or an assertion is read from a file or stdin, never argv."""
    for op in PERSONS:
        assert op.request is not None
        fields = op.request.model_fields
        assert not any(is_secret_field(op.request, name) for name in fields), op.name
        valued = [name for name, field in fields.items() if field.annotation is not bool]
        assert valued == VALUES.get(op.name, []), op.name


def test_where_a_secret_is_read_is_a_path_or_stdin() -> None:
    sources = {
        "wallet import": ("file", "--file", "-"),
        "identity register": ("assertion_file", "--assertion-file", None),
    }
    for op in PERSONS:
        if op.name not in sources:
            continue
        assert op.request is not None
        field, spelling, default = sources[op.name]
        flag = marker(op.request, field, Flag)
        assert flag is not None and flag.spelling == spelling and flag.metavar == "PATH|-"
        assert op.request.model_fields[field].default == default
