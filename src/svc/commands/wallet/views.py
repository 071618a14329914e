"""What every `svc wallet` command shows: the address and where the key is kept, never the key."""

from __future__ import annotations

from typing import Any

from svc.ui.face import FaceContext
from svc.ui.output import Output


def show_address(
    app_ctx: FaceContext, address: str, source: str, created: bool = False, profile: str = ""
) -> None:
    def draw(out: Output, doc: dict[str, Any]) -> None:
        out.line(doc["address"])
        out.note("key stored in: {source}", source=doc["source"])

    doc = {"address": address, "source": source, "created": created}
    if profile:
        doc["profile"] = profile
    app_ctx.output.show(doc, draw)
