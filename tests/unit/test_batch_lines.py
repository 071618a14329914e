"""Parsing batch files: stable request ids and one clear message per bad line."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from svc.engines.batch import LineResult, Summary
from svc.engines.batch_file import Line, derive_request_id, parse_lines
from svc.errors import ExitCode, SvcError


def parse(text: str, email: str | None = None) -> list[Line | SvcError]:
    return list(parse_lines(io.BytesIO(text.encode()), email))


def test_ids_are_stable_and_survive_inserted_lines() -> None:
    a = {"task": "A", "email": "a@example.com"}
    b = {"task": "B", "email": "b@example.com"}
    first = parse("\n".join(json.dumps(x) for x in (a, b, a)))
    second = parse("\n".join(json.dumps(x) for x in (b, b, a, b, a)))
    ids_first = [x.request_id for x in first if isinstance(x, Line)]
    ids_second = [x.request_id for x in second if isinstance(x, Line)]
    assert len(set(ids_first)) == 3  # the duplicate of A gets its own id
    assert ids_first[0] == ids_second[2] and ids_first[2] == ids_second[4]
    assert ids_first[1] == ids_second[0]
    assert derive_request_id("A", "A@Example.com", 1) == derive_request_id("A", "a@example.com", 1)


def test_bad_lines_name_their_number_and_reason() -> None:
    text = "\n".join(
        [
            "{",
            "[]",
            json.dumps({"task": "", "email": "a@example.com"}),
            json.dumps({"task": "t"}),
            json.dumps({"task": "t", "email": "a@example.com", "extra": 1}),
            json.dumps({"task": "t", "email": "a@example.com", "request_id": "short"}),
            json.dumps({"task": "t", "email": "a@example.com", "request_id": "req_12345678"}),
            json.dumps({"task": "u", "email": "a@example.com", "request_id": "req_12345678"}),
        ]
    )
    found = parse(text)
    messages = [x.message for x in found if isinstance(x, SvcError)]
    assert messages == [
        "line 1: not a JSON object (Expecting property name enclosed in double quotes)",
        "line 2: not a JSON object",
        "line 3: missing task (a non-empty string)",
        "line 4: missing email (give it in the line, or a default e-mail for all lines)",
        "line 5: unknown key 'extra' (known: task, email, request_id)",
        "line 6: invalid request id 'short': a request id is 8-128 letters, digits, '-', '_', '.' or ':'",
        "line 8: request_id req_12345678 is used by an earlier line",
    ]
    assert [x.number for x in found if isinstance(x, Line)] == [7]
    assert all(x.exit_code == 2 for x in found if isinstance(x, SvcError))
    assert parse(b"\xff\xfe\n".decode("latin-1"))  # decoded as text: not a crash


def test_default_email_and_skipped_lines() -> None:
    found = parse("# comment\n\n" + json.dumps({"task": "t"}) + "\n", email="d@example.com")
    assert len(found) == 1 and isinstance(found[0], Line)
    assert found[0].number == 3 and found[0].body == {"task": "t", "email": "d@example.com"}


def test_non_utf8_line() -> None:
    found = list(parse_lines(io.BytesIO(b"\xff\xfe{}\n"), None))
    assert isinstance(found[0], SvcError) and found[0].message == "line 1: not UTF-8 text"


def _worst(codes: list[int]) -> int | None:
    """The exit code of the worst failure a summary finds over lines failing with `codes`."""
    summary = Summary()
    summary.count(LineResult(0, "accepted", {}))
    for number, code in enumerate(codes, 1):
        error = SvcError("failed", exit_code=ExitCode(code))
        summary.count(LineResult(number, "error", {}, error))
    return None if summary.worst is None else int(summary.worst.exit_code)


def test_the_worst_outcome_follows_the_order_of_seriousness() -> None:
    assert _worst([]) is None  # nothing failed: no worst outcome
    assert _worst([2]) == 2
    assert _worst([2, 1]) == 1
    assert _worst([9, 5, 2]) == 5
    assert _worst([5, 10, 9]) == 10
    assert _worst([9, 4, 7]) == 9


def test_a_bad_line_is_counted_but_never_the_worst_outcome() -> None:
    summary = Summary()
    summary.count(LineResult(3, "invalid", {}, SvcError("bad", exit_code=ExitCode.USAGE)))
    assert (summary.bad, summary.sent, summary.worst, summary.bad_lines) == (1, 0, None, [3])


# A process whose recursion limit something raised (py_ecc sets 100,000 when it is imported,
# and a library user may import it before svc): the deep line must still be one bad line.
DEEP_LINE_IN_A_RAISED_LIMIT = """
import io, sys
sys.setrecursionlimit(100_000)
from svc.engines.batch_file import parse_lines
lines = list(parse_lines(io.BytesIO(b"[" * 150_000 + b"\\n"), "a@example.com"))
print(lines[0])
"""


def test_a_deep_line_is_a_bad_line_even_where_the_recursion_limit_was_raised() -> None:
    """json.loads recursed until the C stack overflowed: SIGSEGV, the batch (or the program
    using the library) gone, instead of a RecursionError."""
    run = subprocess.run(
        [sys.executable, "-c", DEEP_LINE_IN_A_RAISED_LIMIT],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, (run.returncode, run.stderr[-500:])
    assert "line 1: nested too deeply" in run.stdout, run.stdout
