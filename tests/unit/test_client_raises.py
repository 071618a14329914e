"""The client raises (issue 23.3): what an HTTP status means is decided in `svc/api/` only.

Above it, code gets a typed answer or the typed error of the status (`api/status.py`,
`api/response.expect_status`, `SubmitAnswer.rate_limited`, ...), never a raw status to compare: a
comparison written twice is a meaning that can drift.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.import_graph import package_root


def _compares_a_status(node: ast.Compare) -> bool:
    parts = [node.left, *node.comparators]
    reads_status = any(
        isinstance(part, ast.Attribute) and part.attr == "status_code" for part in parts
    )
    names_status = any(
        isinstance(part, ast.Name | ast.Attribute)
        and "status" in (part.id if isinstance(part, ast.Name) else part.attr)
        for part in parts
    )
    http_code = any(
        isinstance(part, ast.Constant)
        and isinstance(part.value, int)
        and not isinstance(part.value, bool)
        and 100 <= part.value <= 599
        for part in ast.walk(node)
    )
    return reads_status or (names_status and http_code)


def status_comparisons(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("api/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [
            f"{rel}:{node.lineno}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Compare) and _compares_a_status(node)
        ]
    return found


def test_no_http_status_is_compared_above_api() -> None:
    assert status_comparisons(package_root("svc")) == []


def test_the_scan_sees_each_way_of_comparing(tmp_path: Path) -> None:
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "ok.py").write_text("ok = response.status_code == 200\n")
    (tmp_path / "flow.py").write_text(
        "a = response.status_code != 402\n"
        "b = status >= 500\n"
        "c = answer.http_status in (409, 410)\n"
        "d = row.status == PayState.ACCEPTED\n"  # a ledger state, not an HTTP status
        "e = count == 404\n"
    )
    assert status_comparisons(tmp_path) == ["flow.py:1", "flow.py:2", "flow.py:3"]
