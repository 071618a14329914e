"""The fidelity table (issue 25.6): every spec row has a test that exists, nothing the spec
lacks is claimed, and docs/fidelity.md is what `python -m tests.fidelity` writes."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests import fidelity
from tests.fidelity_registry import COVERAGE

SPEC_TEXT = fidelity.SPEC.read_text(encoding="utf-8")
ROWS = fidelity.spec_rows(SPEC_TEXT)


def test_every_spec_row_has_a_test() -> None:
    empty = [row.id for row in ROWS if not COVERAGE.get(row.id)]
    assert empty == [], (
        f"spec rows no test covers (add them to tests/fidelity_registry.py): {empty}"
    )


def test_the_registry_names_only_rows_the_spec_has() -> None:
    ids = {row.id for row in ROWS}
    assert sorted(set(COVERAGE) - ids) == []


def test_the_rows_span_every_kind_and_both_code_tables() -> None:
    """A parser that silently found nothing would make the two tests above vacuous."""
    kinds = {row.kind for row in ROWS}
    assert kinds == set(fidelity.KINDS)
    ids = {row.id for row in ROWS}
    assert {
        "code entitlements_not_available",
        "code invalid_token reason=token_expired",
        "code Complete claim: claim_not_confirmed",
        "code Exchange: invalid_request",
        "status POST /svc/tasks/{ticket_id}/reply 410",
        "endpoint POST /svc/agent/guide",
        "header svc-payment-id",
    } <= ids
    assert len(ROWS) >= 100


def test_every_named_test_collects(request: pytest.FixtureRequest) -> None:
    """Each node id in the registry is one pytest collects (a renamed or removed test, or a
    changed parameter id, fails here)."""
    named = sorted({node for nodes in COVERAGE.values() for node in nodes})
    files = sorted({node.split("::", 1)[0] for node in named})
    collected = _collected(request.session, files)
    missing = [node for node in named if node not in collected and not _has_cases(node, collected)]
    assert missing == [], missing


def _collected(session: pytest.Session, files: list[str]) -> set[str]:
    """The node ids pytest collects from `files`: this session's own when it collected all of
    them (a full run has: a second collection in a subprocess cost 10 to 20 s of it), else
    those of a `--collect-only` run over the files."""
    ours = {item.nodeid for item in session.items}
    if {node.split("::", 1)[0] for node in ours} >= set(files):
        return ours
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *files],
        cwd=fidelity.ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return set(out.stdout.splitlines())


def _has_cases(node: str, collected: set[str]) -> bool:
    """A parametrized test named without its case covers all of its cases."""
    return "[" not in node and any(c.startswith(node + "[") for c in collected)


def test_a_row_without_a_test_shows_an_empty_cell() -> None:
    rows = [fidelity.Row("code", "some_new_code", "payment and access, 400")]
    page = fidelity.render(rows, {})
    assert "| `some_new_code` | payment and access, 400 |   |" in page


@pytest.mark.parametrize("flag", [[], ["--check"]])
def test_the_committed_table_is_fresh(flag: list[str]) -> None:
    assert fidelity.DOC.read_text(encoding="utf-8") == fidelity.build(), (
        "docs/fidelity.md is stale: run `make docs` and commit it"
    )
    if flag:
        assert fidelity.main(flag) == 0


def test_the_projects_copy_of_the_spec_is_the_shared_one() -> None:
    """The table reads the project's copy, so a clean clone has it; beside the shared ground
    truth (as on a developer's machine) the copy must be that file, byte for byte."""
    copy = (fidelity.ROOT / "docs" / "spec" / "service-spec.md").read_text(encoding="utf-8")
    assert copy.startswith("# Task-Execution Service Specification")
    if fidelity.SHARED_SPEC.exists():  # a clean clone in CI has only the copy
        shared = fidelity.SHARED_SPEC.read_text(encoding="utf-8")
        assert copy == shared, "docs/spec/service-spec.md differs: copy the shared spec again"
