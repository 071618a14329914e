"""Keccak-256 in Python: the fallback where pycryptodome's compiled sponge cannot be loaded
(svc.pay.keccak_c), about 0.2 to 0.3 ms of CPU a block against 5 us.
tests/unit/test_eip712_signing.py holds it equal to eth-hash's for random inputs of every length
class (empty, one block, a block boundary, several blocks).
"""

from __future__ import annotations

from typing import Final

__all__ = ["keccak256"]

_RATE: Final = 136  # bytes absorbed per permutation: 1600 - 2 * 256 bits
_MASK: Final = (1 << 64) - 1
_ROUND_CONSTANTS: Final = (
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
)  # fmt: skip
# Rotation offsets of lane (x, y), index x + 5y.
_ROTATIONS: Final = (0, 1, 62, 28, 27, 36, 44, 6, 55, 20, 3, 10, 43, 25, 39, 41, 45, 15, 21, 8,
                     18, 2, 61, 56, 14)  # fmt: skip
# rho and pi together: lane (x, y) rotated left into (y, 2x + 3y), after theta's column x.
# (Offset 0 needs no case of its own: a 64-bit lane shifted right by 64 is 0.)
_RHO_PI: Final = tuple(
    (x + 5 * y, y + 5 * ((2 * x + 3 * y) % 5), _ROTATIONS[x + 5 * y], 64 - _ROTATIONS[x + 5 * y], x)
    for x in range(5)
    for y in range(5)
)
# chi: each lane with the next two of its row.
_CHI: Final = tuple((i, (i + 1) % 5 + i - i % 5, (i + 2) % 5 + i - i % 5) for i in range(25))


def _permute(a: list[int]) -> list[int]:
    """Keccak-f[1600]: 24 rounds of theta, rho, pi, chi and iota over 25 64-bit lanes."""
    mask = _MASK
    for constant in _ROUND_CONSTANTS:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]
        d = [c[x - 1] ^ (((c[x - 4] << 1) | (c[x - 4] >> 63)) & mask) for x in range(5)]
        b = [0] * 25
        for source, target, left, right, column in _RHO_PI:
            lane = a[source] ^ d[column]
            b[target] = ((lane << left) | (lane >> right)) & mask
        a = [b[i] ^ (~b[j] & b[k]) for i, j, k in _CHI]
        a[0] ^= constant
    return a


def keccak256(data: bytes) -> bytes:
    """Keccak-256 (Ethereum's, padding 0x01: not NIST SHA3-256's 0x06) of `data`."""
    padded = bytearray(data)
    padded += b"\x01" + bytes(-(len(data) + 1) % _RATE)
    padded[-1] |= 0x80
    lanes = [0] * 25
    for start in range(0, len(padded), _RATE):
        block = padded[start : start + _RATE]
        for i in range(_RATE // 8):
            lanes[i] ^= int.from_bytes(block[8 * i : 8 * i + 8], "little")
        lanes = _permute(lanes)
    return b"".join(lane.to_bytes(8, "little") for lane in lanes[:4])
