"""eth-account without eth-keyfile's BLS import: signing unchanged, keyfiles still work."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
import svc.pay  # installs the stand-ins
from eth_account import Account
key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
account = Account.from_key(key)
signed = account.sign_message(__import__("eth_account.messages").messages.encode_defunct(text="x"))
assert "py_ecc" not in sys.modules, "keyfile support was loaded for signing"
encrypted = Account.encrypt(account.key, "pw", kdf="pbkdf2", iterations=2)
assert Account.decrypt(encrypted, "pw") == account.key
import eth_keyfile
assert eth_keyfile.__version__ and "py_ecc" in sys.modules
print(account.address, signed.signature.hex()[:10])
"""


def test_signing_skips_keyfile_support_and_keyfiles_still_work() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 ")


def test_completion_reads_the_ledger_file_the_ledger_writes() -> None:
    from svc.completion.complete import LEDGER_FILE
    from svc.store.ledger import ledger_path

    assert ledger_path().name == LEDGER_FILE
