"""The table of operations (svc/operations/table.py) against the faces as they are: every CLI
command, MCP tool and Client method is an operation's face, every face an operation declares
exists, and a face that lacks an operation says why, so a gap is a decision, not an accident."""

from __future__ import annotations

import inspect
from typing import Any

import typer
from typer import _click as click

from svc.cli.app import app
from svc.cli.globals import GLOBALS
from svc.client._sync import Client, Identity
from svc.mcp.server import offered
from svc.operations import table
from svc.operations.declare import Command, Method, Missing, Tool, Written
from svc.operations.fields import offered as fields_offered


def _runnable() -> set[str]:
    """Every command path that runs something: a leaf, or a group that runs alone."""
    root = typer.main.get_command(app)
    ctx = click.Context(root)
    found: set[str] = set()

    def walk(path: list[str], command: Any) -> None:
        names = command.list_commands(ctx) if hasattr(command, "list_commands") else []
        alone = names and command.invoke_without_command
        if path and (not names or alone):
            found.add(" ".join(path))
        for name in names:
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                walk([*path, name], sub)

    walk([], root)
    return found


def test_every_command_is_an_operations_and_every_declared_command_exists() -> None:
    commands = [op.cli.path for op in table.OPERATIONS if isinstance(op.cli, Command)]
    assert len(commands) == len(set(commands))
    assert set(commands) == _runnable()


def test_every_tool_is_an_operations() -> None:
    tools = [op.mcp.name for op in table.OPERATIONS if isinstance(op.mcp, Tool)]
    gated = [op.mcp.name for op in table.GATED_TOOLS if isinstance(op.mcp, Tool)]
    assert tools == list(offered(gated=True)) and gated == ["paid_request"]
    assert list(offered()) == [name for name in tools if name not in gated]


def _library_names() -> set[str]:
    names: set[str] = set()
    for op in table.OPERATIONS:
        if isinstance(op.library, Method):
            names.add(op.library.name)
        elif isinstance(op.library, Written):
            names |= set(op.library.names)
    return names


def _public(cls: type, prefix: str = "") -> set[str]:
    return {
        prefix + name
        for name, _ in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    }


def test_every_client_method_is_an_operations() -> None:
    life = {"close", "with_options"}
    methods = (_public(Client) - life) | _public(Identity, "identity.")
    assert methods == _library_names()


def test_a_missing_face_says_why_and_every_operation_has_a_face() -> None:
    names = [op.name for op in table.OPERATIONS]
    assert len(names) == len(set(names))
    for op in table.OPERATIONS:
        faces = (op.cli, op.mcp, op.library)
        assert not all(isinstance(face, Missing) for face in faces), op.name
        for face in faces:
            if isinstance(face, Missing):
                assert len(face.why) >= 10, op.name


def test_an_operation_served_whole_has_what_every_face_needs() -> None:
    for op in table.OPERATIONS:
        if op.run is None:
            continue
        assert op.request is not None and op.result is not None and op.text is not None
        assert isinstance(op.library, Method), f"{op.name}: the library's method is generated"


GLOBAL_KEYS = {"help"} | {option.key for option in GLOBALS}  # every command takes them


def _command(path: str) -> Any:
    command: Any = typer.main.get_command(app)
    ctx = click.Context(command)
    for name in path.split():
        command = command.get_command(ctx, name)
    return command


def test_every_command_takes_its_arguments_and_options_from_its_request() -> None:
    """No command describes its options again: each parameter Typer reads is a field of the
    operation's request, in the request's order, and every field the CLI is offered is one."""
    for op in table.OPERATIONS:
        if not isinstance(op.cli, Command):
            continue
        assert op.request is not None, f"{op.name}: no request declared"
        own = [p.name for p in _command(op.cli.path).params if p.name not in GLOBAL_KEYS]
        assert own == fields_offered(op.request, "cli"), op.name
