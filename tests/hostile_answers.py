"""A hostile peer for issue 21.2 and 21.3: answers about another task, and numbers that are not.

Like the other peers it is the other side of the wire and imports nothing from `svc`. It
speaks the task operations only: `GET /svc/tasks/{id}` and `POST /svc/tasks/{id}/reply`.
What it gets wrong is set per test on `AnswersPeer.config`:

- `answer_id`: the task id its answers are about, whatever was asked (None: the one asked);
- `reply_answer_id`: the same, for reply answers only;
- `busy`: answers to give first, one per request, before the normal one (a 503 with a
  `Retry-After` of `nan`, a body `retry_after` of `1e999`, ...);
- `state`, `info_request`, `events`: the task's state, its ask and its events;
- `fold_replies`: every value a reply sends (a sensitive 2FA code too) is folded back into
  every later answer: the goal (the spec allows it), an event, the result, and `{folded}` in a
  `busy` body; after a reply the task is `completed`.

`books` records every request, so a test can tell what svc sent after a refused answer.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

STAMP = "2026-11-24T12:00:00Z"


@dataclass
class Busy:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: str = '{"error": "unavailable"}'  # raw JSON text: Python's json writes NaN too


@dataclass
class AnswersConfig:
    answer_id: str | None = None
    reply_answer_id: str | None = None
    state: str = "completed"
    info_request: dict[str, Any] | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    busy: list[Busy] = field(default_factory=list)
    fold_replies: bool = False


class AnswersPeer:
    def __init__(self) -> None:
        self.config = AnswersConfig()
        self.books: list[tuple[str, str]] = []
        self.folded: list[str] = []  # what replies sent, folded back when fold_replies is on
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def sent(self, method: str) -> list[str]:
        with self.lock:
            return [path for m, path in self.books if m == method]

    def task(self, asked: str, answer_id: str | None) -> dict[str, Any]:
        cfg = self.config
        folded = "; ".join(self.folded)
        doc: dict[str, Any] = {
            "id": answer_id or asked,
            "state": cfg.state,
            "goal": "Book a table" + (f" (answered: {folded})" if folded else ""),
            "flow": None,
            "max_budget_usd": None,
            "webhook_url": None,
            "error": None,
            "created_at": STAMP,
            "updated_at": STAMP,
            "completed_at": STAMP if cfg.state == "completed" else None,
            "events": list(cfg.events),
            "result": {"summary": f"done {folded}", "output": {}}
            if cfg.state == "completed"
            else None,
        }
        if folded:
            doc["events"].append(
                {
                    "id": "evt_f",
                    "type": "reply_received",
                    "created_at": STAMP,
                    "payload": {"message": folded, "code": int(folded) if folded.isdigit() else 0},
                }
            )
        if cfg.info_request is not None:
            doc["info_request"] = cfg.info_request
        return doc


def _handler_for(peer: AnswersPeer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _send(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def _serve(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            sent = self.rfile.read(length) if length else b""
            path = self.path.split("?", 1)[0]
            with peer.lock:
                peer.books.append((self.command, path))
                busy = peer.config.busy.pop(0) if peer.config.busy else None
                if path.endswith("/reply") and peer.config.fold_replies:
                    peer.folded += _values(sent)
                    peer.config.state, peer.config.events = "completed", []
            if busy is not None:
                body = busy.body.replace("{folded}", "; ".join(peer.folded))
                return self._send(busy.status, body, busy.headers)
            parts = path.strip("/").split("/")
            if parts[:2] != ["svc", "tasks"] or len(parts) < 3:
                return self._send(404, '{"error": "not_found"}')
            asked, cfg = parts[2], peer.config
            answer_id = cfg.answer_id
            if self.command == "POST" and parts[3:] == ["reply"]:
                answer_id = cfg.reply_answer_id or answer_id
            self._send(200, json.dumps(peer.task(asked, answer_id)))

        do_GET = do_POST = _serve

    return Handler


def _values(sent: bytes) -> list[str]:
    """Every string a reply body carries (value, message, field_values)."""
    try:
        body = json.loads(sent)
    except ValueError:
        return []
    found = [body.get("value"), body.get("message")]
    found += list(((body.get("info") or {}).get("field_values") or {}).values())
    return [str(v) for v in found if v]


@pytest.fixture
def answers_peer() -> Iterator[AnswersPeer]:
    peer = AnswersPeer()
    peer.thread.start()
    yield peer
    peer.server.shutdown()
    peer.server.server_close()
