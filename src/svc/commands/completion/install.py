"""`svc completion install [SHELL]`: the script where the shell looks for it."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.commands.completion.scripts import chosen_shell, install_path, script_path
from svc.errors import SvcError
from svc.operations.setup import CompletionInstallRequest
from svc.ui.face import FaceContext
from svc.ui.output import Output

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    help="Install the completion script where SHELL looks for it.\n\n"
    "bash: $XDG_DATA_HOME/bash-completion/completions/svc (~/.local/share/...); zsh: "
    "~/.zfunc/_svc (add ~/.zfunc to fpath); fish: ~/.config/fish/completions/svc.fish. "
    "Prints where it went; replaces an earlier copy; never edits your shell's start-up "
    "files.\n\n"
    "\b\nExamples:\n"
    "  svc completion install\n"
    "  svc completion install zsh",
)
def install(**given: Any) -> None:
    raise typer.Exit(run(CompletionInstallRequest.model_construct(**given), current()))


with_options_of(CompletionInstallRequest, install)  # SHELL: as the operation declares it


def run(opts: CompletionInstallRequest, app_ctx: FaceContext) -> int:
    shell = chosen_shell(opts.shell)
    text = script_path(shell).read_text(encoding="utf-8")
    target, hint = install_path(shell)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(target.name + ".tmp")
        temp.write_text(text, encoding="utf-8")
        temp.replace(target)
    except OSError as error:
        raise SvcError(f"cannot write {target}: {error.strerror or error}") from None

    def draw(out: Output, doc: dict[str, str]) -> None:
        out.line("installed the {shell} completion script: {path}", **doc)
        out.line("{hint}; to use it now: source {path}", **doc)

    app_ctx.output.show({"shell": shell.value, "path": str(target), "hint": hint}, draw)
    return 0
