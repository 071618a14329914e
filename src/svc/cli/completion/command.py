"""`svc completion show|install [SHELL]`: the shipped bash, zsh and fish completion scripts."""

from __future__ import annotations

import enum
import os
from pathlib import Path
from typing import TYPE_CHECKING

import typer

import svc
from svc.cli.app import current
from svc.errors import SvcError, UsageError

if TYPE_CHECKING:
    from svc.ui.output import Output


class Shell(enum.StrEnum):
    BASH = "bash"
    ZSH = "zsh"
    FISH = "fish"


# shell -> file name, as in completions/ and in the wheel's package data
FILE_NAMES = {Shell.BASH: "svc.bash", Shell.ZSH: "_svc", Shell.FISH: "svc.fish"}

app = typer.Typer(
    rich_markup_mode=None,
    no_args_is_help=True,
    help="Print or install the tab-completion script for bash, zsh or fish.\n\n"
    "Completes commands, options, enum values (--pay, --payment), profile names from the "
    "config file and your task ids from the local ledger, without touching the network. "
    "SHELL defaults to the one in $SHELL.\n\n"
    "\b\nExamples:\n"
    "  svc completion install\n"
    '  eval "$(svc completion show bash)"\n'
    "  svc completion show fish > ~/.config/fish/completions/svc.fish",
)


@app.callback()
def completion() -> None:
    """Print or install the tab-completion script for bash, zsh or fish."""


def _shell(shell: Shell | None) -> Shell:
    if shell is not None:
        return shell
    name = Path(os.environ.get("SHELL", "")).name
    try:
        return Shell(name)
    except ValueError:
        raise UsageError(
            f"cannot tell the shell from SHELL={name or '(unset)'!r}: "
            "name it, e.g. `svc completion install bash` (bash, zsh or fish)"
        ) from None


def script_path(shell: Shell) -> Path:
    """The shipped script: package data in an installed wheel, else completions/ of a checkout."""

    package = Path(svc.__file__).resolve().parent
    for folder in (package / "data" / "completions", package.parents[1] / "completions"):
        candidate = folder / FILE_NAMES[shell]
        if candidate.is_file():
            return candidate
    raise SvcError(
        f"the {shell.value} completion script is not part of this installation "
        "(reinstall svc-cli, or run `make docs` in a checkout)"
    )


def install_path(shell: Shell) -> tuple[Path, str]:
    """Where the shell looks for a user's completion scripts, and what (if anything) to add."""
    home = Path.home()
    if shell is Shell.BASH:
        user_dir = os.environ.get("BASH_COMPLETION_USER_DIR")
        data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
        base = Path(user_dir) if user_dir else data / "bash-completion"
        return (
            base / "completions" / "svc",
            "bash-completion loads it in new shells (needs the bash-completion package)",
        )
    if shell is Shell.ZSH:
        return (
            home / ".zfunc" / "_svc",
            "new shells load it if ~/.zshrc has `fpath=(~/.zfunc $fpath)` before "
            "`autoload -Uz compinit && compinit`",
        )
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return config / "fish" / "completions" / "svc.fish", "fish loads it in new shells"


SHELL_ARG = typer.Argument(None, metavar="SHELL", help="bash, zsh or fish (default: from $SHELL).")


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
    text = script_path(_shell(shell)).read_text(encoding="utf-8")
    current().output.document(text)


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
    chosen = _shell(shell)
    text = script_path(chosen).read_text(encoding="utf-8")
    target, hint = install_path(chosen)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temp = target.with_name(target.name + ".tmp")
        temp.write_text(text, encoding="utf-8")
        temp.replace(target)
    except OSError as error:
        raise SvcError(f"cannot write {target}: {error.strerror or error}") from None
    output = current().output

    def draw(out: Output, doc: dict[str, str]) -> None:
        out.line("installed the {shell} completion script: {path}", **doc)
        out.line("{hint}; to use it now: source {path}", **doc)

    output.show({"shell": chosen.value, "path": str(target), "hint": hint}, draw)
