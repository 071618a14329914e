"""Every command written by hand is one module with options + run: `svc X` is commands/X.py and
`svc X Y` is commands/X/Y.py; each holds a frozen options dataclass, the Typer function that
only parses into it, and `run(opts, ctx) -> int`, so the work can be run (and tested) without
Typer, and a newcomer finds a command from its name alone. A command built from its
operation's declaration (svc.cli.declared) has its one place in svc/operations/table.py."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import typing
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, get_type_hints

import pytest
import typer
from typer import _click as click

from svc.cli.app import COMMANDS, app
from svc.context import AppContext
from svc.operations import table
from svc.operations.fields import Request

SRC = Path(__file__).resolve().parents[2] / "src"


def leaves() -> Iterator[tuple[list[str], Any]]:
    """(command path, click command) of every command that runs something."""
    root = typer.main.get_command(app)
    ctx = click.Context(root)

    def walk(path: list[str], command: Any) -> Iterator[tuple[list[str], Any]]:
        names = command.list_commands(ctx) if hasattr(command, "list_commands") else []
        if command.callback is not None and (not names or path in (["services"], ["tasks"])):
            yield path, command
        for name in names:
            yield from walk([*path, name], command.get_command(ctx, name))

    for name in COMMANDS:
        yield from walk([name], root.get_command(ctx, name))


LEAVES = list(leaves())
DECLARED_MODULE = "svc.cli.declared"


def module_of(command: Any) -> ModuleType:
    callback = inspect.unwrap(command.callback)
    return importlib.import_module(callback.__module__)


def _written(leaves: list[tuple[list[str], Any]]) -> list[tuple[list[str], Any]]:
    return [(p, c) for p, c in leaves if module_of(c).__name__ != DECLARED_MODULE]


WRITTEN = _written(LEAVES)


def test_a_declared_command_is_its_operations() -> None:
    from svc.cli.declared import declared

    built = {" ".join(p) for p, c in LEAVES if module_of(c).__name__ == DECLARED_MODULE}
    assert built == set(declared()) and "receipt" in built


def test_the_walk_finds_every_command() -> None:
    paths = {" ".join(path) for path, _ in LEAVES}
    assert {"submit", "identity register", "sandbox pay-card", "config list"} <= paths
    assert len(paths) >= 40


@pytest.mark.parametrize("path,command", WRITTEN, ids=[" ".join(p) for p, _ in WRITTEN])
def test_a_command_is_one_module_named_after_it(path: list[str], command: Any) -> None:
    module = module_of(command)
    file = Path(str(module.__file__)).relative_to(SRC / "svc" / "commands")
    parts = [p.replace("-", "_") for p in path]
    # A module name may not be a Python keyword or a builtin a module would shadow.
    allowed = {
        "/".join(parts) + ".py",
        "/".join([*parts[:-1], parts[-1] + "_key"]) + ".py",
        "/".join([*parts[:-1], parts[-1] + "_keys"]) + ".py",
        "/".join(parts) + "/__init__.py",
    }
    assert str(file) in allowed, f"svc {' '.join(path)} lives in {file}"


@pytest.mark.parametrize("path,command", WRITTEN, ids=[" ".join(p) for p, _ in WRITTEN])
def test_a_command_has_options_and_run(path: list[str], command: Any) -> None:
    module = module_of(command)
    run = getattr(module, "run", None)
    assert callable(run), f"{module.__name__} has no run(opts, ctx)"
    hints = get_type_hints(run)
    params = list(inspect.signature(run).parameters)
    assert len(params) == 2, f"{module.__name__}.run takes {params}"
    options, context = (hints[name] for name in params)
    if isinstance(options, type) and issubclass(options, Request):
        # the operation's own request model: its options are declared there, once
        assert any(op.request is options for op in table.OPERATIONS), options
    else:
        assert dataclasses.is_dataclass(options), f"{module.__name__}: {options} is no dataclass"
        assert options.__dataclass_params__.frozen, f"{options.__name__} is not frozen"  # type: ignore[attr-defined]
    assert issubclass(typing.get_origin(context) or context, AppContext)  # FaceContext too
    assert hints["return"] is int
