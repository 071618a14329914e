"""The identity platform: its records and keys, and its operations split by concern.

`IdentityStore` (records, lock, keys, identity issuance) is shared by `Registrations`,
`Claims` and `Tokens`; this module only puts them together so the app has one object to reset.
"""

from __future__ import annotations

from svc_sandbox.identity.claims import Claims
from svc_sandbox.identity.registrations import Registrations
from svc_sandbox.identity.store import IdentityStore
from svc_sandbox.identity.tokens import Tokens


class IdentityPlatform:
    def __init__(self) -> None:
        self.store = IdentityStore()  # keys live as long as the process
        self.registrations = Registrations(self.store)
        self.claims = Claims(self.store)
        self.tokens = Tokens(self.store)

    def reset(self) -> None:
        self.store.reset()
