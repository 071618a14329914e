"""An EVM address (a wallet, a payee, an asset's contract), one rule for all who check one:
`0x` and 40 hex digits, in either case (the mixed case of a checksum is not checked here)."""

from __future__ import annotations

import re

ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}", re.ASCII)


def is_address(value: object) -> bool:
    return isinstance(value, str) and ADDRESS.fullmatch(value) is not None
