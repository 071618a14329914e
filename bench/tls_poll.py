"""One https poll's CPU on the lean route and on httpx's (issue 34), in interleaved rounds.

A loopback TLS peer (tests/tls_peer.py, its CA made here) runs in a child process, so only the
client's CPU is counted. Each round makes a client of one route, polls once (the handshake),
then `POLLS` times on the kept connection. Run from the repository root:
    .venv/bin/python -m bench.tls_poll
"""

from __future__ import annotations

import json
import multiprocessing
import os
import statistics
import tempfile
import time
from pathlib import Path

ROUNDS = 10
POLLS = 200
TASK = json.dumps({"id": "task_x", "state": "running", "events": []}).encode()


def _serve(ca_dir: str, ready: multiprocessing.Queue[str]) -> None:  # type: ignore[type-arg]
    from tests.raw_peer import RawPeer, json_answer
    from tests.tls_peer import make_pki

    pki = make_pki(Path(ca_dir))
    with RawPeer(lambda _: (json_answer(TASK), False), tls=pki.good) as peer:
        ready.put(peer.url)
        time.sleep(3600)


def _round(url: str, lean: bool) -> tuple[float, float]:
    """(CPU of the first poll with its handshake, CPU of one poll on the kept connection)."""
    from svc.api.http import Http
    from svc.origin import configured

    target = configured(url + "/svc/tasks/task_x", "the bench URL")
    http = Http(timeout=10.0, lean=lean)
    try:
        start = time.process_time()
        http.get_json(target, what="poll")
        first = time.process_time() - start
        start = time.process_time()
        for _ in range(POLLS):
            http.get_json(target, what="poll")
        return first, (time.process_time() - start) / POLLS
    finally:
        http.close()


def main() -> None:
    ca_dir = tempfile.mkdtemp()
    ready: multiprocessing.Queue[str] = multiprocessing.Queue()
    peer = multiprocessing.get_context("fork").Process(target=_serve, args=(ca_dir, ready))
    peer.daemon = True
    peer.start()
    url = ready.get(timeout=30)
    os.environ["SSL_CERT_FILE"] = str(Path(ca_dir) / "ca.pem")
    samples: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    try:
        for _ in range(ROUNDS):
            for lean in (False, True):  # interleaved: drift hits both routes alike
                samples[lean].append(_round(url, lean))
    finally:
        peer.terminate()
    for lean, name in ((False, "httpx route"), (True, "lean route")):
        first = statistics.median(s[0] for s in samples[lean]) * 1000
        kept = statistics.median(s[1] for s in samples[lean]) * 1000
        print(f"{name}: first poll (handshake) {first:.2f} ms CPU, kept poll {kept:.3f} ms CPU")
    ratio = [h[1] / lean_[1] for h, lean_ in zip(samples[False], samples[True], strict=True)]
    print(f"kept poll, httpx / lean: median {statistics.median(ratio):.2f}x, min {min(ratio):.2f}x")


if __name__ == "__main__":
    main()
