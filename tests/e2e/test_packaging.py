"""`python -m build` gives a wheel and an sdist; the wheel installed into a fresh virtualenv, and
with pipx, is a working `svc` with its completion scripts and man pages.

About 25-30 s (the build, then two installs that resolve the dependencies from the package
index or pip's cache), so it lives in the normal suite.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import svc

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]


def run(argv: list[str], env: dict[str, str] | None = None, timeout: float = 180) -> str:
    proc = subprocess.run(
        argv, capture_output=True, text=True, env=env, timeout=timeout, check=False, cwd=REPO
    )
    assert proc.returncode == 0, f"{argv}\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The wheel and sdist, built once per run: under xdist each worker that runs a test of
    this module would build them again (15 s each on a loaded machine), so the first builds
    under a lock in the run's shared temporary directory and the others read its files."""
    out = _shared_dir(tmp_path_factory, "dist")
    with (out.parent / f"{out.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (out / "built").exists():
            run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)])
            (out / "built").touch()
    wheels = list(out.glob("*.whl"))
    sdists = list(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list(out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def _shared_dir(factory: pytest.TempPathFactory, name: str) -> Path:
    """A directory of this run that every xdist worker of it sees (the workers' temporary
    directories share a parent, named per run); without xdist, this process's own."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run_id is None:
        return factory.mktemp(name)
    path = factory.getbasetemp().parent / f"{name}-{run_id}"
    path.mkdir(exist_ok=True)
    return path


def test_wheel_and_sdist_carry_the_version_completions_and_man_pages(dist: dict[str, Path]) -> None:
    assert dist["wheel"].name == f"svc_cli-{svc.__version__}-py3-none-any.whl"
    assert dist["sdist"].name == f"svc_cli-{svc.__version__}.tar.gz"
    names = set(zipfile.ZipFile(dist["wheel"]).namelist())
    data = f"svc_cli-{svc.__version__}.data/data/share"
    for name in ("svc.bash", "_svc", "svc.fish"):
        assert f"svc/data/completions/{name}" in names
    assert f"{data}/bash-completion/completions/svc" in names
    assert f"{data}/zsh/site-functions/_svc" in names
    assert f"{data}/fish/vendor_completions.d/svc.fish" in names
    pages = {p.name for p in (REPO / "man").glob("*.1")}
    assert {n.rsplit("/", 1)[1] for n in names if n.startswith(f"{data}/man/man1/")} == pages
    with tarfile.open(dist["sdist"]) as sdist:
        members = set(sdist.getnames())
    root = f"svc_cli-{svc.__version__}"
    assert f"{root}/man/svc.1" in members and f"{root}/completions/_svc" in members


def _clean_env(**extra: str) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "TMPDIR", "PIP_INDEX_URL")}
    return {**keep, **extra}


# Two installs that resolve every dependency (the MCP SDK's included): minutes, not seconds,
# on a loaded machine, so the suite's 120 s default is too short for this one test.
@pytest.mark.timeout(600)
def test_wheel_in_a_fresh_venv_and_with_pipx(dist: dict[str, Path], tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    # Without pip of its own: ensurepip copies pip into it (seconds of disk on a loaded
    # machine); this pip installs into it (--python), from the same wheel and index, and what
    # the test runs is only what the wheel brought.
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python")]
    pip += ["--disable-pip-version-check", "-q"]
    # --no-compile: byte-compiling every dependency is most of an install's CPU, and Python
    # compiles what it imports anyway; what is installed, and from where, is the same.
    run([*pip, "install", "--no-compile", str(dist["wheel"])], timeout=300)
    home = tmp_path / "home"
    env = _clean_env(
        HOME=str(home),
        PATH=f"{venv / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}",
        SVC_CONFIG_DIR=str(home / "c"),
        SVC_DATA_DIR=str(home / "d"),
        SVC_KEYRING="file",
        MANPAGER="cat",
        MANWIDTH="80",
    )
    exe = str(venv / "bin" / "svc")
    assert run([exe, "--version"], env) == f"svc {svc.__version__}\n"
    assert "Commands" in run([exe, "--help"], env)
    # The scripts come from the installed package data (there is no checkout next to it).
    for shell, name in (("bash", "svc.bash"), ("zsh", "_svc"), ("fish", "svc.fish")):
        assert (
            run([exe, "completion", "show", shell], env)
            == (REPO / "completions" / name).read_text()
        )
    assert (
        run([exe, "__complete", "wal"], env)
        == "wallet\tManage each profile's x402 signing key (create, import, address, list).\n"
        ":nofiles\n"
    )
    assert (venv / "share/bash-completion/completions/svc").is_file()
    # man finds the pages through PATH (venv/bin -> venv/share/man).
    assert run(["man", "-w", "svc-submit"], env).strip() == str(
        venv / "share/man/man1/svc-submit.1"
    )
    page = " ".join(run(["man", "svc-identity-register"], env).split())
    assert "svc-identity-register - Register an agent credential" in page
    assert run([exe, "wallet", "create", "--json"], env).startswith('{"address": "0x')

    # pipx, into a throw-away PIPX_HOME: its own venv, a bin link and the man pages.
    pipx_env = _clean_env(
        HOME=str(home),
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "pipx-bin"),
        PIPX_MAN_DIR=str(tmp_path / "pipx-man"),
    )
    pipx = [sys.executable, "-m", "pipx", "install", "--pip-args=--no-compile"]
    run([*pipx, str(dist["wheel"])], pipx_env, timeout=300)
    piped = str(tmp_path / "pipx-bin" / "svc")
    assert run([piped, "--version"], env) == f"svc {svc.__version__}\n"
    assert run([piped, "completion", "show", "fish"], env).startswith("# fish completion for svc")
    assert (tmp_path / "pipx-man" / "man1" / "svc-watch.1").is_file()
