"""The shipped bash, zsh and fish completion scripts: which shell, where a script is, where it goes."""

from __future__ import annotations

import os
from pathlib import Path

import svc
from svc.errors import SvcError, UsageError
from svc.operations.setup import Shell

# shell -> file name, as in completions/ and in the wheel's package data
FILE_NAMES = {Shell.BASH: "svc.bash", Shell.ZSH: "_svc", Shell.FISH: "svc.fish"}


def chosen_shell(shell: Shell | None) -> Shell:
    """SHELL as given, else the one $SHELL names, else a usage error saying how to name it."""
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
