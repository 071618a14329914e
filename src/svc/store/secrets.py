"""The secret store: the OS keyring first, else a 0600 file in the config dir.

Secrets (wallet key, identity assertion, refresh token, shared payment token) live only here.
On headless Linux there is no Secret Service: we detect that without touching D-Bus and fall
back to the file at once, instead of hanging or prompting for a keyring password, and say so
once: when the file is created (and in `svc doctor`).
`SVC_KEYRING=file` forces the file store; environment variables (`SVC_WALLET_KEY`, `SVC_SPT`)
override stored values for CI and are never written anywhere.

A profile's own secrets (its wallet key, its MPP token, its remote signer's token) are entries
of their own (`profile_key`): the default profile keeps the names svc has always used, so the
key stored before profiles had wallets is the default profile's with nothing moved (and an older
svc still finds it), and another profile's entry carries its name: it never reads another's.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from svc.errors import SvcError
from svc.settings import DEFAULT_PROFILE
from svc.store.disk import file_unwritable
from svc.store.paths import config_dir, ensure_private_dir

SERVICE = "svc"
ENV_OVERRIDES = {"wallet_key": "SVC_WALLET_KEY", "spt": "SVC_SPT"}
_PROFILE_SEPARATOR = "@"


def profile_key(name: str, profile: str) -> str:
    """The secret store's entry for a profile's secret `name`: `wallet_key` for the default
    profile (the layout of every release before), `wallet_key@prod` for the profile prod."""
    return name if profile == DEFAULT_PROFILE else f"{name}{_PROFILE_SEPARATOR}{profile}"


def _env_override(key: str) -> str | None:
    """The environment variable that overrides an entry: the same for every profile's."""
    return ENV_OVERRIDES.get(key.split(_PROFILE_SEPARATOR, 1)[0])


class SecretBackend(Protocol):
    name: str

    def get(self, key: str) -> str | None: ...
    def set(self, key: str, value: str) -> None: ...
    def delete(self, key: str) -> bool: ...


class SecretFileError(SvcError):
    default_code = "insecure_secret_file"


class FileBackend:
    """A JSON file of secrets, mode 0600; refused if others can read it or it is a symlink."""

    name = "file"

    def __init__(self, path: Path | None = None) -> None:
        self.path: Path = path or config_dir() / "secrets.json"

    def _check(self) -> None:
        try:
            info = os.lstat(self.path)
        except FileNotFoundError:
            return
        if stat.S_ISLNK(info.st_mode):
            raise SecretFileError(f"refusing to use {self.path}: it is a symbolic link")
        if info.st_mode & 0o077:
            raise SecretFileError(
                f"refusing to use {self.path}: it is readable by other users "
                f"(mode {stat.S_IMODE(info.st_mode):o}); run: chmod 600 {self.path}"
            )

    def _read(self) -> dict[str, str]:
        self._check()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (ValueError, OSError) as exc:
            raise SecretFileError(f"cannot read secret file {self.path}: {exc}") from None
        return (
            {k: v for k, v in data.items() if isinstance(v, str)} if isinstance(data, dict) else {}
        )

    def _write(self, data: dict[str, str]) -> None:
        """A whole new file, then renamed over the old: a full disk leaves the old one intact
        (and no half-written temporary behind), and says so in one line."""
        tmp = self.path.with_name(f"{self.path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            ensure_private_dir(self.path.parent)
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(data, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise file_unwritable("the secret store", self.path, exc) from None

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        """One read-modify-write at a time, across threads and processes (a batch journals
        MPP credentials from several threads: a lost write would lose a proof)."""
        import fcntl

        lock = self.path.with_name(self.path.name + ".lock")
        try:
            ensure_private_dir(self.path.parent)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise file_unwritable("the secret store", self.path, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def get(self, key: str) -> str | None:
        return self._read().get(key)

    def set(self, key: str, value: str) -> None:
        with self._exclusive():
            data = self._read()
            data[key] = value
            self._write(data)

    def delete(self, key: str) -> bool:
        with self._exclusive():
            data = self._read()
            if key not in data:
                return False
            del data[key]
            self._write(data)
            return True


class KeyringBackend:
    name = "keyring"

    def __init__(self, backend: object) -> None:
        self._kr = backend

    def get(self, key: str) -> str | None:
        value = self._kr.get_password(SERVICE, key)  # type: ignore[attr-defined]
        return value if isinstance(value, str) else None

    def set(self, key: str, value: str) -> None:
        self._kr.set_password(SERVICE, key, value)  # type: ignore[attr-defined]

    def delete(self, key: str) -> bool:
        try:
            self._kr.delete_password(SERVICE, key)  # type: ignore[attr-defined]
        except Exception:  # keyring raises PasswordDeleteError for a missing entry
            return False
        return True


def _usable_keyring() -> KeyringBackend | None:
    """The OS keyring if one can work here, decided without blocking."""
    if sys.platform.startswith("linux") and not os.environ.get("DBUS_SESSION_BUS_ADDRESS"):
        return None  # no session bus: the Secret Service cannot answer
    try:
        import keyring
        from keyring.backends import fail

        backend = keyring.get_keyring()
    except Exception:
        return None
    if isinstance(backend, fail.Keyring) or "Encrypted" in type(backend).__name__:
        return None  # an encrypted file keyring would prompt for a password
    if getattr(backend, "priority", 1) <= 0:
        return None
    return KeyringBackend(backend)


class SecretStore:
    """What commands use: environment overrides, then the chosen backend."""

    def __init__(
        self,
        backend: SecretBackend | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self._backend = backend
        self._warn = warn  # told when the file store is created for want of a keyring
        self._fallback = False  # the file was chosen because no keyring works here

    @property
    def backend(self) -> SecretBackend:
        if self._backend is None:
            forced = os.environ.get("SVC_KEYRING", "").lower()
            chosen: SecretBackend | None = None if forced == "file" else _usable_keyring()
            if chosen is None:
                chosen = FileBackend()
                self._fallback = forced != "file"
            self._backend = chosen
        return self._backend

    def _tell_fallback(self, backend: SecretBackend) -> None:
        """Said once, by the write that creates the file: a command that only
        reads a secret has nothing new to say, and `svc doctor` says it whenever asked."""
        told = self._warn
        if not self._fallback or told is None or not isinstance(backend, FileBackend):
            return
        if not backend.path.exists():
            told(
                f"no usable OS keyring; secrets are kept in {backend.path} "
                "(mode 0600). Set SVC_KEYRING=file to say that is meant."
            )

    def get(self, key: str) -> str | None:
        env = _env_override(key)
        if env and os.environ.get(env):
            return os.environ[env].strip()
        return self.backend.get(key)

    def source(self, key: str) -> str:
        env = _env_override(key)
        if env and os.environ.get(env):
            return f"environment ({env})"
        return self.backend.name

    def set(self, key: str, value: str) -> None:
        backend = self.backend
        self._tell_fallback(backend)
        backend.set(key, value)

    def delete(self, key: str) -> bool:
        return self.backend.delete(key)
