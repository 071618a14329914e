"""`svc completion show [SHELL]`: the completion script on stdout."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.completion.scripts import SHELL_ARG, Shell, chosen_shell, script_path
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class ShowOptions:
    shell: Shell


@app.command(
    help="Print the completion script for SHELL on stdout.\n\n"
    "Load it into the running shell, or save it wherever you keep completion scripts. The "
    "script only runs `svc __complete` on each TAB, so it stays valid when svc is upgraded.\n\n"
    "\b\nExamples:\n"
    '  eval "$(svc completion show bash)"\n'
    "  source <(svc completion show zsh)\n"
    "  svc completion show fish | source",
)
def show(shell: Shell | None = SHELL_ARG) -> None:
    raise typer.Exit(run(ShowOptions(chosen_shell(shell)), current()))


def run(opts: ShowOptions, app_ctx: FaceContext) -> int:
    app_ctx.output.document(script_path(opts.shell).read_text(encoding="utf-8"))
    return 0
