"""The submission body has two fields and "No other fields exist" (issue 30.18).

A typo in a field name (`emial`) or an extra member used to pass the sandbox (402, then 202)
and fail on a strict server. It is refused as the quote body's are: 422 with the spec's
validation error body, whose `loc` names the field, before any 402 (nothing can be paid).
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from svc_sandbox.state.sandbox import SandboxState


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"task": "t", "email": "a@b.co", "extra": 1}, "extra"),
        ({"task": "t", "email": "a@b.co", "priority": "high"}, "priority"),
        ({"task": "t", "emial": "a@b.co", "email": "a@b.co"}, "emial"),
    ],
)
def test_an_unknown_submission_field_is_refused_naming_it(
    client: TestClient, state: SandboxState, body: dict[str, Any], field: str
) -> None:
    response = client.post("/svc/tasks", json=body)
    assert response.status_code == 422, response.text
    [item] = response.json()["detail"]
    assert item["loc"] == ["body", field] and item["type"] == "extra_forbidden"
    assert "www-authenticate" not in response.headers  # no challenge: nothing to pay
    assert state.books()["charges"] == []


def test_the_two_fields_alone_still_get_the_402(client: TestClient) -> None:
    assert client.post("/svc/tasks", json={"task": "t", "email": "a@b.co"}).status_code == 402


def test_the_published_description_says_so(client: TestClient) -> None:
    schemas = client.get("/openapi.json", params={"path": "/svc/tasks"}).json()["components"]
    assert schemas["schemas"]["TaskSubmission"]["additionalProperties"] is False
