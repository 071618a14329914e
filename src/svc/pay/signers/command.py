"""`signer = "command:PATH [ARGS]"`: a program that holds the key, asked for one signature.

The shape of git's and Docker's credential helpers: no shell (the setting is split with shlex
and run directly), one JSON object on stdin (`{"address", "typed_data"}`), one on stdout
(`{"signature"}`). The program runs in a process group of its own with an environment of the
basics only (no SVC_WALLET_KEY, no SVC_* at all), within a time limit and a size limit on what it
writes; past either, the whole group is killed. Its stderr is kept only as a bounded, inert
line for the error.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import shlex
import signal
import subprocess
import threading
import time
from typing import IO, Any

from svc.api.jsonsafe import load_json
from svc.pay.signers import described
from svc.pay.signers.external import SignerError
from svc.sanitize import clean

MAX_STDOUT = 64 * 1024  # a signature is 132 characters; an answer past this is not one
MAX_STDERR = 64 * 1024
SHOWN_STDERR = 200
# What a program needs to run and find its own files; nothing of svc's.
PASSED_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ")


class CommandSigner:
    def __init__(self, command: str, timeout: float) -> None:
        self.argv: list[str] = shlex.split(command)  # checked when the setting was read
        self.timeout = timeout
        self.where: str = described("command:" + command)

    def sign_typed_data(self, address: str, typed_data: dict[str, Any]) -> str:
        request = json.dumps({"address": address, "typed_data": typed_data}).encode()
        out, err, code = self._run(request)
        if code != 0:
            said = clean(err.decode("utf-8", "replace"), SHOWN_STDERR, single_line=True)
            raise SignerError(
                f"the signer program ({self.where}) failed with exit code {code}"
                + (f": {said}" if said else "")
            )
        try:
            answer = load_json(out, "the signer's answer")
        except (ValueError, UnicodeDecodeError, RecursionError):
            answer = None
        signature = answer.get("signature") if isinstance(answer, dict) else None
        if not isinstance(signature, str):
            raise SignerError(
                f'the signer program ({self.where}) wrote no {{"signature": "0x..."}} object'
            )
        return signature

    def _run(self, request: bytes) -> tuple[bytes, bytes, int]:
        # Pipes of our own for its output: read here with bounds, never inherited by svc's
        # terminal (the program writes to nothing a person sees).
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=out_w,
                stderr=err_w,
                env={k: v for k, v in os.environ.items() if k in PASSED_ENV},
                start_new_session=True,  # its own group: a timeout kills its children too
            )
        except (OSError, ValueError) as exc:
            for fd in (out_r, out_w, err_r, err_w):
                os.close(fd)
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SignerError(f"the signer program ({self.where}) cannot start: {reason}") from None
        os.close(out_w)
        os.close(err_w)
        try:
            return self._talk(proc, request, out_r, err_r)
        except BaseException:  # late, huge, interrupted: the program and all it started go
            _kill_group(proc)  # before any wait, so the group id is still its own
            raise
        finally:
            os.close(out_r)
            os.close(err_r)

    def _talk(
        self, proc: subprocess.Popen[bytes], request: bytes, out: int, err: int
    ) -> tuple[bytes, bytes, int]:
        feed = proc.stdin
        assert feed is not None
        deadline = time.monotonic() + self.timeout
        # Written from a thread of its own: a request larger than the pipe's buffer (the
        # typed data carries the server's words) to a program that never reads would block
        # here for ever, before the deadline could count. The program's end (an exit, or the
        # kill at the deadline) breaks the pipe and ends the write.
        threading.Thread(
            target=_feed, args=(feed, request), name="svc-signer-stdin", daemon=True
        ).start()
        answer, said = _read_bounded(out, err, deadline, self)
        try:
            code = proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise self._too_slow() from None
        return answer, said, code

    def _too_slow(self) -> SignerError:
        return SignerError(
            f"the signer program ({self.where}) gave no answer within {self.timeout:g} s",
            code="signer_timeout",
            hint="signer_timeout sets how long a signer may take; nothing was paid",
        )


def _feed(feed: IO[bytes], request: bytes) -> None:
    with contextlib.suppress(OSError):  # a program that stopped reading, or is gone
        feed.write(request)
    with contextlib.suppress(OSError):
        feed.close()


def _read_bounded(
    out: int, err: int, deadline: float, signer: CommandSigner
) -> tuple[bytes, bytes]:
    """What it wrote to each pipe until both close, within the deadline and the size limits."""
    buffers = {out: bytearray(), err: bytearray()}
    limits = {out: MAX_STDOUT, err: MAX_STDERR}
    with selectors.DefaultSelector() as selector:
        for fd in buffers:
            selector.register(fd, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise signer._too_slow()
            for key, _ in selector.select(left):
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    selector.unregister(key.fd)
                    continue
                buffers[key.fd] += chunk
                if len(buffers[key.fd]) > limits[key.fd]:
                    raise SignerError(
                        f"the signer program ({signer.where}) wrote more than "
                        f"{limits[key.fd] // 1024} KiB; it was stopped"
                    )
    return bytes(buffers[out]), bytes(buffers[err])


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)
