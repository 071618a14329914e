"""Parser fuzzing (issue 6.4): hypothesis drives every parser of server input with garbage.

Property: nothing escapes but the module's own error type (X402Error, MppError, pydantic's
ValidationError for the models), error bodies always map to an SvcError with a contract exit
code, and rendering any task-shaped JSON never raises and never lets an escape through.
Derandomized, so the example counts in docs/reliability.md are stable; `make soak` raises them
with SVC_FUZZ_EXAMPLES.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError
from tests.pay_readers import decode_receipt
from tests.reliability_report import record

from svc.api.models import TaskDetail
from svc.api.status import error_from_response
from svc.errors import ExitCode, SvcError
from svc.pay import mpp
from svc.pay.errors import classify
from svc.pay.x402 import X402Error, parse_challenge

EXAMPLES = int(os.environ.get("SVC_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
PROPERTIES = 7

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=40)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
hostile_text = st.lists(
    st.sampled_from([*list("ab[]=/\x1b\x07\x9b\u202e\n\r\t;: "), "[link=x]", "\x1b]8;;", "[bold]"]),
    max_size=30,
).map("".join)
TASK_KEYS = [
    "id",
    "state",
    "goal",
    "result",
    "error",
    "reason",
    "info_request",
    "events",
    "created_at",
    "updated_at",
    "completed_at",
    "flow",
]
task_like = st.dictionaries(
    st.sampled_from(TASK_KEYS), st.one_of(json_scalars, hostile_text, json_values), max_size=12
)
ask_like = st.dictionaries(
    st.sampled_from(
        [
            "amount_usd",
            "merchant_name",
            "payment_status",
            "payment_error",
            "requested_fields",
            "questions",
            "note",
            "expires_at",
        ]
    ),
    st.one_of(json_scalars, hostile_text, json_values),
    max_size=8,
)
event_like = st.dictionaries(
    st.sampled_from(["id", "type", "from_state", "to_state", "payload", "created_at"]),
    st.one_of(json_scalars, hostile_text, json_values),
    max_size=6,
)


def _counted(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Count the examples a property really ran, for the report."""

    def wrap(fn: Callable[..., None]) -> Callable[..., None]:
        calls = {"n": 0}

        def inner(*args: Any, **kwargs: Any) -> None:
            calls["n"] += 1
            fn(*args, **kwargs)
            _report(inner, INDEX[name], calls["n"])

        inner.__name__ = fn.__name__
        INDEX.setdefault(name, len(INDEX))
        return inner

    return wrap


INDEX: dict[str, int] = {}


def _report(prop: Any, index: int, examples: int) -> None:
    """Rewritten after every passing example: the last write is the property's count."""
    name = next(k for k, v in INDEX.items() if v == index)
    record(
        "fuzz",
        f"{index:02d}",
        {"property": name, "examples": examples, "passed": True},
        expected=PROPERTIES,
    )


# --- x402 -------------------------------------------------------------------------------------


@_counted("x402 challenge: header and body garbage -> X402Error or None")
def _x402(header: str | None, body: bytes) -> None:
    headers = {"PAYMENT-REQUIRED": header} if header is not None else {}
    with contextlib.suppress(X402Error):
        parse_challenge(headers, body)
    with contextlib.suppress(X402Error):
        decode_receipt(header or "")


@FUZZ
@given(
    st.one_of(
        st.none(),
        st.text(max_size=200),
        json_values.map(lambda v: __import__("base64").b64encode(json.dumps(v).encode()).decode()),
    ),
    st.one_of(st.binary(max_size=200), json_values.map(lambda v: json.dumps(v).encode())),
)
def test_x402_challenge_and_receipt_never_escape(header: str | None, body: bytes) -> None:
    _x402(header, body)


# --- MPP WWW-Authenticate -----------------------------------------------------------------------

param = st.tuples(
    st.sampled_from(
        ["id", "realm", "method", "intent", "request", "expires", "digest", "opaque", "x"]
    ),
    st.one_of(st.text(max_size=20), hostile_text),
)
www_auth = st.lists(param, max_size=7).map(
    lambda ps: (
        "Payment " + ", ".join(f'{k}="{v}"' if i % 2 else f"{k}={v}" for i, (k, v) in enumerate(ps))
    )
)


@_counted("MPP WWW-Authenticate: garbage -> MppError or challenges")
def _mpp(values: list[str]) -> None:
    try:
        challenges = mpp.parse_challenges(values)
    except mpp.MppError:
        return
    for challenge in challenges:
        try:
            mpp.why_unusable(challenge)
            challenge.amount_atomic
        except mpp.MppError:
            pass


@FUZZ
@given(st.lists(st.one_of(www_auth, st.text(max_size=80)), max_size=3))
def test_mpp_www_authenticate_never_escapes(values: list[str]) -> None:
    _mpp(values)


# --- error bodies ------------------------------------------------------------------------------


@_counted("error bodies: any status and body -> SvcError with a contract exit code")
def _errors(status: int, body: bytes) -> None:
    error = error_from_response(status, body, "poll")
    assert isinstance(error, SvcError)
    assert error.exit_code in set(ExitCode)
    assert isinstance(error.message, str) and error.message
    json.dumps(error.to_json())
    classify(status, body)


@FUZZ
@given(
    st.integers(min_value=300, max_value=599),
    st.one_of(
        st.binary(max_size=100),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.fixed_dictionaries(
            {
                "error": st.one_of(
                    json_values,
                    st.sampled_from(
                        [
                            "settlement_failed",
                            "invalid_token",
                            "payment_incomplete",
                            "rate_limit_exceeded",
                        ]
                    ),
                ),
                "detail": st.one_of(json_values, hostile_text),
            },
            optional={"reason": json_values, "retry_after": json_values},
        ).map(lambda d: json.dumps(d).encode()),
    ),
)
def test_error_bodies_always_map_to_the_contract(status: int, body: bytes) -> None:
    _errors(status, body)


# --- task objects: models and rendering ----------------------------------------------------------


@_counted("task models: any task-shaped JSON -> a model or ValidationError")
def _models(doc: dict[str, Any]) -> None:
    try:
        task = TaskDetail.model_validate(doc)
    except ValidationError:
        return
    task.plain_ask()
    if task.info_request is not None:
        task.info_request.required_keys()


@FUZZ
@given(task_like)
def test_task_models_raise_only_validation_errors(doc: dict[str, Any]) -> None:
    _models(doc)


def _console() -> tuple[Any, io.StringIO]:
    from rich.console import Console

    buffer = io.StringIO()
    return Console(
        file=buffer,
        force_terminal=True,
        no_color=True,
        width=100,
        markup=False,
        highlight=False,
        emoji=False,
    ), buffer


@_counted("rendering: any task, ask and event shape renders inert")
def _render(task: dict[str, Any], ask: dict[str, Any], event: dict[str, Any]) -> None:
    from svc.ui.render import ask_text, event_line, task_panel

    console, buffer = _console()
    console.print(task_panel(task))
    console.print(task_panel({**task, "state": "blocked_on_user", "info_request": ask}))
    console.print(task_panel({**task, "state": "blocked_on_user", "events": [event, 3, None]}))
    console.print(ask_text(ask))
    console.print(event_line(event, 0.0, str(task.get("id"))))
    screen = buffer.getvalue()
    for bad in ("\x1b]", "\x07", "\u202e", "\x9b"):
        assert bad not in screen


@FUZZ
@given(task_like, ask_like, event_like)
def test_rendering_any_shape_never_raises_and_stays_inert(
    task: dict[str, Any], ask: dict[str, Any], event: dict[str, Any]
) -> None:
    _render(task, ask, event)


# --- the ledger's view of states ------------------------------------------------------------------


@_counted("ledger: any server state string is stored and listed as is")
def _ledger(tmp: Any, state: str) -> None:
    from svc.store.ledger import Ledger

    ledger = Ledger(tmp / "ledger.sqlite3")
    try:
        rid = f"req_{abs(hash(state))}"
        ledger.journal(rid, "http://127.0.0.1:80", "a@example.com", {"task": "t"})
        ledger.mark_accepted(
            rid,
            task_id="tsk_1",
            state=state,
            http_status=202,
            billing=None,
            receipt=None,
            usage_error=None,
        )
        ledger.set_task_state("tsk_1", state)
        rows = [r.public_dict() for r in ledger.submissions() if r.request_id == rid]
        assert rows and rows[0]["state"] == state
        json.dumps(rows)
    finally:
        ledger.close()


@pytest.fixture(scope="module")
def ledger_dir(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return tmp_path_factory.mktemp("fuzz-ledger")


@FUZZ
@given(st.one_of(hostile_text, st.text(min_size=1, max_size=60)))
def test_ledger_keeps_any_state(ledger_dir: Any, state: str) -> None:
    _ledger(ledger_dir, state)
