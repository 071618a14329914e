"""A batch file's lines, read with bounds and checked whole before anything is paid (29.2).

One line, one task: `{"task": "...", "email": "...", "request_id": "..."}` (`email` may come
from --email or the config; `request_id` is optional). Blank lines and lines starting with `#`
are skipped.

* Reading is streamed and bounded: a line is read up to `MAX_LINE_BYTES` and the rest of a
  longer one is skipped in chunks, never held (a 512 MiB line without a newline costs one
  chunk of memory, not 512 MiB). Ids are remembered as digests, not as task texts.
* Every way a line can be bad is a `UsageError` naming its number: not UTF-8, a NUL byte, not
  JSON, nested too deeply (json's RecursionError), an integer too long (ValueError), a lone
  surrogate, an unknown key, a field the spec refuses, a request id an earlier line used.
* The file is read twice (`check`, then `parse_lines` to send): the same reader and the same
  rules both times. Standard input is first copied to a 0600 file in the data directory
  (`BatchSource`), so it can be read twice too.
* Without a request id, the id is derived from the task text, the e-mail and how many times
  that same pair occurred earlier in the file: a re-run maps each line to the same request.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

from svc.api.ids import request_id_arg
from svc.api.jsonsafe import JsonTooDeepError, load_json
from svc.engines.task_rules import checked_body
from svc.errors import ExitCode, SvcError, UsageError
from svc.store.paths import data_dir, ensure_private_dir

MAX_LINE_BYTES = 200_000
CHUNK = 1 << 16
KNOWN_KEYS = ("task", "email", "request_id")


@dataclass
class Line:
    number: int
    body: dict[str, Any]
    request_id: str


class _BadLine(Exception):
    """Why one line of a batch cannot be submitted."""


def derive_request_id(task: str, email: str, occurrence: int) -> str:
    """A stable idempotency key for the `occurrence`-th line with this task and e-mail."""
    digest = hashlib.sha256(
        json.dumps([task, email.lower(), occurrence], ensure_ascii=False).encode()
    ).hexdigest()
    return f"req_b{digest[:40]}"


def raw_lines(stream: IO[bytes]) -> Iterator[tuple[int, bytes | None]]:
    """(number, bytes) for each line; bytes is None for a line over `MAX_LINE_BYTES`, whose
    rest is skipped chunk by chunk (`readline()` unbounded would read it whole)."""
    number = 0
    while chunk := stream.readline(MAX_LINE_BYTES + 1):
        number += 1
        if len(chunk) > MAX_LINE_BYTES and not chunk.endswith(b"\n"):
            while (rest := stream.readline(CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield number, None
        else:
            yield number, chunk


@dataclass
class _Ids:
    """The request ids given so far, and how often each (task, e-mail) pair occurred, both
    kept as digests: memory grows by a few dozen bytes a line, never by the task's text."""

    occurrences: dict[bytes, int] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)

    def for_line(self, body: dict[str, Any], given: str | None) -> str:
        if given is None:
            key = hashlib.sha256(
                json.dumps([body["task"], body["email"].lower()], ensure_ascii=False).encode()
            ).digest()
            self.occurrences[key] = self.occurrences.get(key, 0) + 1
            rid = derive_request_id(body["task"], body["email"], self.occurrences[key])
        elif given in self.seen:
            raise _BadLine(f"request_id {given} is used by an earlier line")
        else:
            rid = given
        self.seen.add(rid)
        return rid


EMAIL_ELSEWHERE = "a default e-mail for all lines"


def parse_lines(
    stream: IO[bytes], default_email: str | None, email_elsewhere: str = EMAIL_ELSEWHERE
) -> Iterator[Line | UsageError]:
    """Each usable line as a `Line`, each bad one as a UsageError naming its line number
    (`email_elsewhere`: the face's words for where a default e-mail is given)."""
    ids = _Ids()
    for number, raw in raw_lines(stream):
        try:
            doc = _line_object(raw)
            if doc is None:
                continue  # blank or a comment
            body, given = _submission(doc, default_email, email_elsewhere)
            rid = ids.for_line(body, given)
        except _BadLine as exc:
            yield bad_line(number, str(exc))
            continue
        yield Line(number, body, rid)


def _line_object(raw: bytes | None) -> dict[str, Any] | None:
    """The line's JSON object with only known keys; None for a blank line or a comment."""
    if raw is None:
        raise _BadLine(f"longer than {MAX_LINE_BYTES} bytes")
    if b"\0" in raw:
        raise _BadLine("contains a NUL byte")
    try:
        text = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise _BadLine("not UTF-8 text") from None
    if not text or text.startswith("#"):
        return None
    doc = _json(text)
    if not isinstance(doc, dict):
        raise _BadLine("not a JSON object")
    unknown = sorted(set(doc) - set(KNOWN_KEYS))
    if unknown:
        raise _BadLine(f"unknown key {unknown[0]!r} (known: {', '.join(KNOWN_KEYS)})")
    return doc


def _json(text: str) -> Any:
    """The one bounded loader, with each way it fails on hostile text as the reason for a bad
    line. The depth is measured before json recurses: in a process whose recursion limit was
    raised (py_ecc sets 100,000 on import), json's C decoder overflows the C stack on 150,000
    brackets long before a RecursionError, and the process dies of SIGSEGV."""
    try:
        return load_json(text, "a batch line")
    except JsonTooDeepError:
        raise _BadLine("nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise _BadLine(f"not a JSON object ({exc.msg})") from None
    except ValueError:  # an integer over sys.get_int_max_str_digits() digits
        raise _BadLine(f"a number longer than {sys.get_int_max_str_digits()} digits") from None


def _submission(
    doc: dict[str, Any], default_email: str | None, email_elsewhere: str
) -> tuple[dict[str, Any], str | None]:
    """The checked request body and the line's own request id, if it gives one."""
    task, email, rid = doc.get("task"), doc.get("email", default_email), doc.get("request_id")
    if not isinstance(task, str) or not task.strip():
        raise _BadLine("missing task (a non-empty string)")
    if not isinstance(email, str) or not email:
        raise _BadLine(f"missing email (give it in the line, or {email_elsewhere})")
    if rid is not None and not isinstance(rid, str):
        raise _BadLine("request_id must be a string")
    for value in (task, email, rid or ""):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _BadLine("a lone surrogate (\\ud800-\\udfff) is not text") from None
    try:
        body: dict[str, Any] = checked_body(task, email)
        if rid is not None:
            request_id_arg(rid, "request id")
    except UsageError as exc:
        raise _BadLine(exc.message) from None
    return body, rid


def bad_line(number: int, message: str) -> UsageError:
    error = UsageError(f"line {number}: {message}", code="invalid_line")
    error.body = {"line": number}
    return error


# Past this many bad lines the file is not read on: it is refused whole, whatever skipping
# was asked (each bad line is kept to be named, so a huge file of garbage, a log passed by
# mistake, would otherwise hold all of its lines in memory before saying no).
MAX_BAD_LINES = 10_000


@dataclass
class Checked:
    """The first pass over a file: how many lines would be sent, and every bad one."""

    good: int = 0
    bad: list[UsageError] = field(default_factory=list)

    def bad_numbers(self) -> set[int]:
        return {error.body["line"] for error in self.bad}


def check(
    stream: IO[bytes], default_email: str | None, email_elsewhere: str = EMAIL_ELSEWHERE
) -> Checked:
    checked = Checked()
    for item in parse_lines(stream, default_email, email_elsewhere):
        if isinstance(item, Line):
            checked.good += 1
            continue
        if len(checked.bad) == MAX_BAD_LINES:
            raise _too_many_bad(checked, item)
        checked.bad.append(item)
    return checked


def _too_many_bad(checked: Checked, last: UsageError) -> UsageError:
    first = checked.bad[0]
    return UsageError(
        f"nothing was sent or paid: more than {MAX_BAD_LINES} bad lines (the first: "
        f"{first.message}); the file was not read past line {last.body['line']}",
        code="invalid_lines",
        hint="is this a batch file? one JSON object a line: "
        '{"task": "...", "email": "...", "request_id": "..."}',
    )


def _open_batch(path: str | Path, given: str) -> IO[bytes]:
    try:
        return open(path, "rb")
    except OSError as exc:
        raise UsageError(f"cannot read the batch file: {given}: {exc.strerror or exc}") from None


def _regular_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True  # let the open say why, in one line


def _chunks(stream: IO[bytes]) -> Iterator[bytes]:
    return iter(partial(stream.read, CHUNK), b"")


class BatchSource:
    """A batch file that can be read twice: the file itself, or standard input (or `lines`
    a program hands in: svc.Client.submit_many) copied first to a private (0600) file in the
    data directory. `keep()` leaves that copy in place (an interrupted batch names it in its
    resume command)."""

    def __init__(self, path: str, lines: Iterable[bytes] | None = None) -> None:
        self.given = path
        self._spooled: Path | None = None
        if lines is not None:
            self.path: Path = self._spool(lines)
        elif path == "-":
            self.path = self._spool(_chunks(sys.stdin.buffer))
        elif _regular_file(path):
            self.path = Path(path)
        else:  # a pipe (`--from <(gen)`, a FIFO) reads once: the check would drain it
            with _open_batch(path, path) as stream:
                self.path = self._spool(_chunks(stream))

    def _spool(self, chunks: Iterable[bytes]) -> Path:
        name = None
        try:
            folder = ensure_private_dir(data_dir())
            fd, name = tempfile.mkstemp(prefix="batch-stdin-", suffix=".jsonl", dir=folder)
            with os.fdopen(fd, "wb") as copy:
                for chunk in chunks:
                    copy.write(chunk)
        except BaseException as exc:  # a full disk, a Ctrl-C on a slow pipe: no copy left
            if name is not None:
                Path(name).unlink(missing_ok=True)
            if not isinstance(exc, OSError):
                raise
            what = "standard input" if self.given == "-" else self.given
            raise SvcError(
                f"cannot keep the batch from {what} in {data_dir()}: "
                f"{exc.strerror or exc}; nothing was sent",
                code="data_dir_unwritable",
                exit_code=ExitCode.UNAVAILABLE,
            ) from None
        self._spooled = Path(name)
        return self._spooled

    def open(self) -> IO[bytes]:
        """The file (or its copy) from its start: each pass reads it anew."""
        return _open_batch(self.path, self.given)

    def keep(self) -> None:
        self._spooled = None

    def close(self) -> None:
        if self._spooled is not None:
            self._spooled.unlink(missing_ok=True)
