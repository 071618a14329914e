"""An OS keyring stand-in for end-to-end tests: `PYTHON_KEYRING_BACKEND=tests.fake_keyring.
FileKeyring` (with the repository on PYTHONPATH and a DBUS_SESSION_BUS_ADDRESS, so svc thinks
a keyring can answer) keeps (service, username) -> password in the JSON file
$FAKE_KEYRING_FILE: the layout the real keyring has, readable by the test."""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1  # type: ignore[assignment]

    @property
    def _path(self) -> Path:
        return Path(os.environ["FAKE_KEYRING_FILE"])

    def _load(self) -> dict[str, dict[str, str]]:
        return json.loads(self._path.read_text()) if self._path.exists() else {}

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(service, {}).get(username)

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data.setdefault(service, {})[username] = password
        self._path.write_text(json.dumps(data))

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if username not in data.get(service, {}):
            raise PasswordDeleteError(username)
        del data[service][username]
        self._path.write_text(json.dumps(data))
