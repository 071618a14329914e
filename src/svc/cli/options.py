"""A command's arguments and options as its request model declares them (svc.operations):
each field's spelling, metavar, help and default, read by Typer from the command's signature.
The declared commands (svc.cli.declared) and the ones written by hand share it.

What only a shell has (a completion function, a check run as the value is parsed) the command
passes as `hooks`, Typer's own keywords by field: the declaration stays free of the CLI's code.
"""

from __future__ import annotations

import inspect
import types
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar, Union, get_args, get_origin

import typer
from pydantic import BaseModel

from svc.operations.fields import Flag, Positional, is_secret_field, marker, offered

F = TypeVar("F", bound=Callable[..., Any])
Hooks = Mapping[str, Mapping[str, Any]]


def with_options_of(request: type[BaseModel], command: F, hooks: Hooks | None = None) -> F:
    """`command` taking the request's CLI fields as its arguments and options, as Typer reads
    them from its signature: a command written by hand describes none of them again."""
    hooks = hooks or {}
    names = offered(request, "cli")
    unknown = set(hooks) - set(names)
    if unknown:
        raise TypeError(f"hooks for fields {request.__name__} offers no CLI: {sorted(unknown)}")
    secret = [name for name in names if is_secret_field(request, name)]
    if secret:  # argv is in `ps`, shell history and CI logs: a secret is read, never typed
        raise TypeError(f"{request.__name__} offers secret fields as CLI options: {secret}")
    params = [_parameter(request, name, hooks.get(name, {})) for name in names]
    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command


def _parameter(request: type[BaseModel], name: str, hook: Mapping[str, Any]) -> inspect.Parameter:
    field = request.model_fields[name]
    default = ... if field.is_required() else field.default
    place = marker(request, name, Positional)
    if place is not None:
        words = place.help or field.description
        spec = typer.Argument(
            default, metavar=place.metavar, help=words, hidden=place.hidden, **hook
        )
    else:
        flag = marker(request, name, Flag) or Flag("--" + name.replace("_", "-"))
        words = flag.help or field.description
        spellings = (flag.spelling, flag.short) if flag.short else (flag.spelling,)
        spec = typer.Option(
            default, *spellings, metavar=flag.metavar, help=words, hidden=flag.hidden, **hook
        )
    kind = inspect.Parameter.KEYWORD_ONLY
    return inspect.Parameter(name, kind, default=spec, annotation=plain(field.annotation))


def plain(annotation: Any) -> Any:
    """The type without its pydantic metadata (`Annotated[str, ...] | None` is `str | None`):
    Typer reads an `Annotated` as its own parameter declaration."""
    if get_origin(annotation) is Annotated:
        return plain(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        parts = tuple(plain(arg) for arg in get_args(annotation))
        return Union[parts]  # noqa: UP007 - built from a tuple of types
    return annotation
