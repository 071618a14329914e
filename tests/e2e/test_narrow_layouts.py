"""80 columns, where people copy from (issue 52): `svc tasks` keeps each task's text and time
beside its ids, and no `--help` page splits a command, a flag or a template, or runs past the
edge. Help is rendered in this process, as the golden copies are (tests/e2e/test_golden_faces.py).
"""

from __future__ import annotations

import re
import uuid

import pytest
from tests.conftest import Cli, Sandbox, unique_email
from tests.e2e.test_eighty_columns import assert_fits
from tools.docgen import command_tree, walk

pytestmark = pytest.mark.e2e

PAGES = [node.path[1:] for node in walk(command_tree())]
COMMAND_NAMES = sorted((" ".join(["svc", *path]) for path in PAGES if path), key=len)


def test_tasks_at_eighty_columns_keep_the_text_and_the_time(cli: Cli, sandbox: Sandbox) -> None:
    rid = f"req_{uuid.uuid4().hex}"
    text = "Renew the passport of Ana #complete"
    task_id = cli.ok("submit", text, "--email", unique_email(), "--request-id", rid).json()["id"]
    shown = assert_fits(cli, "tasks")
    assert task_id in shown and rid in shown, shown  # ids whole, never cut
    assert "Renew" in shown and "passport" in shown, shown  # the task's text
    assert "created" in shown and "just now" in shown, shown  # and its time


def help_page(cli: Cli, path: list[str]) -> str:
    result = cli(*path, "--help", env={"COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"})
    assert result.returncode == 0, result.stderr
    return result.stdout


def split_names(page: str) -> list[str]:
    """Command names (`svc budget reset-breaker`) found in the page's text once its lines are
    joined, but not within any one of its lines."""
    lines = page.splitlines()
    joined = " ".join(line.strip() for line in lines)
    split = []
    for name in COMMAND_NAMES:
        pattern = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
        if len(pattern.findall(joined)) > sum(len(pattern.findall(line)) for line in lines):
            split.append(name)
    return split


@pytest.mark.parametrize("path", PAGES, ids=lambda p: " ".join(p) or "svc")
def test_help_at_eighty_columns_fits_and_splits_nothing(cli: Cli, path: list[str]) -> None:
    page = help_page(cli, path)
    lines = page.splitlines()
    assert [line for line in lines if len(line) > 80] == [], page
    assert [line for line in lines if line.count("{{") != line.count("}}")] == [], page
    assert [line for line in lines if re.search(r"\w-$", line)] == [], page  # `reset-`/`breaker`
    assert split_names(page) == [], page


def test_a_long_example_is_continued_as_the_shell_reads_it(cli: Cli) -> None:
    page = help_page(cli, ["tasks"])
    assert "    svc tasks --all --json \\\n      | jq -r '.[] | select(" in page, page
