"""Entry point of the `svc` executable."""

from __future__ import annotations

import sys


def main() -> None:
    from svc.cli.app import main as run

    sys.exit(run())


if __name__ == "__main__":
    main()
