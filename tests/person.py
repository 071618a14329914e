"""A person at a terminal, for the pty tests: `svc` on a pty without CI set, and fake desktop
programs (notifiers, browsers) that record how they were called."""

from __future__ import annotations

import stat
from pathlib import Path

import pexpect
from tests.conftest import SVC, Cli


def spawn_person(cli: Cli, *args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    """`svc ARGS` on a 50x160 pty, as a person runs it (no CI: prompts and pictures on)."""
    full = {k: v for k, v in {**cli.env, **(env or {})}.items() if k != "CI"}
    return pexpect.spawn(
        SVC, list(args), env=full, encoding="utf-8", timeout=30, dimensions=(50, 160)
    )


def finish(child: pexpect.spawn) -> int:
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus)


def fake_programs(tmp_path: Path, names: tuple[str, ...], log: Path) -> Path:
    """A bin folder of shell scripts that append their argv (one per line, then `---`) to log."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name in names:
        script = bin_dir / name
        script.write_text(
            f'#!/bin/sh\nprintf "%s\\n" "$0" "$@" >> {log}\nprintf -- "---\\n" >> {log}\n'
        )
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return bin_dir


def fake_notify_send(tmp_path: Path) -> tuple[Path, Path]:
    log = tmp_path / "notify.log"
    return fake_programs(tmp_path, ("notify-send",), log), log


TEXT_BROWSERS = ("lynx", "w3m", "links", "www-browser", "x-www-browser", "xdg-open")
