"""External signers for tests, run as real processes, both built on eth-account.

    python tests/signer_peers.py command KEYFILE MODE   # one signature: stdin -> stdout
    python tests/signer_peers.py jsonrpc KEYFILE MODE   # a JSON-RPC server; prints its port

MODE is what the signer does: `good` signs honestly; the rest are what a broken or hostile
signer could do: `wrong` (signs with another key), `tampered` (its own key, over a payment
a hundred times larger), `garbage`, `nothing`, `hang`, `huge`,
`crash`, `noisy` (floods stderr), `spawn` (leaves a child that holds stdout open and hangs),
`env` (writes its environment to stderr, then fails), `echo` (answers the request it was given
as the signature, for shape checks). jsonrpc adds `redirect`, `error`, `two` (two accounts),
`token:T` (answers only with `Authorization: Bearer T`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

OTHER_KEY = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
SEEN_ENV = "SIGNER_SEEN_ENV"  # a file the `env` mode writes the environment it was given to


def sign(key: str, typed_data: dict[str, Any]) -> str:
    from eth_account import Account

    signed = Account.sign_typed_data(key, full_message=typed_data)
    return "0x" + bytes(signed.signature).hex()


def answer_for(key: str, mode: str, request: dict[str, Any]) -> str | None:
    """The signature the mode gives, or None when it gives none (the mode acts itself)."""
    if mode == "wrong":
        return sign(OTHER_KEY, request["typed_data"])
    if mode == "garbage":
        return "0x" + "zz" * 65
    if mode == "tampered":  # the right key, over a payment of its own choosing
        typed = json.loads(json.dumps(request["typed_data"]))
        typed["message"]["value"] = int(typed["message"]["value"]) * 100
        return sign(key, typed)
    return sign(key, request["typed_data"])


def command(key: str, mode: str) -> int:
    request = json.loads(sys.stdin.read())
    if mode == "nothing":
        return 0
    if mode == "hang":
        time.sleep(600)
    if mode == "spawn":
        # The keyfile's path in its argv names whose child it is (tests run side by side).
        sleeper = [sys.executable, "-c", "import time; time.sleep(600)", sys.argv[2]]
        subprocess.Popen(sleeper)
        return 0
    if mode == "huge":
        sys.stdout.write("x" * (4 << 20))
        return 0
    if mode == "noisy":
        sys.stderr.write("e" * (4 << 20))
        return 0
    if mode == "crash":
        sys.stderr.write("signer: \x1b[31mthe device is locked\x1b[0m\n")
        return 3
    if mode == "env":
        with open(request_path(), "w", encoding="utf-8") as fh:
            json.dump({"env": dict(os.environ), "argv": sys.argv, "request": request}, fh)
    if mode == "garbage-json":
        sys.stdout.write("{not json")
        return 0
    print(json.dumps({"signature": answer_for(key, mode, request)}))
    return 0


def request_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(sys.argv[2])), "seen.json")


def jsonrpc(key: str, mode: str) -> int:
    from eth_account import Account

    address = Account.from_key(key).address

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            with open(request_path(), "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"headers": dict(self.headers), "body": body}) + "\n")
            if mode.startswith("token:") and self.headers.get("authorization") != (
                "Bearer " + mode[6:]
            ):
                return self._send(401, b"{}")
            if mode == "redirect":
                self.send_response(307)
                self.send_header("location", "http://127.0.0.1:9/elsewhere")
                self.send_header("content-length", "0")
                self.end_headers()
                return None
            if mode == "hang":
                time.sleep(600)
            if mode == "huge":
                return self._send(200, b"[" + b"1," * (4 << 20) + b"1]")
            if mode == "bomb":  # 64 MiB of spaces, gzipped to 64 KiB: decoded, it is the cap x 1000
                import gzip

                return self._send(200, gzip.compress(b" " * (64 << 20)), "gzip")
            return self._send(200, json.dumps(self._reply(body)).encode())

        def _reply(self, body: dict[str, Any]) -> dict[str, Any]:
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": body["id"]}
            if mode == "error":
                reply["error"] = {"code": -32000, "message": "denied \x1b[2Jby the user"}
            elif body["method"] == "eth_accounts":
                other = Account.from_key(OTHER_KEY).address
                reply["result"] = [address, other] if mode == "two" else [address]
            elif mode == "garbage":
                reply["result"] = "not a signature"
            else:
                typed = body["params"][1]
                reply["result"] = answer_for(key, mode, {"typed_data": typed})
            return reply

        def _send(self, status: int, data: bytes, coding: str | None = None) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            if coding:
                self.send_header("content-encoding", coding)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    kind, keyfile, how = sys.argv[1:4]
    with open(keyfile, encoding="utf-8") as fh:
        secret = fh.read().strip()
    sys.exit(command(secret, how) if kind == "command" else jsonrpc(secret, how))
