"""`make docs`'s Python API reference (tools/apidoc.py, pdoc) renders svc's public surface.

The page must document every name `svc.__all__` exports (they are resolved lazily, PEP 562,
so a name pdoc cannot resolve would silently vanish from the reference), leave the internal
packages out, and the Client's methods must carry their own docstrings: the reference is
made of them. The guide beside it (docs/python.md) shows only Python that parses and public
names that exist.
"""

from __future__ import annotations

import inspect
import re
import textwrap
from pathlib import Path

import pytest
from tools import apidoc

import svc


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("api")
    html = apidoc.render(out)
    return out, html.read_text(encoding="utf-8")


def public_names() -> list[str]:
    return [name for name in svc.__all__ if not name.startswith("_")]


def test_every_public_name_is_documented_on_the_page(page: tuple[Path, str]) -> None:
    _, html = page
    assert {"Client", "AsyncClient", "SvcError", "Secret", "PolicyRefused"} <= set(svc.__all__)
    missing = [name for name in public_names() if f'id="{name}"' not in html]
    assert missing == []


def test_the_reference_is_the_package_alone(page: tuple[Path, str]) -> None:
    out, html = page
    assert sorted(p.name for p in out.rglob("*.html")) == ["index.html", "svc.html"]
    assert not re.search(r'href="svc/(engines|pay|cli|commands|store)', html)


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
