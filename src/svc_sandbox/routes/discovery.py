"""The discovery documents: /openapi.json (search, filters, paging), /services, the manifest
and the agent guides (/llms.txt, /llms-full.txt)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse

from svc_sandbox.errors import SandboxError, api_error
from svc_sandbox.openapi import document
from svc_sandbox.openapi.document import SERVICE_SLUG, Operation
from svc_sandbox.payments.money import usd
from svc_sandbox.routes.advisor import DOWN_TAG, STATUS_TAGS
from svc_sandbox.routes.deps import sandbox_state
from svc_sandbox.state.config import SandboxConfig
from svc_sandbox.state.sandbox import SandboxState

router = APIRouter(tags=["discovery"])

State = Annotated[SandboxState, Depends(sandbox_state)]

PAGE_SIZE = 10  # the spec: a page holds up to 10 operations
SERVICES = {
    SERVICE_SLUG: {
        "slug": SERVICE_SLUG,
        "name": "Task execution",
        "description": "Submit, poll and answer natural-language tasks; the free advisor.",
    }
}

_DOC_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "An OpenAPI 3.1.0 document holding one page of operations. "
        '`info.x-next` and a `Link: <...>; rel="next"` header point to the next page.',
        "content": {"application/json": {"schema": {"type": "object"}}},
    },
    404: {"description": "Page out of range, or unknown service."},
}

Q = Annotated[str | None, Query(max_length=200, description="Ranked text search.")]
PathFilter = Annotated[
    str | None, Query(alias="path", max_length=500, description="Exact path template.")
]
MethodFilter = Annotated[str | None, Query(max_length=10, description="Exact HTTP method.")]
PageParam = Annotated[int, Query(ge=1, le=100_000, description="Page number (10 a page).")]


@router.get(
    "/openapi.json",
    responses=_DOC_RESPONSES,
    summary="Search the interface description",
    description="The full description of the paid surface, 10 operations a page. "
    "Query parameters combine: q (ranked search), path and method (exact filters), page.",
    operation_id="getOpenapi",
)
def openapi_document(
    request: Request,
    state: State,
    *,
    q: Q = None,
    path_filter: PathFilter = None,
    method: MethodFilter = None,
    page: PageParam = 1,
) -> JSONResponse:
    base = document.base_document(request.app, state.get_config())
    ops = document.operations(base)
    query = Search(q, path_filter, method, page)
    return _paged(request, state.get_config(), base, ops, query)


@router.get(
    "/services",
    summary="List services",
    description="Every service this seller offers, with its description and meters.",
    operation_id="listServices",
)
def list_services(request: Request, state: State) -> dict[str, Any]:
    base = str(request.base_url).rstrip("/")
    config = state.get_config()
    return {"services": [_service_entry(base, slug, config) for slug in SERVICES]}


@router.get(
    "/services/{slug}/openapi.json",
    responses=_DOC_RESPONSES,
    summary="One service's interface description",
    description="The operations of one service, searchable and paged like /openapi.json.",
    operation_id="getServiceOpenapi",
)
def service_document(
    request: Request,
    state: State,
    slug: Annotated[str, Path(max_length=100)],
    *,
    q: Q = None,
    path_filter: PathFilter = None,
    method: MethodFilter = None,
    page: PageParam = 1,
) -> JSONResponse:
    if slug not in SERVICES:
        raise api_error(404, "service_not_found", f"no service {slug!r}; see /services")
    config = state.get_config()
    base = document.base_document(request.app, config)
    ops = [op for op in document.operations(base) if op.service == slug]
    return _paged(request, config, base, ops, Search(q, path_filter, method, page))


@router.get(
    "/manifest.json",
    summary="The live catalog",
    description="Services, meters, plans, prices and free included units.",
    operation_id="getManifest",
)
def manifest(request: Request, state: State) -> dict[str, Any]:
    config = state.get_config()
    base = str(request.base_url).rstrip("/")
    info = document.payment_info(config.price_atomic)
    rate = info["rates"][0]
    return {
        "manifestVersion": 1,
        "seller": {"name": "Task-execution service (sandbox)", "baseUrl": base},
        "services": [_service_entry(base, slug, config) for slug in SERVICES],
        "meters": [
            {
                "service": SERVICE_SLUG,
                "meter": "task",
                "unit": "task",
                "unitSize": 1,
                "freeUnits": 0,
                "description": "One submitted task.",
            }
        ],
        "plans": [
            {
                "id": "payg",
                "name": "Pay as you go",
                "accessMode": info["accessMode"],
                "priceMode": info["priceMode"],
                "purchasable": False,
                "rates": [{**rate, "currency": "USD"}],
            }
        ],
        "prices": [
            {
                "operation": "POST /svc/tasks",
                "service": SERVICE_SLUG,
                "meter": "task",
                "priceUsd": rate["priceUsd"],
                "currency": "USD",
            },
            *(
                {"operation": op, "service": SERVICE_SLUG, "priceUsd": "0", "currency": "USD"}
                for op in (
                    "GET /svc/tasks/{ticket_id}",
                    "POST /svc/tasks/{ticket_id}/reply",
                    "POST /svc/agent/quote",
                )
            ),
        ],
    }


@router.get(
    "/llms.txt",
    response_class=PlainTextResponse,
    summary="Agent guide (short)",
    operation_id="getLlmsTxt",
)
def llms_txt(request: Request, state: State) -> PlainTextResponse:
    return PlainTextResponse(_llms(request, state.get_config()))


@router.get(
    "/llms-full.txt",
    response_class=PlainTextResponse,
    summary="Agent guide (full)",
    operation_id="getLlmsFullTxt",
)
def llms_full_txt(request: Request, state: State) -> PlainTextResponse:
    config = state.get_config()
    base = document.base_document(request.app, config)
    return PlainTextResponse(_llms(request, config) + "\n" + _llms_full(base, config))


# --- paging ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Search:
    q: str | None
    path: str | None
    method: str | None
    page: int


def _paged(
    request: Request,
    config: SandboxConfig,
    base: dict[str, Any],
    ops: list[Operation],
    query: Search,
) -> JSONResponse:
    chosen = document.select(ops, q=query.q, path=query.path, method=query.method)
    page = query.page
    pages = max(1, -(-len(chosen) // PAGE_SIZE))
    if page > pages:
        raise SandboxError(
            404,
            {"error": "page_not_found", "detail": f"page {page} of {pages}"},
        )
    window = chosen[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    doc = document.document_of(base, window)
    doc["servers"] = [{"url": str(request.base_url).rstrip("/")}]
    info = doc["info"]
    info.update({"x-page": page, "x-pages": pages, "x-total-operations": len(chosen)})
    headers: dict[str, str] = {}
    links: list[str] = []
    if page > 1:
        links.append(f'<{request.url.include_query_params(page=page - 1)}>; rel="prev"')
    if page < pages:
        next_url = str(request.url.include_query_params(page=page + 1))
        if config.discovery_next in ("both", "x-next"):
            info["x-next"] = next_url
        if config.discovery_next in ("both", "link"):
            links.append(f'<{next_url}>; rel="next"')
    if links:
        headers["Link"] = ", ".join(links)
    return JSONResponse(doc, headers=headers)


def _service_entry(base: str, slug: str, config: SandboxConfig) -> dict[str, Any]:
    return {
        **SERVICES[slug],
        "openapi": f"{base}/services/{slug}/openapi.json",
        "meters": ["task"],
        "priceUsd": usd(config.price_atomic),
    }


# --- llms.txt --------------------------------------------------------------------------------


def _llms(request: Request, config: SandboxConfig) -> str:
    base = str(request.base_url).rstrip("/")
    price = usd(config.price_atomic)
    return "\n".join(
        [
            "# Task-execution service (sandbox)",
            "",
            f"> A paid, asynchronous task-execution API: submit a natural-language task for "
            f"an end user ({price} USD per task, paid per call with x402), poll it until it "
            "is final, answer its asks. A free advisor quotes a goal before you pay.",
            "",
            "This is the local sandbox: no real money moves and no real web site is touched.",
            "",
            "## Docs",
            "",
            f"- [OpenAPI]({base}/openapi.json): the paid surface, 10 operations a page; "
            "q, path, method and page query parameters",
            f"- [Services]({base}/services): the services and their descriptions",
            f"- [Manifest]({base}/manifest.json): services, meters, plans, prices, free units",
            f"- [Full guide]({base}/llms-full.txt): every operation, the flows and the errors",
            "",
            "## Start here",
            "",
            f"- Ask the free advisor first: POST {base}/svc/agent/quote "
            "(zero-amount proof in Payment-Signature) or, without a wallet, "
            f"GET {base}/svc/agent/guide?goal=<url-encoded goal>",
            f"- Submit: POST {base}/svc/tasks with {{task, email}}; pay the 402 with x402 "
            "(proof in x-payment); keep the svc-request-id for retries",
            f"- Poll: GET {base}/svc/tasks/{{ticket_id}} every 15 to 60 seconds",
            "",
        ]
    )


def _llms_full(base_doc: dict[str, Any], config: SandboxConfig) -> str:
    lines = ["## Operations", ""]
    for op in document.operations(base_doc):
        if op.spec.get("x-sandbox-sample"):
            continue
        price = op.spec.get("x-payment-info", {}).get("priceUsd")
        cost = f" ({price} USD)" if price is not None else ""
        lines.append(f"- {op.method.upper()} {op.path}{cost}: {op.spec.get('summary', '')}")
    tags = ", ".join(f"`{tag}` → {status}" for tag, status in STATUS_TAGS)
    lines += [
        "",
        "## Pricing",
        "",
        f"- Pay as you go, fixed price: {usd(config.price_atomic)} USD per submitted "
        "task (service `tasks`, meter `task`, unit `task`, unit size 1, 0 free units).",
        "- Poll, reply, the quote and the guide cost 0.",
        "",
        "## Advisor statuses",
        "",
        "quoted, ready, needs_input, blocked, unknown, unsupported, unavailable.",
        f"Sandbox goal tags: {tags}; `{DOWN_TAG}` → 503. No tag: quoted "
        "(blocked when budgetUsd cannot cover quantity tasks).",
        "",
        "## Errors",
        "",
        "- JSON with the code in `error`; 422 uses the validation error body `detail[]`.",
        "- 402 without `reason`: the normal per-call charge. `settlement_failed`: restart "
        "from a fresh challenge.",
        "- 5xx: back off and retry reads. A lost paid response: retry with the same "
        "svc-request-id (never charged twice).",
        "",
    ]
    return "\n".join(lines)
