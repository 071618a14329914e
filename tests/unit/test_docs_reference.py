"""The site's reference pages (docs/reference/, tools/reference_doc.py) are the code's.

The command reference is made from the commands `--help` and the man pages are made from, and
the exit codes and environment from `svc help`'s tables; the committed pages must be what the
generator writes, so a flag changed without `make docs` fails here, as it fails the man pages'
check (tests/unit/test_docs.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from tools import docgen, reference_doc

from svc.cli import help_topics
from svc.errors import ExitCode

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tree() -> docgen.Node:
    return docgen.command_tree()


@pytest.fixture(scope="module")
def pages(tree: docgen.Node) -> dict[str, str]:
    return reference_doc.render_all(tree)


def test_the_committed_reference_pages_are_fresh(pages: dict[str, str]) -> None:
    assert sorted(pages) == [
        "docs/reference/commands.md",
        "docs/reference/environment.md",
        "docs/reference/exit-codes.md",
    ]
    assert reference_doc.stale(REPO, pages) == [], "stale reference pages: run `make docs`"
    assert reference_doc.main(["--check"]) == 0


def test_a_changed_flag_makes_the_command_reference_stale(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import typer

    from svc.cli.app import LazyGroup

    probe = typer.Typer()

    @probe.command()
    def _probe(priority: int = typer.Option(0, "--priority", help="How urgent.")) -> None: ...

    new_flag = typer.main.get_command(probe).params[0]
    original = LazyGroup.get_command

    def with_new_flag(self: Any, ctx: Any, name: str) -> Any:
        command = original(self, ctx, name)
        if name == "submit" and new_flag not in command.params:
            command.params.append(new_flag)
        return command

    monkeypatch.setattr(LazyGroup, "get_command", with_new_flag)
    pages = reference_doc.render_all()
    submit = pages["docs/reference/commands.md"].split("\n## svc submit\n", 1)[1].split("\n## ")[0]
    assert re.search(r"^- `--priority [A-Z]+`: How urgent\.", submit, re.M), submit
    assert reference_doc.stale(REPO, pages) == ["docs/reference/commands.md"]
    assert reference_doc.main(["--check"]) == 1


def test_a_page_edited_by_hand_or_missing_is_stale(tmp_path: Path, pages: dict[str, str]) -> None:
    reference_doc.write(tmp_path, pages)
    assert reference_doc.stale(tmp_path, pages) == []
    edited = tmp_path / "docs/reference/exit-codes.md"
    edited.write_text(edited.read_text(encoding="utf-8").replace("| 6 |", "| 66 |"))
    (tmp_path / "docs/reference/environment.md").unlink()
    assert reference_doc.stale(tmp_path, pages) == [
        "docs/reference/environment.md",
        "docs/reference/exit-codes.md",
    ]


def test_every_command_has_its_section_with_usage_options_and_examples(
    tree: docgen.Node, pages: dict[str, str]
) -> None:
    text = pages["docs/reference/commands.md"]
    globals_ = reference_doc.global_names(tree)
    nodes = list(docgen.walk(tree))
    assert len(nodes) >= 40
    for node in nodes:
        name = " ".join(node.path)
        body = text.split(f"\n## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert f"```text\n{name} " in body, name  # the usage line
        examples = body.split("Examples:\n\n```sh\n", 1)[1].split("\n```", 1)[0]
        assert "svc " in examples, name
        for param in node.command.params:
            record = param.get_help_record(node.ctx)
            if getattr(param, "hidden", False) or record is None:
                continue
            if param.name in globals_:  # named on the command's global-options line
                assert f"`{max(param.opts, key=len)}`" in body, (name, param.name)
            else:  # listed with its help, as `--help` prints it
                assert f"- `{record[0]}`: " in body, (name, record[0])
    assert "\n## Global options\n" in text


def test_the_exit_code_table_is_every_exit_code(pages: dict[str, str]) -> None:
    text = pages["docs/reference/exit-codes.md"]
    codes = [int(c) for c in re.findall(r"^\| (\d+) \|", text, re.M)]
    assert codes == [int(c) for c in ExitCode] == [c[0] for c in help_topics.EXIT_CODES]


def test_the_environment_page_names_every_variable_and_file(pages: dict[str, str]) -> None:
    text = pages["docs/reference/environment.md"]
    for name, _ in help_topics.ENVIRONMENT:
        assert f"| `{name}` |" in text, name
    for path, _ in help_topics.FILES:
        assert f"| `{path}` |" in text, path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a *star* and <b>", "a \\*star\\* and &lt;b>"),
        ("keeps `a*b <c>` as written", "keeps `a*b <c>` as written"),
        ("max_price_usd", "max_price_usd"),
    ],
)
def test_help_text_reaches_markdown_as_written(text: str, expected: str) -> None:
    assert reference_doc.prose(text) == expected


def test_a_pipe_in_a_table_cell_is_escaped() -> None:
    assert reference_doc.cell("x402|mpp") == "x402\\|mpp"
