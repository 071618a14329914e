"""`svc completion show [SHELL]`: the completion script on stdout."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.completion.scripts import chosen_shell, script_path
from svc.operations.setup import CompletionShowRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Print the completion script for SHELL on stdout.\n\n"
    "Load it into the running shell, or save it wherever you keep completion scripts. The "
    "script only runs `svc __complete` on each TAB, so it stays valid when svc is upgraded.\n\n"
    "\b\nExamples:\n"
    '  eval "$(svc completion show bash)"\n'
    "  source <(svc completion show zsh)\n"
    "  svc completion show fish | source",
)
def show(**given: Any) -> None:
    raise typer.Exit(run(CompletionShowRequest.model_construct(**given), current()))


with_options_of(CompletionShowRequest, show)  # SHELL: as the operation declares it


def run(opts: CompletionShowRequest, app_ctx: FaceContext) -> int:
    shell = chosen_shell(opts.shell)
    app_ctx.output.document(script_path(shell).read_text(encoding="utf-8"))
    return 0
