"""What several commands read from the person: task text and batch files, payment flags."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import IO

from svc import rail_table
from svc.context import AppContext
from svc.errors import UsageError
from svc.settings import usd_amount
from svc.ui.terminal import error_line


@contextmanager
def _input_errors(what: str, path: str) -> Iterator[None]:
    """Turn the ways a user's file can fail to open into one clear line (exit 2)."""
    try:
        yield
    except FileNotFoundError:
        raise UsageError(f"cannot read {what}: {path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"cannot read {what}: {path} is a directory") from None
    except PermissionError:
        raise UsageError(f"cannot read {what}: {path}: permission denied") from None
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {what}: {path} is not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"cannot read {what}: {path}: {exc.strerror}") from None


def read_text_source(path: str, what: str) -> str:
    """Read `path` ('-' for stdin) as UTF-8, with one clear line on any failure."""
    with _input_errors(what, path):
        if path == "-":
            if sys.stdin.isatty():
                error_line(f"reading {what} from standard input; end with Ctrl-D")
            return sys.stdin.read()
        return Path(path).read_text(encoding="utf-8")


def open_binary_source(path: str, what: str) -> IO[bytes]:
    """`path` ('-' for stdin) opened for reading bytes, with one clear line if it cannot be."""
    if path == "-":
        return sys.stdin.buffer
    with _input_errors(what, path):
        return open(path, "rb")


def payment_flags(
    app: AppContext, pay: str | None, max_price: str | None
) -> tuple[str, Decimal | None]:
    """The rail (`--pay` or config) and the per-call cap (`--max-price`), checked."""
    method = pay or app.settings.pay
    if method not in rail_table.NAMES:
        raise UsageError(f"--pay must be {rail_table.in_words()}, got {method!r}")
    if max_price is None:
        return method, None
    return method, usd_amount("--max-price", max_price)
