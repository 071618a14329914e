"""Where an agent credential lives: secrets in the secret store, a small public marker file.

- Secrets (assertion, refresh token, claim token) are one JSON bundle under one secret-store key
  per identity platform, so a rotation is a single atomic write: never "new assertion, old
  refresh token".
- `identity.json` in the config dir holds only non-secret metadata (type, id, claimed, e-mail
  hint, expiry, endpoints). It is the cheap marker the bearer step checks before anything
  imports keyring: no marker, no identity, no cost.
- Writes go secret first, then metadata. The bundle repeats the metadata, so a crash between
  the two writes is repaired on the next identity command (`load` rewrites a stale marker).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svc.store.paths import config_dir, ensure_private_dir
from svc.testing_hooks import crash_point

if TYPE_CHECKING:
    from svc.store.secrets import SecretStore

METADATA_FILE = "identity.json"
SECRET_FIELDS = ("assertion", "refresh_token", "claim_token")


@dataclass
class Credential:
    auth_base: str
    id: str
    type: str
    claimed: bool = False
    email: str | None = None  # the claimed person's address, or the login hint of a pending claim
    expires_at: str | None = None  # an unclaimed anonymous credential dies then
    assertion_expires_at: str | None = None
    refresh_expires_at: str | None = None
    claim_expires_at: str | None = None
    endpoints: dict[str, str] = field(default_factory=dict)
    assertion: str | None = field(default=None, repr=False)
    refresh_token: str | None = field(default=None, repr=False)
    claim_token: str | None = field(default=None, repr=False)

    @property
    def pending_claim(self) -> bool:
        return not self.claimed and self.claim_token is not None

    def public(self) -> dict[str, Any]:
        """Everything but the secrets: what the marker file and `status` may show."""
        doc = {k: v for k, v in asdict(self).items() if k not in SECRET_FIELDS}
        doc["has_assertion"] = self.assertion is not None
        doc["has_refresh_token"] = self.refresh_token is not None
        doc["pending_claim"] = self.pending_claim
        return doc

    @classmethod
    def from_bundle(cls, doc: dict[str, Any]) -> Credential:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in doc.items() if k in known})


def metadata_path() -> Path:
    return config_dir() / METADATA_FILE


def _read_metadata() -> dict[str, Any]:
    try:
        doc = json.loads(metadata_path().read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError, OSError):
        return {}
    return doc if isinstance(doc, dict) else {}


def has_credential(auth_base: str) -> bool:
    """The cheap check (one small JSON file, no keyring): may a bearer be attached?"""
    entry = _read_metadata().get("credentials", {}).get(auth_base)
    return isinstance(entry, dict) and bool(entry.get("has_assertion"))


class CredentialStore:
    def __init__(self, secrets: SecretStore, auth_base: str) -> None:
        self.secrets = secrets
        self.auth_base = auth_base

    @property
    def secret_key(self) -> str:
        return f"identity:{self.auth_base}"

    def load(self) -> Credential | None:
        raw = self.secrets.get(self.secret_key)
        if not raw:
            if self.auth_base in _read_metadata().get("credentials", {}):
                self._write_metadata(None)  # a marker without secrets is stale
            return None
        try:
            credential = Credential.from_bundle(json.loads(raw))
        except (ValueError, TypeError):
            return None
        entry = _read_metadata().get("credentials", {}).get(self.auth_base)
        if entry != credential.public():
            self._write_metadata(credential)  # repair after a crash between the two writes
        return credential

    def save(self, credential: Credential, crash_after: str | None = None) -> None:
        bundle = asdict(credential)
        self.secrets.set(self.secret_key, json.dumps(bundle, separators=(",", ":")))
        if crash_after:
            crash_point(crash_after)
        self._write_metadata(credential)

    def delete(self) -> bool:
        removed = self.secrets.delete(self.secret_key)
        had_marker = self.auth_base in _read_metadata().get("credentials", {})
        self._write_metadata(None)
        return removed or had_marker

    def _write_metadata(self, credential: Credential | None) -> None:
        doc = _read_metadata()
        entries = doc.setdefault("credentials", {})
        if credential is None:
            entries.pop(self.auth_base, None)
        else:
            entries[self.auth_base] = credential.public()
        doc["note"] = "non-secret metadata only; secrets are in the secret store"
        path = metadata_path()
        ensure_private_dir(path.parent)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=2)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
