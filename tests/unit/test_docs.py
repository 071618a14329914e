"""Generated docs: man/ and completions/ are fresh, every page renders, every help teaches.

The freshness check is the CI gate of issue 7: a flag changed without `make docs` must fail it,
which `test_freshness_check_fails_when_a_flag_changes` proves by changing a command in-process.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tools import completion_table as complete_gen
from tools import docgen

from svc.cli import help_topics
from svc.errors import ExitCode

REPO = Path(__file__).resolve().parents[2]


def _man() -> str:
    man = shutil.which("man")
    if man is None:
        pytest.fail("`man` is missing: run `make tools` (installs man-db) and re-run the tests")
    return man


@pytest.fixture(scope="module")
def tree() -> docgen.Node:
    return docgen.command_tree()


@pytest.fixture(scope="module")
def files(tree: docgen.Node) -> dict[str, str]:
    return docgen.render_all(tree)


def test_checked_in_man_pages_and_completions_are_fresh(files: dict[str, str]) -> None:
    assert docgen.stale(REPO, files) == [], "stale generated docs: run `make docs` and commit them"
    assert complete_gen.main(["--check"]) == 0, "stale completion table: run `make docs`"


def test_regenerating_into_a_temp_dir_matches_the_checkout(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tools.docgen", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    diff = subprocess.run(
        ["diff", "-r", str(tmp_path / "man"), str(REPO / "man")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert diff.returncode == 0, diff.stdout[:2000]
    diff = subprocess.run(
        ["diff", "-r", str(tmp_path / "completions"), str(REPO / "completions")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert diff.returncode == 0, diff.stdout[:2000]


def test_freshness_check_fails_when_a_flag_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    import typer

    from svc.cli.app import LazyGroup

    # A new flag, declared the way command modules declare theirs.
    probe = typer.Typer()

    @probe.command()
    def _probe(priority: int = typer.Option(0, "--priority", help="How urgent.")) -> None: ...

    new_flag = typer.main.get_command(probe).params[0]
    original = LazyGroup.get_command

    def with_new_flag(self: Any, ctx: Any, name: str) -> Any:
        command = original(self, ctx, name)
        if name == "submit":
            command.params.append(new_flag)
        return command

    monkeypatch.setattr(LazyGroup, "get_command", with_new_flag)
    files = docgen.render_all()
    assert "--priority" in files["man/svc-submit.1"].replace("\\-", "-")
    assert docgen.stale(REPO, files) == ["man/svc-submit.1"]
    # The `--check` entry point says so and fails, and so does the completion table's check.
    monkeypatch.chdir(REPO)
    assert docgen.main(["--check"]) == 1
    assert complete_gen.main(["--check"]) == 1


def test_a_removed_page_is_reported_as_left_over(tmp_path: Path, files: dict[str, str]) -> None:
    docgen.write(tmp_path, files)
    (tmp_path / "man" / "svc-gone.1").write_text("old", encoding="utf-8")
    (tmp_path / "completions" / "svc.bash").write_text("edited", encoding="utf-8")
    assert docgen.stale(tmp_path, files) == ["completions/svc.bash", "man/svc-gone.1"]
    docgen.write(tmp_path, files)
    assert docgen.stale(tmp_path, files) == []


def test_every_command_help_has_a_summary_a_paragraph_and_an_example(tree: docgen.Node) -> None:
    problems = []
    count = 0
    for node in docgen.walk(tree):
        count += 1
        name = " ".join(node.path)
        doc = docgen.parse_help(node.command.help or "")
        if not doc.summary or len(doc.summary) > 110 or "\n" in doc.summary:
            problems.append(f"{name}: no one-line summary ({doc.summary!r})")
        if not doc.paragraphs:
            problems.append(f"{name}: no paragraph after the summary")
        if not any(line.startswith("svc ") or " | svc " in line for line in doc.examples):
            problems.append(f"{name}: no `Examples:` block with an svc command line")
        # What --help really prints (the formatted page), not only the source string.
        rendered = node.command.get_help(node.ctx)
        if "Examples:" not in rendered and "Example:" not in rendered:
            problems.append(f"{name}: --help shows no examples")
    assert count >= 40, count
    assert problems == []


def test_man_pages_render_without_warnings(files: dict[str, str]) -> None:
    man = _man()
    env = {**os.environ, "MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat", "LC_ALL": "C.UTF-8"}
    pages = sorted(p for p in files if p.startswith("man/"))
    assert (
        "man/svc.1" in pages
        and "man/svc-submit.1" in pages
        and "man/svc-identity-register.1" in pages
    )
    for page in pages:
        proc = subprocess.run(
            [man, "--warnings", "-l", str(REPO / page)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=30,
        )
        assert proc.returncode == 0, (page, proc.stderr)
        assert proc.stderr == "", (page, proc.stderr)
        for section in (
            "NAME",
            "SYNOPSIS",
            "DESCRIPTION",
            "OPTIONS",
            "EXAMPLES",
            "ENVIRONMENT",
            "FILES",
            "EXIT STATUS",
        ):
            assert re.search(rf"^{section}$", proc.stdout, re.M), (page, section)


def test_svc_1_renders_with_man_l() -> None:
    proc = subprocess.run(
        [_man(), "-l", str(REPO / "man/svc.1")],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "MANPAGER": "cat", "MANWIDTH": "100"},
        timeout=30,
    )
    assert proc.returncode == 0, proc.stderr
    # groff justifies by alternating where it widens spaces line by line, so any line added
    # above shifts the spacing below: words are compared, not spaces.
    text = " ".join(proc.stdout.split())
    assert "svc - Submit, pay for, follow and answer tasks" in text
    assert "svc-identity(1)" in text and "SVC_WALLET_KEY" in text
    assert "outcome unknown" in text


def test_each_man_page_lists_every_option_of_its_command(
    tree: docgen.Node, files: dict[str, str]
) -> None:
    for node in docgen.walk(tree):
        page = files[f"man/{node.page}.1"].replace("\\-", "-")
        for param in node.command.params:
            for opt in [*getattr(param, "opts", []), *getattr(param, "secondary_opts", [])]:
                if opt.startswith("-") and not getattr(param, "hidden", False):
                    assert f"\\fB{opt}\\fR" in page, (node.page, opt)
        for child in node.children:
            assert f".BR {child.page.replace('-', '-')} (1)" in page


def test_examples_and_commands_reach_the_man_page(files: dict[str, str]) -> None:
    page = files["man/svc-identity-register.1"]
    assert ".SH EXAMPLES" in page and "svc identity register \\-\\-anonymous" in page
    page = page.replace("\\-", "-")
    assert ".SH SEE ALSO" in page and ".BR svc-identity (1)" in page


def test_exit_codes_topic_covers_every_exit_code() -> None:
    assert [c[0] for c in help_topics.EXIT_CODES] == [int(c) for c in ExitCode]


def test_environment_topic_names_every_variable_the_code_reads() -> None:
    read = set()
    for path in (REPO / "src" / "svc").rglob("*.py"):
        read |= set(re.findall(r"\b(SVC_[A-Z_]+)\b", path.read_text(encoding="utf-8")))
    internal = {v for v in read if v.startswith("SVC_TEST_")}
    documented = {name for name, _ in help_topics.ENVIRONMENT}
    assert read - internal - documented == set()
    assert {"NO_COLOR", "CI"} <= documented


def test_help_topic_text() -> None:
    text = help_topics.render("exit-codes")
    assert "  6  human needed" in text and "130  interrupted" in text
    assert "SVC_WALLET_KEY" in help_topics.render("environment")
    assert "ledger.sqlite3" in help_topics.render("files")


def test_examples_use_ids_shaped_like_the_services() -> None:
    """Issue 22.6: the examples said `tsk_1` while the service's ids are `task_<hex>`; a person
    copying an example should see the shape they will meet."""
    for page in sorted((REPO / "man").glob("*.1")):
        assert "tsk_" not in page.read_text(encoding="utf-8"), page.name
    # The README, and the documentation pages its guide moved to.
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    assert len(pages) > 20
    for page in pages:
        assert "tsk_" not in page.read_text(encoding="utf-8"), page.relative_to(REPO)
