"""The README's set-up section, and the batch, fleet and real-deployment sections that moved
from the README to the guide (docs/guide/), are true (issue 30.15).

- the README's set-up section names `make tools` and every program it installs (read from the
  Makefile), and that it needs root or sudo;
- the batch recipe (docs/guide/scripting.md) runs as written and its last line shows the
  failed task its comment promises (it used to print the submit errors, of which there were
  none);
- the fleet recipe's PostgreSQL lines (docs/guide/fleet.md) run as written, as root too (this
  test's machine and CI run as root, where `initdb` refuses to run), and `svc doctor` then
  finds the fleet ledger;
- a page (docs/guide/deployment.md) says how to point svc at a real deployment and fund its
  wallet.
"""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from pathlib import Path

import pytest
from tests.conftest import SVC, Cli, Sandbox

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")
GUIDE = REPO / "docs" / "guide"
USDC_BASE = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"


def section(title: str, text: str = README) -> str:
    return text.split(f"\n## {title}", 1)[1].split("\n## ", 1)[0]


def page(name: str) -> str:
    return (GUIDE / name).read_text(encoding="utf-8")


def block_with(text: str, needle: str) -> str:
    return next(b for b in re.findall(r"```sh\n(.*?)\n```", text, re.S) if needle in b)


def bash(cli: Cli, script: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    path = f"{Path(SVC).parent}:{cli.env.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", script],
        env={**cli.env, "PATH": path},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def test_the_set_up_names_make_tools_what_it_installs_and_that_it_needs_root() -> None:
    text = section("Set-up: two commands")
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    tools = re.search(r"^TOOLS := (.*)$", makefile, re.M)
    assert tools is not None
    packages = [pair.split(":")[1] for pair in tools.group(1).split()]
    assert "postgresql" in makefile  # installed beside TOOLS when initdb is missing
    assert "`make tools`" in text
    for package in [*packages, "PostgreSQL"]:
        assert f"`{package}`" in text or package in text, package
    assert "root" in text and "sudo make tools" in text


def test_the_batch_recipe_shows_the_failed_task_it_promises(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    lines = block_with(section("Recipes", page("scripting.md")), "--from tasks.jsonl").splitlines()
    # printf continues on the next line: the first two lines are one command.
    commands = [lines[0] + "\n" + lines[1], *lines[2:]]
    assert len(commands) == 4 and commands[2].startswith("svc watch --all")
    sandbox.admin("POST", "/clock", json={"speed": 50})
    codes, outputs = [], []
    try:
        for command in commands:
            ran = bash(cli, command, cwd=tmp_path)
            codes.append(ran.returncode)
            outputs.append(ran.stdout)
    finally:  # the sandbox is the session's: a fast clock would finish other tests' tasks
        sandbox.admin("POST", "/clock", json={"speed": 1})
    assert codes == [0, 0, 3, 0], (codes, outputs)
    results = [json.loads(line) for line in (tmp_path / "results.ndjson").read_text().splitlines()]
    task_id = next(r["task_id"] for r in results if r["line"] == 2)  # the `#fail` line
    assert outputs[3].strip() == f"{task_id} failed: Return my books #fail", outputs[3]


@pytest.fixture
def pg_dir() -> str:
    return f"/tmp/svc-pg-{uuid.uuid4().hex[:8]}"


def test_the_fleet_recipe_runs_as_written_as_root_too(
    cli: Cli, sandbox: Sandbox, pg_dir: str
) -> None:
    block = block_with(page("fleet.md"), "initdb").replace("/tmp/svc-pg", pg_dir)
    assert "runuser -u postgres --" in block
    stop = block.split("\n$as ")[0] + f'\n$as "$PG/pg_ctl" -D {pg_dir} -m fast stop'
    try:
        ran = bash(cli, "set -e\n" + block)
        assert ran.returncode == 0, ran.stderr[-3000:]
        doctor = bash(cli, "svc doctor --json")
        findings = {f["check"]: f for f in json.loads(doctor.stdout)["checks"]}
        assert findings["ledger"]["status"] == "ok", findings["ledger"]
        assert "PostgreSQL" in findings["ledger"]["detail"]
    finally:
        bash(cli, stop)
        subprocess.run(["rm", "-rf", pg_dir], check=False)
    text = page("fleet.md")
    assert "daily cap's value" in text and "is the fleet's" in text


def test_a_section_says_how_to_use_a_real_deployment(cli: Cli) -> None:
    text = page("deployment.md")
    for needed in ("eip155:8453", USDC_BASE, "svc wallet address", "svc doctor", "https://"):
        assert needed in text, needed
    block = block_with(text, "base_url")
    for line in block.splitlines():
        if line.startswith("svc config set"):
            command = line.split("#", 1)[0]
            ran = bash(cli, command)
            assert ran.returncode == 0, (command, ran.stderr)
    got = bash(cli, "env -u SVC_BASE_URL svc config get base_url")  # the profile's value
    assert "https://tasks.example.com" in got.stdout
