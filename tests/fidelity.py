"""The fidelity table (docs/fidelity.md): every endpoint, status, code and header of the spec,
each with the tests that cover it.

The rows come from the spec itself: the project's copy, docs/spec/service-spec.md, so a clean
clone has it (`SVC_SPEC` overrides the path; tests/unit/test_fidelity.py fails when the copy
differs from ../shared/spec/service-spec.md beside the checkout), the tests from
`tests/fidelity_registry.py`. Nothing is
typed twice: a row the spec gains shows up here with an empty cell, and
tests/unit/test_fidelity.py fails until a test claims it; a row the registry names that the
spec lacks, a named test that does not exist, or a committed table that differs from this
output fails it too.

    python -m tests.fidelity          # rewrite docs/fidelity.md (also `make docs`)
    python -m tests.fidelity --check  # exit 1 if it is stale
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPEC = Path(os.environ.get("SVC_SPEC", ROOT / "docs" / "spec" / "service-spec.md"))
SHARED_SPEC = ROOT.parent / "shared" / "spec" / "service-spec.md"  # the ground truth, when here
DOC = ROOT / "docs" / "fidelity.md"
KINDS = ("endpoint", "status", "code", "header")

_ENDPOINT = re.compile(r"`(GET|POST) (\{base_url\}|\{auth_base\}|<\w+>)([^`?\s]*)")
_TICKED = re.compile(r"`([a-z][a-z_]+)`")
_HEADER = (
    re.compile(r"header (?:is )?`([A-Za-z][\w-]*)"),  # "in header `x-payment`"
    re.compile(r"`([A-Za-z][\w-]*)`(?: response)? header"),  # "the `svc-billing` header"
    re.compile(r"`(Authorization: \w+)"),  # one row per scheme the spec puts in it
)


@dataclass(frozen=True)
class Row:
    kind: str  # one of KINDS
    key: str  # what the registry names, after the kind: "POST /svc/tasks 402"
    spec: str = ""  # the spec's own words beside it (a code's status, its table)

    @property
    def id(self) -> str:
        return f"{self.kind} {self.key}"


def sections(text: str) -> dict[str, str]:
    """Every `##`/`###` heading's text up to the next heading of any level."""
    parts = re.split(r"^#{2,3} (.+)$", text, flags=re.MULTILINE)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def table(body: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows (header and rule skipped)."""
    lines = [line for line in body.splitlines() if line.startswith("|")]
    cells = (re.split(r"(?<!\\)\|", line.strip()[1:-1]) for line in lines[2:])
    return [[cell.strip() for cell in row] for row in cells]


def endpoint_rows(secs: dict[str, str]) -> list[Row]:
    """Each endpoint named under "Endpoints", and each status its subsection lists."""
    rows: list[Row] = []
    start = list(secs).index("Endpoints")
    for title in list(secs)[start + 1 : list(secs).index("Authentication")]:
        found = [f"{m} {base}{path}" for m, base, path in _ENDPOINT.findall(secs[title])]
        if "the same path by `POST`" in secs[title]:  # the guide: GET and POST
            found.append(found[0].replace("GET ", "POST ", 1))
        found = [e.replace("{base_url}", "") for e in found]
        rows += [Row("endpoint", e, title) for e in dict.fromkeys(found)]
        for line in secs[title].splitlines():
            if line.startswith("- Status codes:"):
                for status, note in re.findall(r"`(\d{3})`(?: \(([^)]*)\))?", line):
                    rows.append(Row("status", f"{found[0]} {status}", note or title))
    return rows


def code_rows(secs: dict[str, str]) -> list[Row]:
    """Each code of "Payment and access codes" (invalid_token once per reason) and of
    "Identity flow codes" (per step: one code can mean different things at two steps)."""
    rows: list[Row] = []
    for cells in table(secs["Payment and access codes"]):
        where = f"payment and access, {cells[1] or 'no status'}"
        if cells[0].startswith("("):  # the normal charge: a 402 with no code
            rows.append(Row("code", "402 without a reason (the per-call charge)", where))
            continue
        for code in _TICKED.findall(cells[0]):
            rows.append(Row("code", code, where))
            if "one of:" in cells[2]:
                reasons = _TICKED.findall(cells[2].split("one of:", 1)[1])
                rows += [Row("code", f"{code} reason={r}", where) for r in reasons]
    for step, codes in table(secs["Identity flow codes"]):
        top_level = re.sub(r"\([^()]*\)", "", codes)  # drop the notes in parentheses
        rows += [Row("code", f"{step}: {c}", "identity flow") for c in _TICKED.findall(top_level)]
    return rows


def header_rows(secs: dict[str, str]) -> list[Row]:
    """Each header the spec names (case-insensitive, first spelling kept), with its section."""
    rows: dict[str, Row] = {}
    for title, body in secs.items():
        for pattern in _HEADER:
            for name in pattern.findall(body):
                rows.setdefault(name.lower(), Row("header", name, title))
    return list(rows.values())


def spec_rows(text: str) -> list[Row]:
    secs = sections(text)
    return endpoint_rows(secs) + code_rows(secs) + header_rows(secs)


def render(rows: list[Row], coverage: dict[str, tuple[str, ...]]) -> str:
    """The Markdown page: one table per kind, a row per spec row, its tests in the last cell."""
    out = [
        "# Spec fidelity",
        "",
        "Every endpoint, status, code and header of `../shared/spec/service-spec.md`, with the "
        "tests that cover it. Generated by `python -m tests.fidelity` (`make docs`) from the "
        "spec's text and `tests/fidelity_registry.py`; `tests/unit/test_fidelity.py` fails "
        "when a row has no test or this page is stale. Do not edit it by hand.",
    ]
    for kind in KINDS:
        out += ["", f"## {kind.capitalize()}s", "", f"| {kind} | spec | tests |", "|---|---|---|"]
        for row in (r for r in rows if r.kind == kind):
            tests = "<br>".join(f"`{t}`" for t in coverage.get(row.id, ())) or " "
            out.append(f"| `{row.key}` | {row.spec} | {tests} |")
    return "\n".join(out) + "\n"


def build() -> str:
    from tests.fidelity_registry import COVERAGE

    return render(spec_rows(SPEC.read_text(encoding="utf-8")), COVERAGE)


def main(argv: list[str]) -> int:
    page = build()
    if "--check" in argv:
        if DOC.exists() and DOC.read_text(encoding="utf-8") == page:
            return 0
        print("docs/fidelity.md is stale: run `make docs` and commit it", file=sys.stderr)
        return 1
    DOC.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
