"""Import eth-account without loading eth-keyfile until a keyfile is really used.

`import eth_account` costs about half a second, and most of it is `eth_keyfile` importing
py_ecc's BLS pairing code, which signing never uses (only encrypted keyfiles do, and svc stores
raw keys). Before eth_account is first imported, stand-ins for `eth_keyfile` and
`eth_keyfile.keyfile` are put in `sys.modules`: they carry the names eth_account imports
(`create_keyfile_json`, `decode_keyfile_json`, `KDFType`, ...), and any call or any other
attribute loads the real package, which then replaces the stand-ins. Behaviour is unchanged;
only the cost moves to the first keyfile operation.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import Any, Literal

_NAMES = ("create_keyfile_json", "decode_keyfile_json", "extract_key_from_keyfile", "load_keyfile")


def _real(name: str) -> types.ModuleType:
    """The real module `name` (eth_keyfile or eth_keyfile.keyfile), loading it once."""
    module = sys.modules.get(name)
    if isinstance(module, _StandIn):
        for stand_in in ("eth_keyfile.keyfile", "eth_keyfile"):
            if isinstance(sys.modules.get(stand_in), _StandIn):
                del sys.modules[stand_in]
        importlib.import_module("eth_keyfile.keyfile")
    return sys.modules[name]


class _StandIn(types.ModuleType):
    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(_real(self.__name__), attr)


def _forward(module: str, name: str) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(_real(module), name)(*args, **kwargs)

    call.__name__ = name
    call.__qualname__ = name
    return call


def install() -> None:
    """Put the stand-ins in place, unless eth_keyfile or eth_account is loaded already."""
    if "eth_keyfile" in sys.modules or "eth_account" in sys.modules:
        return
    package = _StandIn("eth_keyfile")
    package.__path__ = []
    keyfile = _StandIn("eth_keyfile.keyfile")
    keyfile.KDFType = Literal["pbkdf2", "scrypt"]  # type: ignore[attr-defined]
    for name in _NAMES:
        setattr(package, name, _forward("eth_keyfile", name))
        setattr(keyfile, name, _forward("eth_keyfile.keyfile", name))
    package.keyfile = keyfile  # type: ignore[attr-defined]
    sys.modules["eth_keyfile"] = package
    sys.modules["eth_keyfile.keyfile"] = keyfile
