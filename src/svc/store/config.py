"""The TOML config file: named profiles of settings.

Layout::

    [profiles.default]
    base_url = "http://127.0.0.1:8402"
    max_price_usd = "1.50"

Only known keys can be set, each with a type, so a typo fails at `svc config set` rather than
being silently ignored at payment time.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svc.api.errors import UsageError
from svc.settings import positive_seconds, usd_amount
from svc.store.paths import config_dir, ensure_private_dir


@dataclass(frozen=True)
class ConfigKey:
    name: str
    kind: str  # "url" | "str" | "usd" | "list" | "choice" | "seconds"
    help: str
    choices: tuple[str, ...] = ()


KEYS: dict[str, ConfigKey] = {
    k.name: k
    for k in (
        ConfigKey("base_url", "url", "service base address"),
        ConfigKey("auth_base", "url", "identity endpoints base address"),
        ConfigKey("email", "str", "default end-user e-mail for submit"),
        ConfigKey("pay", "choice", "payment method", ("x402", "mpp", "card")),
        ConfigKey("max_price_usd", "usd", "largest price paid per call without asking"),
        ConfigKey("allowed_networks", "list", "x402 networks allowed (comma separated)"),
        ConfigKey("allowed_assets", "list", "x402 asset contracts allowed (comma separated)"),
        ConfigKey("poll_interval", "seconds", "seconds between polls while watching"),
        ConfigKey("allowed_rails", "list", "payment rails allowed: x402, mpp, card (comma list)"),
        ConfigKey("daily_cap_usd", "usd", "most paid per day across all processes (unset: no cap)"),
        ConfigKey("mpp_methods", "list", "MPP methods in order of preference (default stripe)"),
        ConfigKey("spt_file", "str", "file holding a shared payment token for MPP (mode 0600)"),
        ConfigKey("spt_command", "str", "command printing a fresh shared payment token for MPP"),
        ConfigKey(
            "max_validity_seconds",
            "seconds",
            "longest validity signed into an x402 authorization (default 300)",
        ),
        ConfigKey(
            "duplicate_window_seconds",
            "seconds",
            "ask before paying for the same task and e-mail again within this time (default 600)",
        ),
        ConfigKey(
            "mcp_preapproved_usd",
            "usd",
            "svc mcp: paid calls up to this price need no confirmation (unset: always confirm)",
        ),
        ConfigKey(
            "mcp_allow_model_secrets",
            "choice",
            "svc mcp: accept a secret typed by the model in reply_to_task (default false)",
            ("true", "false"),
        ),
    )
}


def config_path() -> Path:
    return config_dir() / "config.toml"


def _coerce(key: ConfigKey, raw: str) -> Any:
    if key.kind == "url":
        if not raw.startswith(("http://", "https://")):
            raise UsageError(f"{key.name} must be an http(s) URL, got {raw!r}")
        return raw.rstrip("/")
    if key.kind == "usd":
        usd_amount(key.name, raw)
        return raw
    if key.kind == "list":
        return [part.strip() for part in raw.split(",") if part.strip()]
    if key.kind == "choice" and raw not in key.choices:
        raise UsageError(f"{key.name} must be one of {', '.join(key.choices)}, got {raw!r}")
    if key.kind == "seconds":
        return positive_seconds(key.name, raw)
    return raw


class ConfigFile:
    """Reads and writes the profiles; writes are atomic (temp file + rename)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_path()
        self._data: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            try:
                with self.path.open("rb") as fh:
                    self._data = tomllib.load(fh)
            except FileNotFoundError:
                self._data = {}
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise UsageError(f"config file {self.path} is not valid TOML: {exc}") from None
            except OSError as exc:
                raise UsageError(f"cannot read config file {self.path}: {exc.strerror}") from None
        return self._data

    def profiles(self) -> list[str]:
        found = self._load().get("profiles", {})
        return sorted(found) if isinstance(found, dict) else []

    def profile(self, name: str) -> dict[str, Any]:
        section = self._load().get("profiles", {}).get(name, {})
        return dict(section) if isinstance(section, dict) else {}

    def set(self, profile: str, key: str, raw: str) -> Any:
        spec = KEYS.get(key)
        if spec is None:
            raise UsageError(f"unknown config key {key!r}; known keys: {', '.join(KEYS)}")
        value = _coerce(spec, raw)
        data = self._load()
        data.setdefault("profiles", {}).setdefault(profile, {})[key] = value
        self._write(data)
        return value

    def unset(self, profile: str, key: str) -> bool:
        data = self._load()
        section = data.get("profiles", {}).get(profile, {})
        if key not in section:
            return False
        del section[key]
        self._write(data)
        return True

    def _write(self, data: dict[str, Any]) -> None:
        import tomli_w

        ensure_private_dir(self.path.parent)
        tmp = self.path.with_suffix(".toml.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            tomli_w.dump(data, fh)
        os.replace(tmp, self.path)
