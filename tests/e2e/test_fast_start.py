"""`--version` and a TAB load only what they print; `--help` is Typer's at every width.

Each case runs the installed `svc` script under `python -X importtime` as a process and
compares what it imported with what a bare `python -c pass` imports: the difference must be
svc's own few modules (and, for a TAB on a task id, what reading the ledger needs). Timings
are `make bench`'s; these are the rules that make them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e


def loaded(args: list[str], env: dict[str, str], timeout: float = 60) -> tuple[set[str], str]:
    """The modules a run imports (full dotted names) and its stdout."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return names - {"package"}, proc.stdout  # `package`: importtime's own heading


def beyond_python(args: list[str], env: dict[str, str]) -> tuple[set[str], str]:
    """What `svc ARGS` imports that `python -c pass` does not (not `-m svc`: runpy imports
    more than a user's start does)."""
    bare, _ = loaded(["-c", "pass"], env)
    ours, out = loaded([SVC, *args], env)
    return ours - bare, out


# `gc` is built into the interpreter (no file is read): the entry freezes the heap with it.
ENTRY = {
    "__future__",
    "gc",
    "svc",
    "svc.version",
    "svc.ui",
    "svc.ui.terminal",
    "svc.__main__",
    "svc.cli",
}
assert "gc" in sys.builtin_module_names


def test_version_loads_only_what_it_prints(bare_cli: Cli) -> None:
    extra, out = beyond_python(["--version"], bare_cli.env)
    assert out.startswith("svc ")
    allowed = ENTRY | {"svc.ui.plain"}
    assert extra <= allowed, sorted(extra - allowed)


def test_a_tab_on_a_command_name_loads_only_the_table(bare_cli: Cli) -> None:
    extra, out = beyond_python(["__complete", "po"], bare_cli.env)
    assert out.startswith("poll\t")
    allowed = ENTRY | {"svc.completion", "svc.completion.table"}
    allowed |= {"svc.completion.complete"}
    assert extra <= allowed, sorted(extra - allowed)


@pytest.mark.parametrize(
    "columns", [None, "80", "200", "79", "60", "40", "x"], ids=lambda c: f"COLUMNS={c}"
)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_at_every_width(bare_cli: Cli, flag: str, columns: str | None) -> None:
    env = {k: v for k, v in bare_cli.env.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = columns
    shown = bare_cli(flag, env=env)
    assert shown.returncode == 0 and shown.stderr == ""
    assert shown.stdout.startswith("Usage: svc [OPTIONS] COMMAND")


def test_a_tab_reads_the_ledger_under_an_odd_data_dir(cli: Cli, sandbox: Sandbox) -> None:
    """The completer's own file URI (no pathlib) escapes what a URI would misread."""
    odd = cli.home / "data ?#%20 dir"
    env = {"SVC_DATA_DIR": str(odd)}
    task = cli.ok("submit", "tab #slow", "--email", unique_email(), "--json", env=env).json()
    answer = cli.ok("__complete", "poll", "", env=env)
    assert answer.stdout.startswith(f"{task['id']}\tpending: tab #slow\n"), answer.stdout
    assert answer.stdout.endswith(":nofiles\n")


def test_the_completer_finds_state_where_the_store_keeps_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from svc.completion import complete
    from svc.store import paths

    for variable in ("SVC_DATA_DIR", "SVC_CONFIG_DIR"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    assert complete._state_dir("SVC_DATA_DIR") == str(paths.data_dir())
    assert complete._state_dir("SVC_CONFIG_DIR") == str(paths.config_dir())
    monkeypatch.setenv("SVC_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("SVC_CONFIG_DIR", str(tmp_path / "c"))
    assert complete._state_dir("SVC_DATA_DIR") == str(paths.data_dir())
    assert complete._state_dir("SVC_CONFIG_DIR") == str(paths.config_dir())
    assert os.path.isabs(complete._file_uri("rel").removeprefix("file:"))


@pytest.mark.parametrize("redirect", [">&-", ">/dev/full"], ids=["closed", "full"])
@pytest.mark.parametrize("args", [["--version"], ["--help"], ["__complete", "po"]])
def test_a_stdout_that_takes_nothing_is_one_line_never_a_traceback(
    bare_cli: Cli, args: list[str], redirect: str
) -> None:
    """`svc --version >&-` ended in an AttributeError traceback, `> /dev/full` in an OSError
    one; a TAB's answer has nowhere to go either and still exits 0 in silence. A stdout not
    open at all is /dev/null to svc (a closed stream never changes the exit code); a full
    disk is a failure to write, said in one line."""
    if redirect == ">/dev/full" and not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    proc = subprocess.run(
        ["sh", "-c", f'exec "$0" "$@" {redirect}', SVC, *args],
        capture_output=True,
        text=True,
        env=bare_cli.env,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    if args[0] == "__complete" or redirect == ">&-":
        assert (proc.returncode, proc.stderr) == (0, "")
    else:
        assert proc.returncode == 1
        assert proc.stderr.startswith("svc: cannot write")
        assert "No space left on device" in proc.stderr
        assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize("columns", [60, 79, 80, 120])
def test_help_on_a_terminal(bare_cli: Cli, columns: int) -> None:
    """On a pty (no COLUMNS): the width is the terminal's, as Click reads it."""
    import pexpect

    env = {k: v for k, v in bare_cli.env.items() if k not in ("COLUMNS", "LINES")}
    child = pexpect.spawn(SVC, ["--help"], env=env, dimensions=(40, columns), encoding="utf-8")
    child.expect(pexpect.EOF, timeout=60)
    child.close()
    assert child.exitstatus == 0
    assert str(child.before).startswith("Usage: svc [OPTIONS] COMMAND")
