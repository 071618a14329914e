"""A rail's name is spelt in one module, svc/rail_table.py (issue 33.4): the policy, the rails,
the settings, the CLI's --pay, the MCP schemas, the Client and the journal read it from there.
Before, `"mpp"` was a literal in 13 modules, and a new rail or a renamed one was a hunt."""

from __future__ import annotations

import ast
import importlib
import typing
from pathlib import Path
from typing import Any

import httpx
import pytest

from svc import rail_table
from svc.api.models import QuoteRequest
from svc.errors import UsageError
from svc.pay.rails import RailParts, build_rail, part

SRC = Path(__file__).resolve().parents[2] / "src" / "svc"

# (path under src/svc, name, why it may stay): each is not the rail's name but a word of the
# spec's wire or of the command line that happens to be spelt the same.
ALLOWED: dict[tuple[str, str], str] = {
    ("rail_table.py", rail_table.X402): "the registry",
    ("rail_table.py", rail_table.MPP): "the registry",
    ("rail_table.py", rail_table.CARD): "the registry",
    # A typing.Literal cannot name a constant (PEP 586): the spec's advisor schema spells its
    # `payment` enum; test_the_advisor_schema_enum_is_the_registry holds it to the table.
    ("api/models.py", rail_table.X402): "the spec's QuoteRequest.payment enum",
    ("api/models.py", rail_table.MPP): "the spec's QuoteRequest.payment enum",
    ("api/models.py", rail_table.CARD): "the spec's QuoteRequest.payment enum",
    ("pay/card.py", rail_table.CARD): "the 402 body's `card` object, a field the spec names",
    ("commands/pay/__init__.py", rail_table.CARD): "the command `svc pay card`",
    ("commands/pay/card.py", rail_table.CARD): "the command `svc pay card`",
}
# Generated from the commands (whose --pay choices come from the table): not written by hand.
GENERATED = ("completion/table.py",)


def _literals(path: Path) -> list[tuple[int, str]]:
    """Every string constant in the module that is exactly a rail's name, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in rail_table.NAMES
    ]


def test_no_module_spells_a_rail_name_but_the_registry() -> None:
    found = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where in GENERATED:
            continue
        found += [
            f"src/svc/{where}:{line}: {name!r}"
            for line, name in _literals(path)
            if (where, name) not in ALLOWED
        ]
    assert found == [], "use svc.rail_table's names:\n" + "\n".join(found)


def test_the_allow_list_holds_only_what_is_still_there() -> None:
    """An entry whose literal is gone is removed: the list only shrinks."""
    for where, name in ALLOWED:
        assert name in {value for _, value in _literals(SRC / where)}, (where, name)


def test_the_rule_catches_a_literal(tmp_path: Path) -> None:
    path = tmp_path / "probe.py"
    path.write_text('def pay(rail: str) -> bool:\n    return rail == "mpp"  # "mpp" here\n')
    assert _literals(path) == [(2, rail_table.MPP)]  # the code's literal, not the comment


def test_the_advisor_schema_enum_is_the_registry() -> None:
    annotation = QuoteRequest.model_fields["payment"].annotation
    literal = next(arg for arg in typing.get_args(annotation) if arg is not type(None))
    assert typing.get_args(literal) == rail_table.NAMES


def test_each_row_names_parts_that_exist() -> None:
    for rail in rail_table.RAILS:
        for reference in (rail.offers, rail.factory, rail.proof_header):
            module, _, name = reference.partition(":")
            assert hasattr(importlib.import_module(module), name), (rail.name, reference)


def test_each_rail_is_built_by_its_row_and_attaches_its_proof_in_the_rows_header() -> None:
    """The row is the truth: its factory builds the rail of that name, and the header it
    names is the one the rail's proof travels in."""
    nothing: Any = None
    parts = RailParts(
        nothing,
        nothing,
        announce=lambda line: None,
        signer=nothing,
        spt=nothing,
        mpp_methods=("stripe",),
        checkout=lambda: nothing,
    )
    for row in rail_table.RAILS:
        rail = build_rail(row.name, parts)
        assert rail.name == row.name
        request = httpx.Request("POST", "http://127.0.0.1:8402/v1/tasks")
        rail.attach(request, "proof-value")
        assert request.headers[part(row.proof_header)] == "proof-value", row.name


def test_an_unknown_rail_is_a_usage_error_not_a_default() -> None:
    """A name from an old ledger row or a hand-edited file never quietly becomes x402."""
    with pytest.raises(UsageError, match="unknown payment rail 'cash'"):
        build_rail("cash", None)  # type: ignore[arg-type]
