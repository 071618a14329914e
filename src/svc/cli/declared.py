"""The commands built from their operation's declaration (svc.operations.table): the arguments
from the request model (a positional's metavar, an option's spelling, the help of each), the
work one call into the engine, the document shown as JSON when piped or asked for, else drawn
by the operation's view (svc.ui.documents).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import typer
from typer._click.globals import get_current_context

from svc.cli.options import with_options_of
from svc.operations import table
from svc.operations.declare import Command, Operation
from svc.ui.documents import view_for
from svc.ui.face import FaceContext


@cache
def declared() -> dict[str, Operation[Any]]:
    """The operations whose command is built here, by command name."""
    return {
        op.cli.path: op
        for op in table.OPERATIONS
        if isinstance(op.cli, Command) and op.cli.declared
    }


def app_for(name: str) -> typer.Typer:
    """The Typer app of the declared command `name`."""
    operation = declared()[name]
    assert isinstance(operation.cli, Command)
    app = typer.Typer(rich_markup_mode=None)
    app.command(name=name, help=operation.cli.help)(_callback(operation))
    return app


def _callback(operation: Operation[Any]) -> Any:
    request = operation.request
    assert request is not None

    def command(**given: Any) -> None:
        app: FaceContext = get_current_context().obj
        arguments = {key: value for key, value in given.items() if value is not None}
        doc = operation.call(app, arguments)
        app.output.show(doc, view_for(operation.name))
        raise typer.Exit(0)

    command.__doc__ = operation.cli.help if isinstance(operation.cli, Command) else None
    return with_options_of(request, command)
