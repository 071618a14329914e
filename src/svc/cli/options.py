"""A command's arguments and options as its request model declares them (svc.operations):
each field's spelling, metavar, help and default, read by Typer from the command's signature.
The declared commands (svc.cli.declared) and the ones written by hand share it."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

import typer
from pydantic import BaseModel

from svc.operations.fields import Flag, Positional, marker, offered

F = TypeVar("F", bound=Callable[..., Any])


def with_options_of(request: type[BaseModel], command: F) -> F:
    """`command` taking the request's CLI fields as its arguments and options, as Typer reads
    them from its signature: a command written by hand describes none of them again."""
    params = [_parameter(request, name) for name in offered(request, "cli")]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command


def _parameter(request: type[BaseModel], name: str) -> inspect.Parameter:
    field = request.model_fields[name]
    default = ... if field.is_required() else field.default
    place = marker(request, name, Positional)
    if place is not None:
        words = place.help or field.description
        spec = typer.Argument(default, metavar=place.metavar, help=words)
    else:
        flag = marker(request, name, Flag) or Flag("--" + name.replace("_", "-"))
        words = flag.help or field.description
        spec = typer.Option(default, flag.spelling, metavar=flag.metavar, help=words)
    kind = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(name, kind, default=spec, annotation=field.annotation)
