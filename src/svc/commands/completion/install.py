"""`svc completion install [SHELL]`: the script where the shell looks for it."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.commands.completion.scripts import (
    SHELL_ARG,
    Shell,
    chosen_shell,
    install_path,
    script_path,
)
from svc.errors import SvcError
from svc.ui.face import FaceContext
from svc.ui.output import Output

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class InstallOptions:
    shell: Shell


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
def install(shell: Shell | None = SHELL_ARG) -> None:
    raise typer.Exit(run(InstallOptions(chosen_shell(shell)), current()))


def run(opts: InstallOptions, app_ctx: FaceContext) -> int:
    text = script_path(opts.shell).read_text(encoding="utf-8")
    target, hint = install_path(opts.shell)
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

    app_ctx.output.show({"shell": opts.shell.value, "path": str(target), "hint": hint}, draw)
    return 0
