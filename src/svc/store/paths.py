"""Where local state lives; every location can be overridden from the environment."""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "svc"


def config_dir() -> Path:
    override = os.environ.get("SVC_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs  # only when no override: saves its import on CI paths

    return Path(platformdirs.user_config_dir(APP_NAME))


def data_dir() -> Path:
    override = os.environ.get("SVC_DATA_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


LEDGER_FILE = "ledger.sqlite3"  # completion spells it too, without this import (a test checks)


def ledger_path() -> Path:
    """The local ledger's file (store/ledger/sqlite.py opens it; `has_ledger` only looks)."""
    return data_dir() / LEDGER_FILE


def ensure_private_dir(path: Path) -> Path:
    """Create a directory readable only by its owner (state here includes payment proofs)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
