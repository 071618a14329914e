"""The TOML config file: named profiles of settings.

Layout::

    [profiles.default]
    base_url = "http://127.0.0.1:8402"
    max_price_usd = "1.50"

Only known keys can be set, each with a type, so a typo fails at `svc config set` rather than
being silently ignored at payment time.
"""

from __future__ import annotations

import contextlib
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from svc import origin
from svc.errors import UsageError
from svc.settings import (
    DEFAULT_PROFILE,
    NO_CAP,
    daily_cap,
    ledger_url,
    positive_seconds,
    refuse_cleartext,
    signer_address,
    signer_setting,
    usd_amount,
    validity_seconds,
)
from svc.store.disk import file_unwritable
from svc.store.paths import config_dir, ensure_private_dir
from svc.suggest import did_you_mean


@dataclass(frozen=True)
class ConfigKey:
    name: str
    kind: str  # "url" | "str" | "usd" | "cap" | "list" | "choice" | "seconds"
    help: str
    choices: tuple[str, ...] = ()


KEYS: dict[str, ConfigKey] = {
    k.name: k
    for k in (
        ConfigKey("base_url", "url", "service base address"),
        ConfigKey("auth_base", "url", "identity endpoints base address"),
        ConfigKey(
            "allow_insecure_http",
            "choice",
            "accept a plain http:// base URL or auth base on another machine, warning at each "
            "payment or credential (default false; loopback needs no setting)",
            ("true", "false"),
        ),
        ConfigKey("email", "str", "default end-user e-mail for submit"),
        ConfigKey("pay", "choice", "payment method", ("x402", "mpp", "card")),
        ConfigKey("max_price_usd", "usd", "largest price paid per call without asking"),
        ConfigKey("allowed_networks", "list", "x402 networks allowed (comma separated)"),
        ConfigKey("allowed_assets", "list", "x402 asset contracts allowed (comma separated)"),
        ConfigKey("poll_interval", "seconds", "seconds between polls while watching"),
        ConfigKey(
            "notify",
            "choice",
            "watch and submit --wait tell the person when a task waits on them (default false)",
            ("true", "false"),
        ),
        ConfigKey("allowed_rails", "list", "payment rails allowed: x402, mpp, card (comma list)"),
        ConfigKey(
            "daily_cap_usd",
            "cap",
            "most paid per day across all processes (default 15.00; none: no cap; "
            "--fleet: the fleet ledger's one value)",
        ),
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
            "ledger_url",
            "str",
            "fleet mode: the shared ledger, postgresql://user@host/db (unset: the local file)",
        ),
        ConfigKey("runner", "str", "this runner's name in a shared ledger (default: host name)"),
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
        ConfigKey(
            "signer",
            "str",
            "who signs x402 payments: store (default), env (SVC_WALLET_KEY), "
            "command:PATH [ARGS] or jsonrpc:URL (docs/signers.md)",
        ),
        ConfigKey("signer_address", "str", "the address an external signer signs for"),
        ConfigKey("signer_timeout", "seconds", "seconds an external signer may take (default 60)"),
    )
}


def config_path() -> Path:
    return config_dir() / "config.toml"


def _coerce(key: ConfigKey, raw: str) -> Any:
    if key.kind == "url":
        return origin.setting(raw, key.name)
    if key.kind == "usd":
        usd_amount(key.name, raw)
        return raw
    if key.kind == "cap":
        return raw if daily_cap(key.name, raw) is not None else NO_CAP
    if key.kind == "list":
        return [part.strip() for part in raw.split(",") if part.strip()]
    if key.kind == "choice" and raw not in key.choices:
        raise UsageError(f"{key.name} must be one of {', '.join(key.choices)}, got {raw!r}")
    if key.name == "ledger_url":
        return ledger_url(key.name, raw, in_file=True)
    if key.name == "signer":
        return signer_setting(key.name, raw)
    if key.name == "signer_address":
        return signer_address(key.name, raw)
    if key.name == "max_validity_seconds":
        return validity_seconds(key.name, raw)
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
                text = self.path.read_bytes().decode("utf-8")
                data = tomllib.loads(text)
            except FileNotFoundError:
                self._data = {}
                return self._data
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise UsageError(f"config file {self.path} is not valid TOML: {exc}") from None
            except OSError as exc:
                raise UsageError(f"cannot read config file {self.path}: {exc.strerror}") from None
            _Checker(self.path, text).check(data)  # kept only once checked: every read re-fails
            self._data = data
        return self._data

    def profiles(self) -> list[str]:
        found = self._load().get("profiles", {})
        return sorted(found) if isinstance(found, dict) else []

    def profile(self, name: str, *, must_exist: bool = True) -> dict[str, Any]:
        """A profile's values. Naming one the file does not have is a mistake (a typo would
        silently drop its money limits), except the default profile and `config set`."""
        profiles = self._load().get("profiles", {})
        if name not in profiles and must_exist and name != DEFAULT_PROFILE:
            known = sorted(profiles)
            raise UsageError(
                f"profile {name!r} is not in {self.path}"
                + (f" (profiles: {', '.join(known)})" if known else " (it has no profiles)")
                + did_you_mean(name, known),
                hint=f"create it with: svc config set KEY VALUE --profile {name}",
            )
        return dict(profiles.get(name, {}))

    def set(self, profile: str, key: str, raw: str, *, cleartext_ok: bool = False) -> Any:
        """Write a checked value. `cleartext_ok`: allow_insecure_http is in effect, so a plain
        http:// URL to another machine may be written (else refused, as at every use)."""
        spec = KEYS.get(key)
        if spec is None:
            raise unknown_key(key)
        value = _coerce(spec, raw)
        if spec.kind == "url":
            refuse_cleartext(key, value, cleartext_ok)
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
        """A whole new file renamed over the old: a full or read-only disk leaves the old one
        as it was, and is one line naming the file and why."""
        import tomli_w

        tmp = self.path.with_suffix(".toml.tmp")
        try:
            ensure_private_dir(self.path.parent)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                tomli_w.dump(data, fh)
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise file_unwritable("the config file", self.path, exc) from None


def unknown_key(key: str) -> UsageError:
    """The one refusal of a config key that does not exist: a did-you-mean, then the list."""
    return UsageError(
        f"unknown config key {key!r}{did_you_mean(key, tuple(KEYS))}",
        hint=f"known keys: {', '.join(KEYS)}",
    )


class _Checker:
    """Every table, key and value of a config file is known and valid, or one line naming the
    file and line: a hand-written `max_price_usd` under the wrong table must never be dropped."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.lines = text.splitlines()

    def check(self, data: dict[str, Any]) -> None:
        for name, value in data.items():
            if name != "profiles":
                self._fail(
                    self._line(rf"\[\s*{re.escape(name)}\s*\]|{re.escape(name)}\s*="),
                    f"unknown table or key {name!r} at the top level; settings go under "
                    f"[profiles.NAME], e.g. [profiles.{DEFAULT_PROFILE}]",
                )
            if not isinstance(value, dict):
                self._fail(self._line(r"profiles\s*="), "'profiles' must be a table of tables")
            for profile, section in value.items():
                self._check_profile(profile, section)

    def _check_profile(self, profile: str, section: Any) -> None:
        header = rf"\[\s*profiles\.{re.escape(profile)}\s*\]"
        if not isinstance(section, dict):
            self._fail(self._line(header), f"[profiles.{profile}] must be a table")
        start = self._line(header)
        for key, value in section.items():
            where = self._line(rf"{re.escape(key)}\s*=", start)
            spec = KEYS.get(key)
            if spec is None:
                self._fail(
                    where,
                    f"unknown key {key!r} in [profiles.{profile}]" + did_you_mean(key, tuple(KEYS)),
                )
            try:
                _check_value(spec, value)
            except UsageError as exc:
                self._fail(where, f"[profiles.{profile}] {exc.message}")

    def _line(self, pattern: str, start: int = 0) -> int:
        """The 1-based line where `pattern` starts a line (after `start`), else `start`."""
        compiled = re.compile(rf"\s*(?:{pattern})")
        for number, line in enumerate(self.lines[start:], start=start + 1):
            if compiled.match(line):
                return number
        return start

    def _fail(self, line: int, message: str) -> NoReturn:
        where = f"{self.path}:{line}" if line else str(self.path)
        raise UsageError(
            f"{where}: {message}",
            code="bad_config",
            hint="edit that line (svc help environment lists every setting; "
            "svc config set writes valid ones)",
        )


def _check_value(spec: ConfigKey, value: Any) -> None:
    """A value as TOML gives it: lists for lists, text or numbers for the rest."""
    if spec.kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{spec.name} must be a list of strings, got {value!r}")
        return
    if isinstance(value, bool) and spec.choices == ("true", "false"):
        return  # `notify = true` as TOML writes a boolean
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise UsageError(f"{spec.name} must be text or a number, got {value!r}")
    _coerce(spec, str(value))
