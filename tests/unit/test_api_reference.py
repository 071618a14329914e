"""The Python API reference is made of the public names' own docstrings, and the guide beside it
(docs/python.md) shows only Python that parses and public names that exist.

The reference itself is a page of the documentation site (docs/reference/api.md, rendered by
mkdocstrings); tests/e2e/test_docs_site.py builds the site and checks that every name
`svc.__all__` exports, and every public method of both clients, is on that page.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from pathlib import Path

import pytest

import svc


@pytest.mark.parametrize("name", ["Client", "AsyncClient"])
def test_every_public_method_of_both_clients_has_its_own_docstring(name: str) -> None:
    """The reference shows what a method's own docstring says: one without it is a blank."""
    cls = getattr(svc, name)
    assert inspect.getdoc(cls)
    undocumented = [
        member_name
        for member_name, member in vars(cls).items()
        if not member_name.startswith("_")
        and callable(member)
        and not (member.__doc__ or "").strip()
    ]
    assert undocumented == []


def test_the_guides_python_blocks_are_python_and_name_only_public_names() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "python.md").read_text("utf-8")
    fences = re.findall(r"^ *```python\n(.*?)\n *```", guide, re.S | re.M)
    blocks = [textwrap.dedent(body) for body in fences]  # a block in a list item is indented
    assert len(blocks) >= 6
    for block in blocks:
        compile(block, "docs/python.md", "exec")  # a SyntaxError names the block's line
    named = set(re.findall(r"\bsvc\.([A-Z]\w+)", guide))
    for imported in re.findall(r"^from svc import (.+)$", "\n".join(blocks), re.M):
        named.update(name.strip() for name in imported.split(","))
    assert "Client" in named and named <= set(svc.__all__), named - set(svc.__all__)
