"""The shipped completion scripts in real bash, zsh and fish, and `svc completion show|install`.

Bash: the completion function is driven with COMP_WORDS/COMP_CWORD as bash itself would call it
on TAB. Fish: `complete -C` runs the completion for a command line. Zsh: the script is loaded
the two ways users load it (from $fpath through compinit, and sourced) and its candidate helper
is called. Task ids come from the ledger the `cli` fixture's submissions wrote.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
COMPLETIONS = REPO / "completions"


def _shell(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is missing: run `make tools` (installs jq, zsh, fish, man-db)")
    return path


def _env(cli: Cli) -> dict[str, str]:
    # The scripts run `svc` from PATH, as in a user's shell.
    return {**cli.env, "PATH": f"{Path(SVC).parent}:{cli.env.get('PATH', '/usr/bin:/bin')}"}


def _run(cli: Cli, argv: list[str]) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        argv, capture_output=True, text=True, env=_env(cli), timeout=60, check=False, cwd=cli.home
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


BASH_DRIVER = r"""
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
_svc
printf '%s\n' "${COMPREPLY[@]}"
"""


def bash_complete(cli: Cli, *words: str) -> list[str]:
    proc = _run(
        cli,
        [
            _shell("bash"),
            "--norc",
            "-c",
            BASH_DRIVER,
            "bash",
            str(COMPLETIONS / "svc.bash"),
            *words,
        ],
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return [line for line in proc.stdout.splitlines() if line]


def fish_complete(cli: Cli, line: str) -> list[str]:
    script = f"source {COMPLETIONS / 'svc.fish'}; complete -C{line!r}"
    proc = _run(cli, [_shell("fish"), "--no-config", "-c", script])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    return proc.stdout.splitlines()


@pytest.fixture
def task_ids(cli: Cli, sandbox: Sandbox) -> list[str]:
    return [
        cli.ok("submit", f"completion {n} #slow", "--email", unique_email(), "--json").json()["id"]
        for n in range(2)
    ]


def test_bash_completes_task_ids_from_the_ledger(cli: Cli, task_ids: list[str]) -> None:
    first, second = task_ids
    assert bash_complete(cli, "svc", "poll", "")[:2] == [second, first]  # newest first
    assert bash_complete(cli, "svc", "watch", first[:-1]) == [first]
    # Ids already on a watch line are not offered again.
    assert first not in bash_complete(cli, "svc", "watch", first, "")
    assert bash_complete(cli, "svc", "--json", "reply", second[:-1]) == [second]


def test_bash_completes_commands_options_enums_profiles_and_files(cli: Cli) -> None:
    cli.ok("config", "set", "email", "a@example.com", "--profile", "work")
    assert bash_complete(cli, "svc", "sub") == ["submit"]
    assert "register" in bash_complete(cli, "svc", "identity", "")
    assert bash_complete(cli, "svc", "submit", "--dry") == ["--dry-run"]
    assert bash_complete(cli, "svc", "submit", "--pay", "") == ["x402", "mpp", "card"]
    assert bash_complete(cli, "svc", "quote", "goal", "--payment", "m") == ["mpp"]
    # `--pay=m` reaches the function as `--pay` `=` `m` (COMP_WORDBREAKS); candidates replace `m`.
    assert bash_complete(cli, "svc", "submit", "--pay", "=", "m") == ["mpp"]
    assert bash_complete(cli, "svc", "--profile", "") == ["default", "work"]
    assert bash_complete(cli, "svc", "completion", "show", "") == ["bash", "zsh", "fish"]
    assert bash_complete(cli, "svc", "help", "e") == ["exit-codes", "environment", "entitlements"]
    (cli.home / "task.txt").write_text("x", encoding="utf-8")
    assert bash_complete(cli, "svc", "submit", "--file", "tas") == ["task.txt"]
    assert bash_complete(cli, "svc", "poll", "nothing-like-this") == []


def test_fish_loads_and_completes_task_ids_with_descriptions(cli: Cli, task_ids: list[str]) -> None:
    lines = fish_complete(cli, "svc poll ")
    assert any(line.startswith(f"{task_ids[0]}\t") and "completion 0" in line for line in lines), (
        lines
    )
    assert fish_complete(cli, "svc sub") == [
        "submit\tSubmit a task for an end user and pay for it."
    ]
    assert sorted(fish_complete(cli, "svc submit --pay ")) == ["card", "mpp", "x402"]
    assert fish_complete(cli, "svc submit --pay=m") == ["--pay=mpp"]


def test_zsh_loads_from_fpath_and_when_sourced(cli: Cli, task_ids: list[str]) -> None:
    zsh = _shell("zsh")
    dump = cli.home / "zcompdump"
    from_fpath = (
        f"fpath=({COMPLETIONS} $fpath); autoload -Uz compinit; compinit -u -d {dump}; "
        "print -r -- comps=$_comps[svc]; autoload +X _svc && whence -w _svc"
    )
    proc = _run(cli, [zsh, "-f", "-c", from_fpath])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.splitlines() == ["comps=_svc", "_svc: function"]
    sourced = (
        f"autoload -Uz compinit; compinit -u -d {dump}; source {COMPLETIONS / '_svc'}; "
        "print -r -- comps=$_comps[svc]; _svc_candidates poll ''; print -rl -- $reply $REPLY"
    )
    proc = _run(cli, [zsh, "-f", "-c", sourced])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "comps=_svc"
    assert any(line.startswith(f"{task_ids[1]}:") for line in lines), lines
    assert lines[-1] == ":nofiles"


def test_completion_show_prints_the_shipped_scripts(bare_cli: Cli) -> None:
    for shell, name in (("bash", "svc.bash"), ("zsh", "_svc"), ("fish", "svc.fish")):
        out = bare_cli.ok("completion", "show", shell).stdout
        assert out == (COMPLETIONS / name).read_text(encoding="utf-8")
    # Without SHELL, the login shell's ($SHELL) script.
    out = bare_cli.ok("completion", "show", env={"SHELL": "/usr/bin/fish"}).stdout
    assert out.startswith("# fish completion for svc")


def test_completion_install_writes_each_shells_user_location(bare_cli: Cli) -> None:
    home = bare_cli.home
    expected = {
        "bash": home / ".local/share/bash-completion/completions/svc",
        "zsh": home / ".zfunc/_svc",
        "fish": home / ".config/fish/completions/svc.fish",
    }
    for shell, target in expected.items():
        doc = bare_cli.ok("completion", "install", shell, "--json").json()
        assert doc["shell"] == shell and doc["path"] == str(target)
        assert target.read_text(encoding="utf-8") == bare_cli.ok("completion", "show", shell).stdout
    # XDG locations are honoured; a second install replaces the first.
    xdg = home / "xdg"
    doc = bare_cli.ok("completion", "install", "bash", env={"XDG_DATA_HOME": str(xdg)}).json()
    assert doc["path"] == str(xdg / "bash-completion/completions/svc")
    assert "bash-completion" in doc["hint"]
    bare_cli.ok("completion", "install", "bash", env={"XDG_DATA_HOME": str(xdg)})
    # The installed bash script works from where bash-completion would load it.
    proc = subprocess.run(
        [_shell("bash"), "--norc", "-c", BASH_DRIVER, "bash", doc["path"], "svc", "wal"],
        capture_output=True,
        text=True,
        env=_env(bare_cli),
        timeout=30,
        check=False,
    )
    assert proc.stdout.split() == ["wallet"]


def test_completion_refuses_an_unknown_or_undetectable_shell(bare_cli: Cli) -> None:
    result = bare_cli("completion", "install", "tcsh")
    assert result.returncode == 2
    assert "'tcsh' is not one of 'bash', 'zsh', 'fish'" in result.stderr
    result = bare_cli("completion", "show", env={"SHELL": "/bin/sh"})
    assert result.returncode == 2
    assert result.stderr.splitlines()[0] == (
        "svc: cannot tell the shell from SHELL='sh': name it, e.g. `svc completion install bash` "
        "(bash, zsh or fish)"
    )
    assert not (bare_cli.home / ".zfunc").exists()


def test_help_topics(bare_cli: Cli) -> None:
    codes = bare_cli.ok("help", "exit-codes", "--json").json()
    assert [c["code"] for c in codes] == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 130]
    assert codes[6]["name"] == "human needed"
    env = bare_cli.ok("help", "environment", "--json").json()
    assert {
        "variable": "SVC_NO_INPUT",
        "meaning": "1: never prompt (--no-input); exit 6 where a person is needed",
    } in env
    topics = bare_cli.ok("--json", "help").json()
    assert [t["topic"] for t in topics] == ["exit-codes", "environment", "files", "output"]
    result = bare_cli("help", "nope")
    assert result.returncode == 2
    assert "'nope' is neither a help topic (exit-codes, environment, files, output) nor a " in (
        result.stderr
    )
    flags = bare_cli.ok("help", "output", "--jq", ".[].flag").stdout.split("\n")
    assert {"--json", "--jq EXPR", "--template TPL"} <= set(flags)


def test_help_topics_are_text_when_piped_so_grep_works(bare_cli: Cli) -> None:
    """`svc help environment | grep SVC_` gets lines, not one JSON document."""
    text = bare_cli.ok("help", "environment").stdout
    lines = [line for line in text.splitlines() if line.strip().startswith("SVC_NO_INPUT ")]
    assert len(lines) == 1 and not text.lstrip().startswith("[")
    assert "130" in bare_cli.ok("help", "exit-codes").stdout


def test_help_command_is_the_command_help(bare_cli: Cli) -> None:
    assert bare_cli.ok("help", "submit").stdout == bare_cli.ok("submit", "--help").stdout


def test_help_shows_metavars_people_understand(bare_cli: Cli) -> None:
    """No Python types (`<str>`, `<int range>`) and no braces around required arguments."""
    import re

    from svc.completion.table import TABLE

    def walk(node: dict[str, Any], path: list[str]) -> list[list[str]]:
        found = [path] if path else []
        for name, child in node.get("commands", {}).items():
            found += walk(child, [*path, name])
        return found

    paths = walk(TABLE, [])
    assert ["poll"] in paths and ["sandbox", "serve"] in paths
    for path in paths:
        text = bare_cli.ok(*path, "--help").stdout
        assert not re.search(r"<[a-z][a-z \[\]]*>|\{[A-Z_]+\}|\[\[", text), (path, text)
    assert "Usage: svc poll [OPTIONS] ID" in bare_cli.ok("poll", "--help").stdout
    assert "--limit N" in bare_cli.ok("tasks", "--help").stdout
    repo = Path(__file__).resolve().parents[2]
    for page in (repo / "man").glob("*.1"):  # the man pages are made from the same help
        text = page.read_text()
        assert not re.search(r"<[a-z][a-z \[\]]*>|\{[A-Z_]+\}|\[\[", text), page.name
