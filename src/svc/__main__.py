"""Entry point of the `svc` executable.

The hottest invocations (`--version`, tab completion, `poll ID` in JSON mode) are answered by
`svc.cli.fastpath` without importing Typer; everything else runs the full app.
"""

from __future__ import annotations

import sys

from svc.ui.terminal import let_a_person_interrupt, settle_streams


def main() -> None:
    let_a_person_interrupt()
    from svc.cli.fastpath import dispatch

    code = dispatch(sys.argv[1:])
    if code is None:
        from svc.cli.app import main as run

        code = run()
    settle_streams()  # a hung-up terminal must not make Python's last flush exit 120
    sys.exit(code)


if __name__ == "__main__":
    main()
