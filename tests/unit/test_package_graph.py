"""docs/architecture.md's picture of the packages is the code's (issue 23.8), and the layers
point one way: only the entry point imports cli, and core imports no other layer."""

from __future__ import annotations

from tests.package_graph import PAGE, package_edges, page_with_picture


def test_the_picture_on_the_page_is_the_code() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert page_with_picture(text) == text, "the package graph is stale: run `make docs`"


def test_the_layers_point_one_way() -> None:
    edges = package_edges()
    assert ("cli", "flows") in edges and ("flows", "pay") in edges  # the graph is not empty
    assert [edge for edge in edges if edge[1] == "cli"] == [("entry", "cli")]
    assert not [edge for edge in edges if edge[0] == "core" and edge[1] != "core"]
