"""Payments: x402 signing, the policy, and the rails.

Signing imports eth-account; `eth_lazy.install()` keeps its keyfile support (py_ecc's BLS code,
about 300 ms) unloaded until a keyfile is really used. It must run before eth_account is first
imported, hence here.
"""

from svc.pay.eth_lazy import install as _install_lazy_keyfile

_install_lazy_keyfile()
