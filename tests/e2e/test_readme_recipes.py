"""The scripting guide's recipes (docs/guide/scripting.md, once the README's) run as written
(issue 22.2), like the README's tour does.

Every `svc` line of the "jq, without jq" block runs in bash against the sandbox with `$id` a
real task, and must exit 0, print something and warn of nothing: a recipe that silently
ignored its `--jq` (as `svc help exit-codes --jq ...` once did) or named a field that is not
there fails here. The CI block's submit line runs too, and must leave a task id in `$id`.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from tests.conftest import SVC, TEST_KEY, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "scripting.md"


def recipes_section() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text.split("\n## Recipes\n", 1)[1].split("\n## ", 1)[0]


def sh_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", recipes_section(), re.S)


def bash(cli: Cli, line: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`line` in bash, with the `svc` under test first on PATH, as an installed one would be."""
    path = f"{Path(SVC).parent}:{cli.env.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", line],
        env={**cli.env, "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_output_flag_recipe_runs_as_written(cli: Cli, sandbox: Sandbox) -> None:
    done = cli.ok("submit", "Recipe #complete", "--email", unique_email()).json()["id"]
    asking = cli.ok("submit", "Recipe #2fa", "--email", unique_email()).json()["id"]
    sandbox.advance(25)  # one final (`svc watch` ends at once), one asking for its code
    lines = [line for line in sh_blocks()[0].splitlines() if line.startswith("svc ")]
    assert len(lines) >= 6, "the recipes block lost its lines"
    for line in lines:
        ran = bash(cli, line, id=done if " watch " in line else asking)
        assert ran.returncode == 0, (line, ran.stderr)
        assert ran.stdout.strip(), (line, "printed nothing")
        assert "warning" not in ran.stderr, (line, ran.stderr)
        assert not ran.stdout.lstrip().startswith(("Exit codes", "Help topics")), (
            line,
            "the output flag was ignored: text came out",
        )


def test_the_ci_recipe_leaves_a_task_id(cli: Cli, sandbox: Sandbox) -> None:
    block = next(b for b in sh_blocks() if "SVC_WALLET_KEY" in b)
    submit = next(line for line in block.splitlines() if line.startswith("id=$(svc submit"))
    ran = bash(
        cli,
        f'{submit}\ntest -n "$id" && svc poll "$id" --jq .id',
        SVC_WALLET_KEY=TEST_KEY,
        TASK="Recipe from CI #complete",
        EMAIL=unique_email(),
        CI="1",
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip().startswith("task_"), ran.stdout


def test_the_ci_recipe_stops_with_the_submits_own_exit_code(cli: Cli, sandbox: Sandbox) -> None:
    """The failing case (issue 30.1): a refused submit leaves `$id` empty and the script ends
    with the submit's exit code (5), never going on with an error object as an id."""
    block = next(b for b in sh_blocks() if "SVC_WALLET_KEY" in b)
    lines = block.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("id=$(svc submit"))
    ran = bash(
        cli,
        "\n".join([lines[start], "echo went on with id=$id"]),
        SVC_WALLET_KEY=TEST_KEY,
        SVC_MAX_PRICE="1.00",  # the price is 1.50 USD: the policy refuses it
        TASK="Recipe from CI #complete",
        EMAIL=unique_email(),
        CI="1",
    )
    assert ran.returncode == 5, (ran.stdout, ran.stderr)
    assert ran.stdout == "", ran.stdout
    assert "svc: refusing to pay" in ran.stderr
