"""docs/architecture.md's picture of the packages is the code's (issue 23.8), and the layers
point one way: only the entry point and the commands import cli, nothing imports commands, and
core imports no other layer."""

from __future__ import annotations

from tests.package_graph import PAGE, package_edges, page_with_picture


def test_the_picture_on_the_page_is_the_code() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert page_with_picture(text) == text, "the package graph is stale: run `make docs`"


def test_the_layers_point_one_way() -> None:
    edges = package_edges()
    assert ("commands", "engines") in edges and ("engines", "pay") in edges  # not empty
    # The frame is imported by the entry point and the commands it runs; the commands by
    # nobody (the command table loads them by name), so no lower layer reaches up into them.
    assert {edge[0] for edge in edges if edge[1] == "cli"} == {"entry", "commands"}
    assert not [edge for edge in edges if edge[1] == "commands"]
    assert not [edge for edge in edges if edge[0] == "core" and edge[1] != "core"]
