"""`svc api`, `svc services`, `svc manifest`, `svc llms` and the dry-run price, against the sandbox."""

from __future__ import annotations

import re

import pexpect
import pytest
from tests.conftest import SVC, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

SAMPLES = 15  # pads the document to at least three pages whatever the real surface counts


def requests_seen(sandbox: Sandbox) -> int:
    return int(sandbox.admin("GET", "/requests")["count"])


def recent(sandbox: Sandbox, n: int) -> list[dict[str, str]]:
    return list(sandbox.admin("GET", "/requests")["requests"][-n:])


def ops(doc: dict) -> list[tuple[str, str]]:
    return [(m.upper(), p) for p, item in doc["paths"].items() for m in item]


def terminal(cli: Cli, *args: str) -> str:
    env = {k: v for k, v in cli.env.items() if k != "CI"}
    child = pexpect.spawn(
        SVC, list(args), env=env, encoding="utf-8", timeout=30, dimensions=(60, 200)
    )
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return re.sub(r"\x1b\[[0-9;]*m", "", child.before or "")


def test_search_first_page_has_ten_operations_and_a_next_pointer(
    cli: Cli, sandbox: Sandbox
) -> None:
    sandbox.configure(discovery_sample_operations=SAMPLES)
    doc = cli.ok("api", "search").json()
    assert doc["openapi"] == "3.1.0"
    assert len(ops(doc)) == 10
    assert doc["info"]["x-next"].endswith("/openapi.json?page=2")
    assert doc["info"]["x-pages"] >= 3


@pytest.mark.parametrize("pointer", ["x-next", "link"])
def test_all_follows_three_or_more_pages(cli: Cli, sandbox: Sandbox, pointer: str) -> None:
    sandbox.configure(discovery_sample_operations=SAMPLES, discovery_next=pointer)
    total = cli.ok("api", "search", "--page", "1").json()["info"]["x-total-operations"]
    pages = -(-total // 10)
    assert pages >= 3
    before = requests_seen(sandbox)
    doc = cli.ok("api", "search", "--all").json()
    assert requests_seen(sandbox) - before == pages  # one request per page, by the pointer given
    found = ops(doc)
    assert len(found) == len(set(found)) == total
    assert ("POST", "/svc/tasks") in found and ("GET", f"/_sample/operation-{SAMPLES:03d}") in found
    assert doc["info"]["x-pages-fetched"] == pages and "x-next" not in doc["info"]


def test_page_n_and_filters_travel_in_the_query(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(discovery_sample_operations=SAMPLES)
    page2 = cli.ok("api", "search", "--page", "2").json()
    assert page2["info"]["x-page"] == 2 and len(ops(page2)) == 10
    first = cli.ok("api", "search", "--page", "1").json()
    assert not set(ops(first)) & set(ops(page2))
    sample = cli.ok("api", "search", "sample", "--method", "get", "--all").json()
    assert len(ops(sample)) == SAMPLES


def test_search_ranks_by_query_and_filters_exactly(cli: Cli, sandbox: Sandbox) -> None:
    doc = cli.ok("api", "search", "quote").json()
    assert ops(doc)[0] == ("POST", "/svc/agent/quote")
    only = cli.ok("api", "search", "--path", "/svc/tasks/{ticket_id}", "--method", "GET").json()
    assert ops(only) == [("GET", "/svc/tasks/{ticket_id}")]
    none = cli.ok("api", "search", "no-such-words-here").json()
    assert none["paths"] == {}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["api", "search", "--page", "0"], "Invalid value for '--page'"),
        (["api", "search", "--page", "2", "--all"], "--page and --all cannot be combined"),
        (["api", "search", "--method", "FETCH"], "--method must be an HTTP method"),
        (["api", "get", "/svc/tasks", "--method", "nope"], "--method must be an HTTP method"),
    ],
)
def test_bad_search_input_exits_2_and_sends_nothing(
    cli: Cli, sandbox: Sandbox, args: list[str], message: str
) -> None:
    before = requests_seen(sandbox)
    result = cli(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert requests_seen(sandbox) == before


def test_page_past_the_end_is_not_found(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("api", "search", "--page", "999")
    assert result.returncode == 7
    assert "page_not_found" in result.stderr


def test_api_get_one_operation(cli: Cli, sandbox: Sandbox) -> None:
    doc = cli.ok("api", "get", "/svc/tasks", "--method", "post").json()
    op = doc["paths"]["/svc/tasks"]["post"]
    assert op["x-payment-info"]["rates"][0]["priceUsd"] == "1.500000"
    assert "402" in op["responses"]
    screen = terminal(cli, "api", "get", "/svc/agent/quote")
    assert "POST /svc/agent/quote" in screen and "Seller quote (free advisor)" in screen
    assert "responses: 200, 402" in screen


def test_api_get_unknown_path_is_exit_7(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("api", "get", "/svc/nothing")
    assert result.returncode == 7
    assert "no operation /svc/nothing in the service's description" in result.stderr


def test_search_table_on_a_terminal(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(discovery_sample_operations=SAMPLES)
    screen = terminal(cli, "api", "search")
    assert "METHOD" in screen and "PRICE" in screen
    assert "/svc/tasks" in screen and "1.50 USD" in screen  # one voice for money (30.10)
    assert re.search(r"page 1 of \d+ \(\d+ operations\); more with --page 2 or --all", screen)


def test_services_and_show(cli: Cli, sandbox: Sandbox) -> None:
    listed = cli.ok("services").json()
    assert [s["slug"] for s in listed["services"]] == ["tasks"]
    shown = cli.ok("services", "show", "tasks").json()
    assert set(ops(shown)) == {
        ("POST", "/svc/tasks"),
        ("GET", "/svc/tasks/{ticket_id}"),
        ("POST", "/svc/tasks/{ticket_id}/reply"),
        ("POST", "/svc/agent/quote"),
        ("GET", "/svc/agent/guide"),
        ("POST", "/svc/agent/guide"),
    }
    screen = terminal(cli, "services")
    assert "SLUG" in screen and "tasks" in screen and "Task execution" in screen


def test_services_show_unknown_slug_is_encoded_and_not_found(cli: Cli, sandbox: Sandbox) -> None:
    result = cli("services", "show", "no such/slug")
    assert result.returncode == 7
    assert "HTTP 404" in result.stderr
    assert recent(sandbox, 1)[0]["raw_path"] == "/services/no%20such%2Fslug/openapi.json"
    unknown = cli("services", "show", "nope")
    assert unknown.returncode == 7 and "service_not_found" in unknown.stderr


def test_manifest_price_block(cli: Cli, sandbox: Sandbox) -> None:
    doc = cli.ok("manifest").json()
    plan = doc["plans"][0]
    assert plan["accessMode"] == "payg" and plan["priceMode"] == "fixed"
    assert plan["rates"][0] == {
        "service": "tasks",
        "meter": "task",
        "unit": "task",
        "unitSize": 1,
        "priceUsd": "1.500000",
        "freeUnits": 0,
        "currency": "USD",
    }
    assert doc["meters"][0]["freeUnits"] == 0


def test_manifest_tables_on_a_terminal(cli: Cli, sandbox: Sandbox) -> None:
    screen = terminal(cli, "manifest")
    for title in ("Services", "Meters", "Plans", "Prices"):
        assert title in screen
    # One voice for money (issue 30.10): the catalog's 1.500000 is shown as everywhere else
    assert "payg" in screen and "fixed" in screen and "1.50 USD" in screen
    assert "FREE UNITS" in screen


def test_llms_raw_and_full(cli: Cli, sandbox: Sandbox) -> None:
    short = cli.ok("llms").stdout
    assert short.startswith("# Task-execution service (sandbox)\n")
    full = cli.ok("llms", "--full").stdout
    assert full.startswith(short.rstrip("\n"))
    assert "## Operations" in full and "#needs-input" in full
    doc = cli.ok("llms", "--json").json()
    assert doc["url"].endswith("/llms.txt") and doc["text"] == short
    assert doc["content_type"].startswith("text/plain")


def test_dry_run_price_comes_from_the_manifest(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.configure(price_atomic=1_000_000)
    before = sandbox.books()
    doc = cli.ok("submit", "Look #complete", "--email", unique_email(), "--dry-run").json()
    assert doc["price_usd"] == "1.000000" and doc["price_source"] == "manifest"
    assert recent(sandbox, 1)[0]["path"] == "/manifest.json"  # and no task was sent
    assert sandbox.books() == before


def test_dry_run_falls_back_to_the_spec_price(cli: Cli, sandbox: Sandbox) -> None:
    sandbox.faults({"kind": "status", "status": 500, "path": "/manifest.json", "count": 4})
    result = cli.ok("submit", "Look #complete", "--email", unique_email(), "--dry-run")
    doc = result.json()
    assert doc["price_usd"] == "1.500000" and doc["price_source"] == "spec"
    assert "could not read the manifest" in result.stderr
    assert "assuming the spec's 1.500000 USD" in result.stderr
