"""The sandbox's control routes, which a real service does not have ("is it a sandbox?")."""

from __future__ import annotations

from svc.api.response import expect_json
from svc.errors import UsageError
from svc.origin import configured
from svc.ui.face import FaceContext


def admin_post(app_ctx: FaceContext, url: str, what: str) -> dict[str, object]:
    """POST to a sandbox control route; a real service has none (404 -> "is it a sandbox?")."""
    target = configured(url, what)  # the person's own base URL and a sandbox path
    response = app_ctx.http.send("POST", target, what=what, json_body={}, resend_safe=True)
    doc = expect_json(response, what)
    if not isinstance(doc, dict):
        raise UsageError(f"{app_ctx.settings.base_url} did not answer: is it a sandbox?")
    return doc
