"""The picture in docs/architecture.md: which of svc's packages import which, drawn from the
source (function-level imports included), as a Mermaid graph GitHub renders.

    python -m tests.package_graph     # rewrite the picture (also `make docs`)

tests/unit/test_package_graph.py fails when the page's picture is not the code's.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.import_graph import import_graph

PAGE = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"
BEGIN = "<!-- package graph: python -m tests.package_graph -->"
END = "<!-- end of package graph -->"
# Modules at the top of svc that belong with a layer in the picture.
GROUP = {
    "__main__": "entry",
    "context": "context",
    "settings": "core",
    "settings_table": "core",
    "rail_table": "core",
    "errors": "core",
    "money": "core",
    "numbers": "core",
    "origin": "core",
    "suggest": "core",
    "testing_hooks": "core",
    "paid_record": "core",
    "redact": "core",
    "replies": "core",
    "report": "core",
    "sanitize": "core",
    "words": "core",
    "next_step": "core",
    "version": "core",
    "address": "core",
    "telemetry": "core",
    "body_file": "core",
}


def _group(module: str) -> str:
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else "core"
    return GROUP.get(name, name)


def package_edges() -> list[tuple[str, str]]:
    graph = import_graph("svc", deferred=True)
    edges = {
        (_group(source), _group(target))
        for source, targets in graph.items()
        for target in targets
        if _group(source) != _group(target)
    }
    return sorted(edges)


def picture() -> str:
    lines = ["```mermaid", "graph TD"]
    lines += [f"  {source} --> {target}" for source, target in package_edges()]
    lines.append("```")
    return "\n".join([BEGIN, *lines, END])


def page_with_picture(text: str) -> str:
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + picture() + text[end:]


def main() -> int:
    text = PAGE.read_text(encoding="utf-8")
    PAGE.write_text(page_with_picture(text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
