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
import time
from typing import Any

from svc.api.jsonsafe import load_json
from svc.pay.signers.external import SignerError
from svc.sanitize import clean

MAX_STDOUT = 64 * 1024  # a signature is 132 characters; an answer past this is not one
MAX_STDERR = 64 * 1024
SHOWN_STDERR = 200
# What a program needs to run and find its own files; nothing of svc's.
PASSED_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ")


class CommandSigner:
    def __init__(self, command: str, timeout: float) -> None:
        self.argv = shlex.split(command)  # checked when the setting was read
        self.timeout = timeout
        # How a person knows it in one line: the program and its first word, without paths.
        self.where = "command:" + " ".join(os.path.basename(word) for word in self.argv[:2])

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
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={k: v for k, v in os.environ.items() if k in PASSED_ENV},
                start_new_session=True,  # its own group: a timeout kills its children too
            )
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise SignerError(f"the signer program ({self.where}) cannot start: {reason}") from None
        try:
            return self._talk(proc, request)
        except BaseException:  # late, huge, interrupted: the program and all it started go
            _kill_group(proc)  # before any wait, so the group id is still its own
            raise
        finally:
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                with contextlib.suppress(OSError):
                    pipe.close()  # type: ignore[union-attr]

    def _talk(self, proc: subprocess.Popen[bytes], request: bytes) -> tuple[bytes, bytes, int]:
        assert proc.stdin and proc.stdout and proc.stderr
        with contextlib.suppress(OSError):  # a program that does not read its stdin
            proc.stdin.write(request)
            proc.stdin.close()
        deadline = time.monotonic() + self.timeout
        out, err = _read_bounded(proc, deadline, self)
        try:
            code = proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            raise self._too_slow() from None
        return out, err, code

    def _too_slow(self) -> SignerError:
        return SignerError(
            f"the signer program ({self.where}) gave no answer within {self.timeout:g} s",
            code="signer_timeout",
            hint="signer_timeout sets how long a signer may take; nothing was paid",
        )


def _read_bounded(
    proc: subprocess.Popen[bytes], deadline: float, signer: CommandSigner
) -> tuple[bytes, bytes]:
    """Its stdout and stderr until both close, within the deadline and the size limits."""
    assert proc.stdout and proc.stderr
    buffers = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    limits = {proc.stdout.fileno(): MAX_STDOUT, proc.stderr.fileno(): MAX_STDERR}
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
    return bytes(buffers[proc.stdout.fileno()]), bytes(buffers[proc.stderr.fileno()])


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(5)
