"""Keccak-256 by pycryptodome's compiled sponge, reached through ctypes.

eth-hash reaches the same C code through cffi, whose import parses the library's declarations
with pycparser and scans installed packages' metadata for backends: 40 to 80 ms of CPU before
the first hash, which every batch and fleet runner paid, and which made svc hash its first 64
in Python (0.2 to 0.3 ms each) to spare a single paid submit that cost. Loading the library
with ctypes takes about a millisecond and a hash about 5 us, the same as eth-hash's.

The five functions used are pycryptodome's own C API (`keccak_init`, `keccak_absorb`,
`keccak_digest`, `keccak_destroy`, stable since 3.4; the dependency is held below 4). The binding
is trusted only after it reproduces known digests; anything else (no such library, another
ABI, another answer) returns None and the caller hashes in Python.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import ctypes

_CAPACITY: Final = 64  # bytes: 2 x the 256-bit digest
_ROUNDS: Final = 24
_PADDING: Final = 0x01  # Keccak's, not SHA-3's 0x06
# Known answers: the empty input, one under a block (135 bytes), one block exactly (136).
_KNOWN: Final = (
    (b"", "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"),
    (b"a" * 135, "34367dc248bbd832f4e3e69dfaac2f92638bd0bbd18f2912ba4ef454919cf446"),
    (b"a" * 136, "a6c4d403279fe3e0af03729caada8374b5ca54d8065329a3ebcaeb4b60aa386e"),
)


def load() -> Callable[[bytes], bytes] | None:
    """The compiled Keccak-256, or None when it cannot be had or gives a wrong answer."""
    import ctypes  # about 2 ms: at the first hash, not for every importer of svc.pay.eip712

    try:
        path = _library_path()
        if path is None:
            return None
        # PyDLL keeps the GIL through each call (a hash is about a microsecond of C): a CDLL
        # released and took it back four times a hash, a hand-off among a batch's workers
        hash_ = _bound(ctypes.PyDLL(path))
        if all(hash_(data).hex() == digest for data, digest in _KNOWN):
            return hash_
    except (ImportError, OSError, AttributeError, ValueError):
        pass
    return None


def _library_path() -> str | None:
    """Crypto/Hash/_keccak.<extension suffix>, found without importing the package (its
    __init__ is not needed, and a single paid submit loads nothing of pycryptodome's Python)."""
    spec = importlib.util.find_spec("Crypto")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "Hash", "_keccak" + suffix)
            if os.path.isfile(path):
                return path
    return None


def _bound(lib: ctypes.CDLL) -> Callable[[bytes], bytes]:
    import ctypes

    init, absorb, digest, destroy = (
        lib.keccak_init,
        lib.keccak_absorb,
        lib.keccak_digest,
        lib.keccak_destroy,
    )
    init.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t, ctypes.c_uint8]
    absorb.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    digest.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint8]
    destroy.argtypes = [ctypes.c_void_p]
    for function in (init, absorb, digest, destroy):
        function.restype = ctypes.c_int

    def keccak256(data: bytes) -> bytes:
        state = ctypes.c_void_p()
        if init(ctypes.byref(state), _CAPACITY, _ROUNDS):
            raise ValueError("the compiled Keccak could not start a hash")
        try:
            out = ctypes.create_string_buffer(32)
            if absorb(state, data, len(data)) or digest(state, out, 32, _PADDING):
                raise ValueError("the compiled Keccak refused a hash")
            return out.raw
        finally:
            destroy(state)

    return keccak256
