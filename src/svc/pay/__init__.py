"""Payments: x402 signing, the policy, and the rails.

svc signs without eth-account (svc.pay.eip712, svc.pay.secp256k1), but eth-account is still
imported in-process by the sandbox's verifier and by tests; `eth_lazy.install()` keeps its
keyfile support (py_ecc's BLS code, about 300 ms) unloaded until a keyfile is really used. It
must run before eth_account is first imported, hence here.
"""

from svc.pay.eth_lazy import install as _install_lazy_keyfile

_install_lazy_keyfile()
