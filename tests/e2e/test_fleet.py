"""Fleet mode (issue 24): several runners, each its own `svc` with its own data dir and secret
store, share one ledger on a real PostgreSQL server and one wallet. Across them: one daily cap,
at most one signature per request id, and a runner killed mid-payment is finished by another
without a second signature."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SVC, Cli, Sandbox, _base_env, unique_email, unique_request_id
from tests.forkserver import ForkServer
from tests.pg_cluster import Cluster
from tests.pg_cluster import start as start_cluster
from tests.procs import rest_of

from svc.store.ledger import open_ledger
from svc.store.ledger.sqlite import SCHEMA_VERSION

pytestmark = pytest.mark.e2e

RUNNERS = 4
LINES = 100  # every runner submits the same 100 request ids: 400 submissions in all
CAP_USD = "90"  # room for exactly 60 tasks at 1.50 USD
PRICE_ATOMIC = 1_500_000


def runner_env(
    cli: Cli, tmp_path: Path, name: str, pg_url: str, sandbox: Sandbox
) -> dict[str, str]:
    """A runner of its own: a copy of the wallet (one wallet for the fleet), its own data dir."""
    home = tmp_path / name
    shutil.copytree(cli.home, home)
    return {
        **_base_env(home),
        "SVC_BASE_URL": sandbox.url,
        "SVC_LEDGER_URL": pg_url,
        "SVC_RUNNER": name,
        "SVC_DAILY_CAP": CAP_USD,
    }


def fleet_ledger(pg_url: str):  # type: ignore[no-untyped-def]
    return open_ledger(pg_url, "test-reader")


@pytest.mark.timeout(600)
def test_four_runners_keep_one_cap_and_sign_each_request_once(
    cli: Cli, fork_server: ForkServer, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    email = unique_email()
    ids = [unique_request_id() for _ in range(LINES)]
    lines = [
        {"task": f"Fleet task {i}", "email": email, "request_id": rid} for i, rid in enumerate(ids)
    ]
    runs = []
    for n in range(RUNNERS):
        # The same ids, each runner starting a quarter further on: they meet on every id.
        turn = n * LINES // RUNNERS
        batch = tmp_path / f"batch-{n}.jsonl"
        batch.write_text("".join(json.dumps(line) + "\n" for line in lines[turn:] + lines[:turn]))
        args = ["submit", "--from", str(batch), "--concurrency", "4", "--json"]
        runs.append((args, runner_env(cli, tmp_path, f"runner-{n}", pg_url, sandbox)))
    # Forked at once, and each POST a little slow, as a far service's: exec'd runners started
    # seconds apart on a loaded machine (or one compiling its bytecode), and the first paid
    # all 60 before the others began, so nothing was shared or raced.
    sandbox.faults(
        {"kind": "delay", "seconds": 0.05, "method": "POST", "path": "/svc/tasks", "count": 10_000}
    )
    procs = [fork_server.popen(args, env=env) for args, env in runs]
    outputs = [proc.communicate(timeout=540) for proc in procs]
    for (out, err), proc in zip(outputs, procs, strict=True):
        assert "Traceback" not in err, err[-2000:]
        results = [json.loads(line) for line in out.splitlines() if line.strip()]
        assert len(results) == LINES, (proc.returncode, err[-1000:])  # every line accounted
        # 5: lines the cap refused, when the runner paid nothing; after a charge never 5,
        # which reads as "nothing was charged", but 1 naming what it paid (issue 29.1)
        paid = any(r["outcome"] in ("accepted", "replayed") for r in results)
        assert proc.returncode in ((0, 1) if paid else (0, 5)), err[-1000:]

    charges = Counter(c["request_id"] for c in sandbox.books()["charges"] if c["request_id"] in ids)
    assert max(charges.values()) == 1, "a request id was charged twice"
    assert len(charges) == 60, f"{len(charges)} tasks paid under a cap with room for 60"
    ledger = fleet_ledger(pg_url)
    try:
        auths = [a for a in ledger.authorizations() if a.request_id in ids]
        signed = Counter(a.request_id for a in auths)
        assert max(signed.values()) == 1, "a request id was signed twice"
        assert sum(a.amount_atomic for a in auths) <= 90_000_000
        assert {a.runner for a in auths} <= {f"runner-{n}" for n in range(RUNNERS)}
        assert len({a.runner for a in auths}) > 1  # the work really was shared
    finally:
        ledger.close()


def test_a_runner_killed_mid_payment_is_finished_by_another_without_a_second_signature(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    rid = unique_request_id()
    args = ["submit", "Finish me #complete", "--email", unique_email(), "--request-id", rid]
    first = runner_env(cli, tmp_path, "runner-a", pg_url, sandbox)
    killed = subprocess.run(
        [SVC, *args],
        env={**first, "SVC_TEST_CRASH_AT": "proof_journaled"},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9  # signed and journaled, never sent: then SIGKILL
    assert sandbox.charges_for(rid) == []
    second = runner_env(cli, tmp_path, "runner-b", pg_url, sandbox)
    done = subprocess.run(
        [SVC, *args, "--json"], env=second, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert len(sandbox.charges_for(rid)) == 1
    ledger = fleet_ledger(pg_url)
    try:
        auths = [a for a in ledger.authorizations() if a.request_id == rid]
        assert [(a.runner, a.status) for a in auths] == [("runner-a", "spent")]  # one signature
        row = ledger.get(rid)
        assert row is not None and row.status == "accepted"
    finally:
        ledger.close()


def test_a_runner_that_cannot_reach_the_ledger_does_not_pay(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    env = runner_env(cli, tmp_path, "runner-x", f"postgresql:///svc?host={tmp_path}", sandbox)
    rid = unique_request_id()
    result = cli("submit", "Never paid", "--email", unique_email(), "--request-id", rid, env=env)
    assert result.returncode == 9, result.stderr
    assert "cannot reach the fleet ledger" in result.stderr and "nothing was paid" in result.stderr
    assert sandbox.charges_for(rid) == []


def test_fleet_views_show_every_runner_and_filter_one(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    email = unique_email()
    envs = {name: runner_env(cli, tmp_path, name, pg_url, sandbox) for name in ("ci-1", "ci-2")}
    paid = {}
    for name, env in envs.items():
        rid = unique_request_id()
        cli.ok("submit", f"Views {name}", "--email", email, "--request-id", rid, env=env)
        paid[name] = rid
    mine = cli.ok("tasks", "--runner", "ci-1", "--json", env=envs["ci-2"]).json()
    assert [(row["request_id"], row["runner"]) for row in mine] == [(paid["ci-1"], "ci-1")]
    fleet = cli.ok("tasks", "--json", env=envs["ci-1"]).json()
    assert {row["request_id"] for row in fleet} >= set(paid.values())  # every runner's rows
    spend = cli.ok("spend", "--json", env=envs["ci-1"]).json()
    assert spend["cap"]["daily_cap_usd"] == "90.000000"
    assert spend["cap"]["by_runner"] == {"ci-1": "1.500000", "ci-2": "1.500000"}
    assert spend["cap"]["exposed_today_usd"] == "3.000000"
    one = cli.ok("spend", "--runner", "ci-2", "--json", env=envs["ci-1"]).json()
    assert [t["request_id"] for t in one["tasks"]] == [paid["ci-2"]]
    doctor = cli("doctor", "--json", env=envs["ci-2"]).json()
    ledger = next(c for c in doctor["checks"] if c["check"] == "ledger")
    assert ledger["status"] == "ok" and ledger["detail"].startswith("fleet: PostgreSQL")
    assert "runner ci-2" in ledger["detail"] and f"schema {SCHEMA_VERSION}" in ledger["detail"]


def test_doctor_fails_the_ledger_check_when_the_fleet_ledger_is_down(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    env = runner_env(cli, tmp_path, "runner-x", f"postgresql:///svc?host={tmp_path}", sandbox)
    result = cli("doctor", "--json", env=env)
    assert result.returncode == 9
    ledger = next(c for c in result.json()["checks"] if c["check"] == "ledger")
    assert ledger["status"] == "fail" and "cannot reach the fleet ledger" in ledger["detail"]


@pytest.mark.timeout(300)
def test_the_ledger_going_away_mid_batch_pays_nothing_unjournaled_and_accounts_every_line(
    cli: Cli, sandbox: Sandbox, tmp_path: Path
) -> None:
    cluster = start_cluster()  # its own server: this test takes it away
    try:
        url = cluster.create_database("svc_going")
        email = unique_email()
        ids = [unique_request_id() for _ in range(120)]
        batch = tmp_path / "batch.jsonl"
        batch.write_text(
            "".join(
                json.dumps({"task": f"Going {i}", "email": email, "request_id": rid}) + "\n"
                for i, rid in enumerate(ids)
            )
        )
        env = runner_env(cli, tmp_path, "runner-g", url, sandbox)
        proc = subprocess.Popen(
            [SVC, "submit", "--from", str(batch), "--concurrency", "4", "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        seen = [json.loads(proc.stdout.readline()) for _ in range(20)]
        cluster.pause()  # the database goes away with the batch in full flight
        rest, err = rest_of(proc, timeout=240)  # through readline()'s buffer
        results = seen + [json.loads(line) for line in rest.splitlines() if line.strip()]
        assert "Traceback" not in err
        missing = set(ids) - {r.get("request_id") for r in results}
        assert not missing and len(results) == len(ids), (missing, err[-3000:])  # every line
        gone = [r for r in results if r.get("error") == "ledger_unavailable"]
        # Lines were paid before the ledger went: never 9 ("nothing was charged"), but 1 naming
        # what was paid, or 10 if an outcome is unknown (issue 29.1)
        assert gone and proc.returncode in (1, 10), err[-1000:]
        cluster.resume()
        charged = Counter(
            c["request_id"] for c in sandbox.books()["charges"] if c["request_id"] in ids
        )
        assert len(charged) >= 20 and max(charged.values()) == 1
        ledger = open_ledger(url, "reader")
        try:
            for rid in charged:  # nothing paid without its journal row and proof
                row = ledger.get(rid)
                assert row is not None and row.has_proof, rid
        finally:
            ledger.close()
    finally:
        cluster.stop()


def test_a_ledger_password_stays_out_of_files_and_output(cli: Cli, tmp_path: Path) -> None:
    secret = "pw-Zq81x"
    refused = cli("config", "set", "ledger_url", f"postgresql://svc:{secret}@db.internal/svc")
    assert refused.returncode == 2 and "no place for one" in refused.stderr
    assert secret not in refused.stderr + refused.stdout
    assert (
        not (cli.home / "config" / "config.toml").exists()
        or secret not in (cli.home / "config" / "config.toml").read_text()
    )
    cli.ok("config", "set", "ledger_url", "postgresql://svc@db.internal/svc")  # no password: fine
    env = {"SVC_LEDGER_URL": f"postgresql://svc:{secret}@db.internal/svc"}  # a CI secret
    shown = cli.ok("config", "get", "ledger_url", "--json", env=env).json()
    assert shown["value"] == "postgresql://svc:***@db.internal/svc" and secret not in str(shown)
    listed = cli.ok("config", "list", "--json", env=env).stdout
    assert secret not in listed
    (cli.home / "config" / "config.toml").write_text(
        f'[profiles.default]\nledger_url = "postgresql://svc:{secret}@db.internal/svc"\n'
    )
    broken = cli("tasks")
    assert broken.returncode == 2 and "config.toml" in broken.stderr
    assert secret not in broken.stderr + broken.stdout


def test_a_ledger_url_of_another_scheme_is_a_usage_error(cli: Cli) -> None:
    result = cli("tasks", env={"SVC_LEDGER_URL": "mysql://db.internal/svc"})
    assert result.returncode == 2 and "must be a postgresql:// URL" in result.stderr


# The server itself ends the runner's session at the exact step: the UPDATE that records the
# service's acceptance (a real connection loss, as a failover or a restart would cause).
CUT_AT_ACCEPTANCE = """
CREATE FUNCTION svc_test_cut() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_terminate_backend(pg_backend_pid());
    RETURN NEW;
END $$;
CREATE TRIGGER svc_test_cut BEFORE UPDATE ON submissions FOR EACH ROW
    WHEN (NEW.status = 'accepted' AND OLD.status <> 'accepted')
    EXECUTE FUNCTION svc_test_cut();
"""


def test_a_ledger_lost_after_the_service_charged_never_reads_as_nothing_paid(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    """The contract: once a request is paid and accepted, its outcome decides the exit code,
    and a failure after it is a warning naming the task, never "nothing charged" (exit 9)."""
    import psycopg

    fleet_ledger(pg_url).close()  # the schema, so the trigger has its table
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(CUT_AT_ACCEPTANCE)
    rid = unique_request_id()
    args = ["submit", "Charged then cut #complete", "--email", unique_email(), "--request-id", rid]
    env = runner_env(cli, tmp_path, "runner-c", pg_url, sandbox)
    cut = subprocess.run(
        [SVC, *args, "--json"], env=env, capture_output=True, text=True, check=False
    )
    assert len(sandbox.charges_for(rid)) == 1  # the service charged and accepted it
    assert "Traceback" not in cut.stderr
    assert cut.returncode == 0, cut.stderr
    task = json.loads(cut.stdout)
    assert task["id"] in cut.stderr and "nothing was paid" not in cut.stderr
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TRIGGER svc_test_cut ON submissions")
    again = subprocess.run(
        [SVC, *args, "--json"], env=env, capture_output=True, text=True, check=False
    )
    assert again.returncode == 0, again.stderr  # the resume re-sends the journaled proof
    assert json.loads(again.stdout)["id"] == task["id"]
    assert len(sandbox.charges_for(rid)) == 1


def test_the_same_task_from_another_runner_is_named_as_a_duplicate(
    cli: Cli, sandbox: Sandbox, pg_url: str, tmp_path: Path
) -> None:
    """A CI job retried on another runner without its request id: the shared ledger knows the
    task was just paid for, as the local one does on one machine."""
    args = ["submit", "Retried elsewhere #complete", "--email", unique_email(), "--json"]
    first = subprocess.run(
        [SVC, *args],
        env=runner_env(cli, tmp_path, "runner-d", pg_url, sandbox),
        capture_output=True,
        text=True,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    task_id = json.loads(first.stdout)["id"]
    second = subprocess.run(
        [SVC, *args],
        env=runner_env(cli, tmp_path, "runner-e", pg_url, sandbox),
        capture_output=True,
        text=True,
        check=False,
    )
    assert "submitting it again pays again" in second.stderr and task_id in second.stderr


@pytest.mark.parametrize("command", [["poll"], ["watch", "--no-input"]])
def test_reading_a_task_needs_no_ledger_and_a_lost_one_is_a_warning(
    cli: Cli, sandbox: Sandbox, tmp_path: Path, command: list[str]
) -> None:
    """A task's state in the ledger is a cache of what the service answered: a runner whose
    fleet ledger is down still reads and follows its tasks, and says the cache was not kept."""
    submitted = cli.ok("submit", "Read me later #complete", "--email", unique_email(), "--json")
    tid = submitted.json()["id"]
    sandbox.advance(600)  # done by now: watch reads it once and ends
    env = runner_env(cli, tmp_path, "runner-r", f"postgresql:///svc?host={tmp_path}", sandbox)
    result = subprocess.run(
        [SVC, *command, tid], env=env, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "the task states are not recorded: cannot reach the fleet ledger" in result.stderr


def test_a_password_in_the_urls_query_is_a_password_too(cli: Cli, tmp_path: Path) -> None:
    secret = "qs-Pw7731"
    url = f"postgresql:///svc?host={tmp_path}&password={secret}"
    refused = cli("config", "set", "ledger_url", url)
    assert refused.returncode == 2 and "no place for one" in refused.stderr
    assert secret not in refused.stderr + refused.stdout
    down = cli("tasks", env={"SVC_LEDGER_URL": url})  # no server there: the error names the URL
    assert down.returncode == 9 and "cannot reach the fleet ledger" in down.stderr
    assert "password=***" in down.stderr and secret not in down.stderr + down.stdout
    shown = cli.ok("config", "get", "ledger_url", "--json", env={"SVC_LEDGER_URL": url}).json()
    assert secret not in str(shown) and "password=***" in shown["value"]


@pytest.mark.parametrize(
    ("env", "needle"),
    [
        ({"SVC_RUNNER": "ci\x1b]0;pwned\x07"}, "printable name of 1 to 64 characters"),
        ({"SVC_RUNNER": "r" * 65}, "printable name of 1 to 64 characters"),
        ({"SVC_LEDGER_URL": "postgresql://[::1"}, "is not a URL svc can read"),
    ],
    ids=["escape-in-runner", "long-runner", "broken-url"],
)
def test_bad_fleet_settings_are_one_line_and_exit_2(
    cli: Cli, env: dict[str, str], needle: str
) -> None:
    result = cli("tasks", env=env)
    assert result.returncode == 2 and needle in result.stderr
    assert "\x1b" not in result.stderr and len(result.stderr.strip().splitlines()) <= 2


def _ledger_check(cli: Cli, env: dict[str, str]) -> dict[str, Any]:
    doctor = cli("doctor", "--json", env=env).json()
    return dict(next(c for c in doctor["checks"] if c["check"] == "ledger"))


def test_a_role_without_rights_and_a_newer_schema_are_told_apart(
    cli: Cli, sandbox: Sandbox, pg_cluster: Cluster, tmp_path: Path
) -> None:
    import psycopg

    url = pg_cluster.create_database("svc_" + unique_request_id()[4:16])
    open_ledger(url, "owner").close()  # the owner creates the schema
    role = "svc_" + unique_request_id()[4:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')  # may connect, may touch no table
    limited = url.replace(f"user={pg_cluster.user}", f"user={role}")
    env = runner_env(cli, tmp_path, "runner-r", limited, sandbox)
    # No right at all: one line and exit 9, never an internal error; nothing paid.
    rid = unique_request_id()
    refused = cli("submit", "No rights", "--email", unique_email(), "--request-id", rid, env=env)
    assert refused.returncode == 9 and "refused this role" in refused.stderr
    assert "internal error" not in refused.stderr and sandbox.charges_for(rid) == []
    check = _ledger_check(cli, env)
    assert check["status"] == "fail" and "refused this role" in check["detail"]
    # Reading but not writing: doctor says which rights are missing.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA public TO "{role}"')
    check = _ledger_check(cli, env)
    assert check["status"] == "warn" and "submissions: INSERT" in check["detail"]
    assert str(check["fix"]).startswith("grant SELECT, INSERT, UPDATE, DELETE")
    # A schema a newer svc wrote: this runner is told to upgrade.
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE svc_schema SET version = 99")
    check = _ledger_check(cli, runner_env(cli, tmp_path, "runner-n", url, sandbox))
    assert check["status"] == "warn"
    assert f"newer than this svc knows ({SCHEMA_VERSION})" in check["detail"]
    assert check["fix"] == "upgrade svc on this runner before it pays"
