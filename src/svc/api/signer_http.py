"""One bounded JSON POST to a remote signer (pay/signers/jsonrpc.py): what its HTTP status
means is decided here, as every status is in svc/api. No redirect is followed (the token and
the typed data go to that URL only), the answer is cut at `limit` bytes and, as a whole, at
the signer's timeout (api/deadline.py: a peer trickling one byte just inside each
read timeout cannot stretch it), and no proxy is used for a signer on loopback."""

from __future__ import annotations

from typing import Literal

from svc.api import headers
from svc.api.deadline import end_deadline
from svc.api.proxies import ProxyEnv, from_environment
from svc.origin import is_loopback_url

Failure = Literal["redirect", "refused", "status", "too_large", "timeout", "unreachable"]


class SignerHttpError(Exception):
    """Why no answer came; `kind` for the caller's error code, `detail` in words."""

    def __init__(self, kind: Failure, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


def post_json(url: str, body: bytes, token: str | None, timeout: float, limit: int) -> bytes:
    import httpx

    # Here, not at the top: the transport imports httpx, which a wallet's
    # modules (pay/wallet.py imports the signers) must not load for a command that sends nothing.
    from svc.api.transport import ProxyRouter

    # The answer is read raw and must be raw: a coded body (a gzip bomb) would be decoded by
    # httpx a whole network chunk at a time, before any cap could count it.
    sent = {headers.CONTENT_TYPE: "application/json", "accept-encoding": "identity"}
    if token:
        sent[headers.AUTHORIZATION] = f"Bearer {token}"
    proxies = ProxyEnv() if is_loopback_url(url) else from_environment()
    transport = ProxyRouter(timeout, proxies)
    try:
        with (
            httpx.Client(transport=transport, timeout=timeout, follow_redirects=False) as client,
            client.stream("POST", url, content=body, headers=sent) as reply,
        ):
            _check_status(reply.status_code)
            if reply.headers.get("content-encoding", "identity").lower() != "identity":
                raise SignerHttpError("status", "answered in a content coding svc did not ask for")
            return _read(reply.iter_raw(), limit)
    except httpx.TimeoutException:
        raise SignerHttpError("timeout", f"no answer within {timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise SignerHttpError("unreachable", str(exc)) from None
    finally:
        end_deadline()  # this thread's later sockets keep their own bounds


def _check_status(status: int) -> None:
    if 300 <= status < 400:
        raise SignerHttpError("redirect", "redirected elsewhere; svc does not follow")
    if status in (401, 403):
        raise SignerHttpError("refused", f"refused svc's credentials (HTTP {status})")
    if status != 200:
        raise SignerHttpError("status", f"answered HTTP {status}")


def _read(chunks: object, limit: int) -> bytes:
    data = bytearray()
    for chunk in chunks:  # type: ignore[attr-defined]
        data += chunk
        if len(data) > limit:
            raise SignerHttpError("too_large", f"answered more than {limit // 1024} KiB")
    return bytes(data)
