"""The TOML config file: named profiles of settings.

Layout::

    [profiles.default]
    base_url = "http://127.0.0.1:8402"
    max_price_usd = "1.50"

Only known keys can be set, each with a type, so a typo fails at `svc config set` rather than
being silently ignored at payment time. The keys and their checks are the settings table's
(svc/settings_table.py: the rows that may live in the file, each read by its kind's parser).
"""

from __future__ import annotations

import contextlib
import os
import re
import tomllib
from pathlib import Path
from typing import Any, NoReturn

from svc.errors import UsageError
from svc.settings import DEFAULT_PROFILE, NO_CAP, Reading, parse
from svc.settings_table import BOOL, BY_KEY, FILE_KEYS, Setting
from svc.store.disk import file_unwritable
from svc.store.paths import config_dir, ensure_private_dir
from svc.suggest import did_you_mean

# The keys a profile may hold, in the settings table's order (svc/settings_table.py).
KEYS: dict[str, Setting] = {key: BY_KEY[key] for key in FILE_KEYS}
_LISTS = ("list", "rails", "origins")  # kinds the file holds as a TOML list of strings
# Kinds the file keeps as the person typed them (the parser only checks them): `1.50` stays
# `1.50`, never 1.5; the rest keep the parsed value (a URL normalised, seconds as a number).
_AS_TYPED = ("usd", "text", "bool", "rail")


def config_path() -> Path:
    return config_dir() / "config.toml"


def _coerce(key: Setting, raw: str, *, cleartext_ok: bool = True) -> Any:
    """`raw` as the config file stores it, checked by the setting's own parser (the one that
    reads it back) as a value from the file: no password in a ledger URL, and a plain http://
    URL to another machine only when `cleartext_ok`."""
    if key.choices == BOOL and raw not in BOOL:  # the file's booleans are spelt one way
        raise UsageError(f"{key.key} must be one of {', '.join(BOOL)}, got {raw!r}")
    value = parse(key.key, raw, Reading(in_file=True, cleartext_ok=cleartext_ok))
    if key.kind in _LISTS:
        return list(value)
    if key.kind == "cap":
        return raw if value is not None else NO_CAP
    if key.kind == "count_or_off":
        return 0 if value is None else value  # 0 is how the file says "off"
    return raw if key.kind in _AS_TYPED else value


class ConfigFile:
    """Reads and writes the profiles; writes are atomic (temp file + rename)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path: Path = path or config_path()
        self._data: dict[str, Any] | None = None

    def again(self) -> ConfigFile:
        """The same file, to be read anew (what was read of it is kept by this one)."""
        return ConfigFile(self.path)

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
        silently drop its money limits), except the default profile and a command that
        writes the profile it names (`config set`, `wallet create|import`)."""
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

    def add_profile(self, name: str) -> bool:
        """An empty [profiles.NAME] table, unless the file holds one: whether it was added.
        A command that stores a profile's secret (`svc wallet create --profile work`) makes
        its profile exist, so every later command may name it."""
        data = self._load()
        profiles = data.setdefault("profiles", {})
        if name in profiles:
            return False
        profiles[name] = {}
        self._write(data)
        return True

    def set(self, profile: str, key: str, raw: str, *, cleartext_ok: bool = False) -> Any:
        """Write a checked value. `cleartext_ok`: allow_insecure_http is in effect, so a plain
        http:// URL to another machine may be written (else refused, as at every use)."""
        spec = KEYS.get(key)
        if spec is None:
            raise unknown_key(key)
        value = _coerce(spec, raw, cleartext_ok=cleartext_ok)
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


def _check_value(spec: Setting, value: Any) -> None:
    """A value as TOML gives it: lists for lists, text or numbers for the rest."""
    if spec.kind in _LISTS:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{spec.key} must be a list of strings, got {value!r}")
        parse(spec.key, value, Reading(in_file=True, cleartext_ok=True))
        return
    if isinstance(value, bool) and spec.choices == BOOL:
        return  # `notify = true` as TOML writes a boolean
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise UsageError(f"{spec.key} must be text or a number, got {value!r}")
    _coerce(spec, str(value))
