"""`svc poll` against a sandbox answering garbage shapes (issue 6.4), drawn by hypothesis.

For each drawn JSON document the sandbox answers the poll with it verbatim (fault `raw_body`).
Contract: a task-shaped answer (string `id` and `state`) about the asked task is exit 0,
printed exactly in JSON and rendered on a terminal without a traceback; one about another task
is exit 9 (issue 21.2); anything else is exit 1 with one `svc:` line.
"""

from __future__ import annotations

import json
import os
import uuid

import pexpect
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import SVC, Cli, Sandbox, unique_email
from tests.reliability_report import record
from tests.unit.test_fuzz_parsers import json_values, task_like

pytestmark = pytest.mark.e2e

EXAMPLES = max(8, int(os.environ.get("SVC_FUZZ_EXAMPLES", "150")) // 12)
# Each example starts `svc` twice (~0.5 s on a quiet machine). The project-wide 120 s
# pytest-timeout would cut a soak-sized run short mid-example, and Hypothesis then reports the
# interrupted example as flaky (its replay passes): give the test room in proportion, with
# headroom for a loaded machine.
TIMEOUT_SECONDS = max(120, 60 + 3 * EXAMPLES)
shapes = st.one_of(
    task_like.map(lambda d: {"id": "tsk_fuzz", "state": "pending", **d}),
    task_like,
    json_values,
)


@pytest.mark.timeout(TIMEOUT_SECONDS)
def test_poll_against_garbage_shapes_keeps_the_contract(cli: Cli, sandbox: Sandbox) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    task_id = cli.ok(
        "submit", "Fuzz #complete", "--email", unique_email(), "--request-id", rid
    ).json()["id"]
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    ran = {"n": 0}

    @settings(
        max_examples=EXAMPLES,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(shapes)
    def prop(doc: object) -> None:
        ran["n"] += 1
        if isinstance(doc, dict) and doc.get("id") == "tsk_fuzz":
            doc = {**doc, "id": task_id}  # an answer about the task asked about
        body = json.dumps(doc)
        is_task = (
            isinstance(doc, dict)
            and isinstance(doc.get("id"), str)
            and isinstance(doc.get("state"), str)
        )
        fault = {"kind": "raw_body", "method": "GET", "path": "/svc/tasks/", "detail": body}
        sandbox.faults(fault)
        try:
            piped = cli("poll", task_id)
        finally:
            sandbox.clear_faults()  # a failing example must not leave its answer to the next
        errors = [line for line in piped.stderr.splitlines() if line.startswith("svc:")]
        if is_task and doc["id"] == task_id:  # type: ignore[index]
            assert piped.returncode == 0, piped.stderr
            assert json.loads(piped.stdout) == doc
        elif is_task:  # about another task (exit 9), or an id that is not one (exit 1)
            assert piped.returncode in (1, 9), (doc, piped.returncode, piped.stderr)
            assert len(errors) == 1, piped.stderr
        else:
            assert piped.returncode == 1, (doc, piped.returncode, piped.stderr)
            assert len(errors) == 1, piped.stderr
        sandbox.faults(fault)
        try:
            child = pexpect.spawn(
                SVC,
                ["poll", task_id],
                env=env,
                encoding="utf-8",
                timeout=30,
                dimensions=(40, 120),
                codec_errors="replace",
            )
            child.expect(pexpect.EOF)
            child.close()
        finally:
            sandbox.clear_faults()
        screen = child.before or ""
        assert "Traceback" not in screen and "internal error" not in screen, screen
        assert child.exitstatus == piped.returncode, screen  # the same contract on a terminal

    prop()
    record(
        "fuzz",
        "06",
        {
            "property": "svc poll against garbage shapes (executable, piped and on a pty)",
            "examples": ran["n"],
            "passed": True,
        },
        expected=7,
    )
