"""The sandbox's discovery documents: a valid OpenAPI 3.1 per page, search, filters, paging,
and a bounded schemathesis run against every operation of every page."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from schemathesis.config import SchemathesisConfig

from svc_sandbox.app import create_app
from svc_sandbox.state.sandbox import SandboxState


def _ops(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m.upper(), p) for p, item in doc["paths"].items() for m in item]


def test_every_page_is_a_valid_openapi_31_document(client: TestClient) -> None:
    client.post("/_sandbox/config", json={"discovery_sample_operations": 15})
    first = client.get("/openapi.json").json()
    pages = first["info"]["x-pages"]
    assert pages >= 3
    for page in range(1, pages + 1):
        doc = client.get("/openapi.json", params={"page": page}).json()
        assert doc["openapi"] == "3.1.0"
        assert doc["info"]["version"] == "1.0.0"
        validate(doc)
    validate(client.get("/services/tasks/openapi.json").json())


def test_the_document_is_the_public_surface_with_prices(client: TestClient) -> None:
    doc = client.get("/openapi.json", params={"q": "tasks"}).json()
    ops = _ops(client.get("/services/tasks/openapi.json").json())
    assert ("POST", "/svc/tasks") in ops and ("POST", "/svc/agent/quote") in ops
    assert not any(p.startswith("/_sandbox") for _, p in _ops(doc))
    submit = client.get("/openapi.json", params={"path": "/svc/tasks", "method": "POST"}).json()
    op = submit["paths"]["/svc/tasks"]["post"]
    assert op["x-payment-info"]["accessMode"] == "payg"
    assert op["x-payment-info"]["priceMode"] == "fixed"
    assert op["x-payment-info"]["rates"] == [
        {
            "service": "tasks",
            "meter": "task",
            "unit": "task",
            "unitSize": 1,
            "priceUsd": "1.500000",
            "freeUnits": 0,
        }
    ]
    assert set(op["responses"]) == {"202", "400", "401", "402", "409", "422"}


def test_paging_gives_ten_a_page_with_x_next_and_link(client: TestClient) -> None:
    client.post("/_sandbox/config", json={"discovery_sample_operations": 15})
    seen: list[tuple[str, str]] = []
    url: str | None = "/openapi.json"
    pages = 0
    while url:
        response = client.get(url)
        doc = response.json()
        assert len(_ops(doc)) <= 10
        seen += _ops(doc)
        pages += 1
        nxt = doc["info"].get("x-next")
        link = response.links.get("next", {}).get("url")
        assert nxt == link
        url = nxt
    assert pages >= 3
    assert len(seen) == len(set(seen)) == doc["info"]["x-total-operations"]
    assert client.get("/openapi.json", params={"page": pages + 1}).status_code == 404


@pytest.mark.parametrize(("mode", "info", "link"), [("x-next", True, False), ("link", False, True)])
def test_next_pointer_modes(client: TestClient, mode: str, info: bool, link: bool) -> None:
    client.post(
        "/_sandbox/config", json={"discovery_sample_operations": 15, "discovery_next": mode}
    )
    response = client.get("/openapi.json")
    assert ("x-next" in response.json()["info"]) is info
    assert ("next" in response.links) is link


def test_search_ranks_and_filters_combine(client: TestClient) -> None:
    doc = client.get("/openapi.json", params={"q": "quote"}).json()
    assert _ops(doc)[0] == ("POST", "/svc/agent/quote")
    guide = client.get("/openapi.json", params={"q": "guide", "method": "post"}).json()
    assert _ops(guide)[0] == ("POST", "/svc/agent/guide")  # the quote mentions guides too
    assert all(method == "POST" for method, _ in _ops(guide))
    none = client.get("/openapi.json", params={"q": "zzzz-nothing"}).json()
    assert none["paths"] == {} and none["info"]["x-total-operations"] == 0
    exact = client.get("/openapi.json", params={"path": "/svc/tasks/{ticket_id}"}).json()
    assert _ops(exact) == [("GET", "/svc/tasks/{ticket_id}")]


def test_unknown_service_is_404(client: TestClient) -> None:
    response = client.get("/services/nope/openapi.json")
    assert response.status_code == 404
    assert response.json()["error"] == "service_not_found"


def test_wrong_method_lists_every_allowed_method(client: TestClient) -> None:
    response = client.put("/svc/agent/guide")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, POST"
    assert response.json()["error"] == "method_not_allowed"


def test_unparseable_body_is_400_invalid_request(client: TestClient) -> None:
    response = client.post(
        "/svc/agent/quote", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code in (400, 422)
    assert "error" in response.json() or response.status_code == 422


# --- schemathesis ------------------------------------------------------------------------------

MAX_EXAMPLES = 25
# What a schema-valid request may be answered with, configured where it is expected rather than
# silenced everywhere: a paid or proof-gated operation answers valid data with 402 (sign and
# retry), a bearer-gated one with 401, and an unknown id with 404. The identity steps take a
# secret the platform issued (an assertion, a refresh or claim token, a person's code), which no
# generator can guess: a valid-looking one is refused with 400 and the step's code.
_ACCEPTED = ["2xx", "401", "402", "404", "409", "503"]
_SECRET_STEPS = (
    "/auth/agent/identity",
    "/auth/agent/identity/claim",
    "/auth/agent/identity/claim/complete",
    "/auth/oauth2/token",
)
_CONFIG = SchemathesisConfig.from_dict(
    {
        "checks": {"positive_data_acceptance": {"expected-statuses": _ACCEPTED}},
        "operations": [
            {
                "include-path": path,
                "checks": {"positive_data_acceptance": {"expected-statuses": [*_ACCEPTED, "400"]}},
            }
            for path in _SECRET_STEPS
        ],
    }
)
_APP = create_app(SandboxState())


def _every_page(app: Any) -> dict[str, Any]:
    """The public document as a client pages through it: every page's operations, one dict."""
    client = TestClient(app)
    doc: dict[str, Any] = client.get("/openapi.json").json()
    for page in range(2, doc["info"]["x-pages"] + 1):
        more = client.get("/openapi.json", params={"page": page}).json()
        validate(more)
        doc["paths"].update(more["paths"])
        for name, part in more["components"].items():
            doc["components"].setdefault(name, {}).update(part)
    validate(doc)
    return doc


SCHEMA = schemathesis.openapi.from_dict(_every_page(_APP), config=_CONFIG)
SCHEMA.app = _APP


def test_the_run_covers_every_operation_on_every_page(client: TestClient) -> None:
    """Nothing is left out of the run below: it walks the same operations a client pages."""
    ops = [result.ok() for result in SCHEMA.get_all_operations()]
    listed = {(op.method.upper(), op.path) for op in ops}
    doc = client.get("/openapi.json").json()
    paged: set[tuple[str, str]] = set()
    for page in range(1, doc["info"]["x-pages"] + 1):
        paged |= set(_ops(client.get("/openapi.json", params={"page": page}).json()))
    assert listed == paged and len(listed) == doc["info"]["x-total-operations"]
    assert {("POST", p) for p in _SECRET_STEPS} <= listed


@SCHEMA.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_conforms(case: Any) -> None:
    """No 5xx, no undocumented status, every body matches its schema (all default checks)."""
    case.call_and_validate()
