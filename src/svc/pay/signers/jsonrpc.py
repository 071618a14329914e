"""`signer = "jsonrpc:URL"`: a remote signer speaking `eth_accounts` and
`eth_signTypedData_v4` (clef, Frame, Web3Signer).

The URL passed the origin gate when the setting was read (https, or http only to loopback); an
optional bearer token comes from the secret store. Every answer is bounded in size and time,
a redirect is refused (the token and the typed data go to that URL only), and an answer is
believed only as far as ExternalSigner's recovery check.
"""

from __future__ import annotations

import json
from itertools import count
from typing import Any

from svc.address import is_address
from svc.api.jsonsafe import load_json
from svc.api.signer_http import SignerHttpError, post_json
from svc.pay.signers import described
from svc.pay.signers.external import SignerError
from svc.sanitize import clean

MAX_ANSWER = 64 * 1024
_IDS = count(1)


class JsonRpcSigner:
    def __init__(self, url: str, token: str | None, timeout: float) -> None:
        self.url = url
        self.token = token
        self.timeout = timeout
        self.where: str = described(f"jsonrpc:{url}")

    def accounts(self) -> list[str]:
        """The addresses the signer signs for."""
        result = self._call("eth_accounts", [])
        if not isinstance(result, list) or not all(is_address(a) for a in result):
            raise SignerError(f"the signer ({self.where}) answered eth_accounts with no addresses")
        return list(result)

    def only_account(self) -> str:
        """signer_address's default: the signer's one account (two or none: say which)."""
        accounts = self.accounts()
        if len(accounts) != 1:
            raise SignerError(
                f"the signer ({self.where}) has {len(accounts)} accounts; "
                "signer_address must name the one to pay from",
                code="signer_address_needed",
                hint="set signer_address for this profile",
            )
        return accounts[0]

    def sign_typed_data(self, address: str, typed_data: dict[str, Any]) -> str:
        result = self._call("eth_signTypedData_v4", [address, typed_data])
        if not isinstance(result, str):
            raise SignerError(f"the signer ({self.where}) answered no signature")
        return result

    def _call(self, method: str, params: list[Any]) -> Any:
        ident = next(_IDS)
        body = json.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        answer = load_answer(self._post(body.encode()), self.where)
        if not isinstance(answer, dict) or answer.get("id") != ident:
            raise SignerError(f"the signer ({self.where}) answered {method} with no JSON-RPC reply")
        if "error" in answer:
            error = answer["error"]
            said = error.get("message") if isinstance(error, dict) else error
            raise SignerError(
                f"the signer ({self.where}) refused {method}: {clean(said, 200, single_line=True)}"
            )
        return answer.get("result")

    def _post(self, body: bytes) -> bytes:
        try:
            return post_json(self.url, body, self.token, self.timeout, MAX_ANSWER)
        except SignerHttpError as failed:
            raise self._failure(failed) from None

    def _failure(self, failed: SignerHttpError) -> SignerError:
        detail = clean(failed.detail, 200, single_line=True)
        if failed.kind == "timeout":
            return SignerError(
                f"the signer ({self.where}) gave {detail}",
                code="signer_timeout",
                hint="signer_timeout sets how long a signer may take; nothing was paid",
            )
        if failed.kind == "unreachable":
            return SignerError(
                f"cannot reach the signer ({self.where}): {detail}", code="signer_unreachable"
            )
        if failed.kind == "refused":
            return SignerError(
                f"the signer ({self.where}) {detail}",
                hint="the signer's bearer token is this profile's signer_token in the secret store",
            )
        return SignerError(f"the signer ({self.where}) {detail}")


def load_answer(raw: bytes, where: str) -> Any:
    try:
        return load_json(raw, "the signer's answer")
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise SignerError(f"the signer ({where}) answered something that is not JSON") from None
