"""Which tests cover each row of the spec's fidelity table (docs/fidelity.md, tests/fidelity.py).

Keys are the row ids `python -m tests.fidelity` derives from the spec ("code seller_not_found",
"status GET /svc/tasks/{ticket_id} 404"); values are pytest node ids, e2e first (the `svc`
executable against the sandbox), then the sandbox's own unit tests where they pin the wire. A
parametrized test is named with the case that exercises the row. tests/unit/test_fidelity.py
fails when a spec row is missing here, when a key names no spec row, or when a node id does
not collect.
"""

from __future__ import annotations

CORE = "tests/e2e/test_core.py"
CODES = "tests/e2e/test_spec_codes.py"
IDENTITY = "tests/e2e/test_identity.py"
ADVISOR = "tests/e2e/test_advisor.py"
DISCOVERY = "tests/e2e/test_discovery.py"
PAYMENTS = "tests/e2e/test_payments.py"
GATE = "tests/e2e/test_origin_gate.py"
OFFICIAL = "tests/e2e/test_official_clients.py"
SB_IDENTITY = "tests/unit/sandbox/test_sandbox_identity.py"
SB_PAID = "tests/unit/sandbox/test_sandbox_paid.py"
SB_X402 = "tests/unit/sandbox/test_sandbox_x402.py"
SB_SCENARIOS = "tests/unit/sandbox/test_sandbox_scenarios.py"
SB_ANSWERS = (
    "tests/unit/sandbox/test_sandbox_openapi_answers.py"
    "::test_every_documented_answer_of_these_routes_is_served_as_described"
)

TASKS = "/svc/tasks"
POLL = "GET /svc/tasks/{ticket_id}"
REPLY = "POST /svc/tasks/{ticket_id}/reply"
QUOTE = "POST /svc/agent/quote"
REPLY_RESUMES = f"{CORE}::test_2fa_plain_ask_watch_exits_6_then_reply_resumes_and_purges_the_secret"
QUOTE_PAID = f"{ADVISOR}::test_402_then_zero_amount_proof_then_200_and_nothing_charged"
MPP_BEARER = f"{IDENTITY}::test_bearer_moves_to_svc_agent_authorization_when_mpp_pays"
CARD_RESUMES = f"{PAYMENTS}::test_card_noninteractive_exits_6_then_pay_card_resumes"
WRONG_HEADER = f"{SB_PAID}::test_a_free_call_proof_in_the_wrong_header_is_named_on_poll_and_advisor"


def _access(case: str) -> str:
    return f"{CODES}::test_access_code[{case}]"


def _payment(case: str) -> str:
    return f"{CODES}::test_payment_code[{case}]"


def _jag(case: str) -> str:
    return f"{IDENTITY}::test_id_jag_refusals[{case}]"


def _statuses(case: str) -> str:
    return f"{CODES}::test_a_poll_422_and_a_reply_401_are_the_contracts_exit[{case}]"


_ENDPOINTS: dict[str, tuple[str, ...]] = {
    f"POST {TASKS}": (f"{CORE}::test_submit_pays_once_with_x402_and_prints_the_task",),
    POLL: (f"{CORE}::test_poll_retries_5xx_and_429_with_retry_after",),
    REPLY: (REPLY_RESUMES,),
    QUOTE: (QUOTE_PAID,),
    "GET /svc/agent/guide": (f"{ADVISOR}::test_guide_get_piped_is_raw_markdown",),
    "POST /svc/agent/guide": (f"{ADVISOR}::test_long_goal_guide_is_posted",),
    "GET /openapi.json": (
        f"{DISCOVERY}::test_search_first_page_has_ten_operations_and_a_next_pointer",
        f"{DISCOVERY}::test_api_get_one_operation",
    ),
    "GET /services/{slug}/openapi.json": (
        f"{DISCOVERY}::test_services_and_show",
        f"{DISCOVERY}::test_services_show_unknown_slug_is_encoded_and_not_found",
    ),
    "GET /services": (f"{DISCOVERY}::test_services_and_show",),
    "GET /manifest.json": (f"{DISCOVERY}::test_dry_run_price_comes_from_the_manifest",),
    "GET /llms.txt": (f"{DISCOVERY}::test_llms_raw_and_full",),
    "GET /llms-full.txt": (f"{DISCOVERY}::test_llms_raw_and_full",),
    "POST {auth_base}/agent/identity": (
        f"{IDENTITY}::test_anonymous_registration_is_reused_unless_forced",
        f"{IDENTITY}::test_refresh_rotates_and_the_old_token_is_refused",
        SB_ANSWERS,
    ),
    "POST {auth_base}/agent/identity/claim": (
        f"{IDENTITY}::test_claim_ceremony_as_a_person",
        SB_ANSWERS,
    ),
    "POST {auth_base}/agent/identity/claim/complete": (
        f"{IDENTITY}::test_claim_ceremony_as_a_person",
        SB_ANSWERS,
    ),
    "POST {auth_base}/oauth2/token": (
        f"{IDENTITY}::test_expired_access_token_mid_run_is_reexchanged",
        f"{IDENTITY}::test_expired_assertion_is_refreshed_transparently",
        SB_ANSWERS,
    ),
    "GET {auth_base}/agent/entitlements": (
        f"{IDENTITY}::test_claim_ceremony_as_a_person",
        SB_ANSWERS,
    ),
    "GET {auth_base}/.well-known/oauth-protected-resource": (
        f"{GATE}::test_a_protected_resource_document_that_binds_them_is_accepted",
        f"{GATE}::test_a_protected_resource_document_that_does_not_bind_the_two_is_refused",
        SB_ANSWERS,
    ),
    "GET {auth_base}/.well-known/oauth-authorization-server": (
        f"{SB_IDENTITY}::test_discovery_documents_list_the_agent_auth_endpoints",
        SB_ANSWERS,
    ),
    "POST <payUrl>": (CARD_RESUMES, SB_ANSWERS),
    "GET <statusUrl>": (f"{PAYMENTS}::test_payment_incomplete_finishes_via_status_url", SB_ANSWERS),
}

_STATUSES: dict[str, tuple[str, ...]] = {
    f"POST {TASKS} 202": (f"{CORE}::test_submit_pays_once_with_x402_and_prints_the_task",),
    f"POST {TASKS} 400": (
        f"{CORE}::test_malformed_email_the_server_refuses_is_exit_2",
        f"{SB_X402}::test_validation_comes_before_payment",
    ),
    f"POST {TASKS} 401": (
        f"{IDENTITY}::test_bearer_required_then_register_then_retry",
        _access("invalid_token-token_invalid"),
    ),
    f"POST {TASKS} 402": (f"{CODES}::test_the_normal_charge_is_paid_once",),
    f"POST {TASKS} 422": (f"{SB_X402}::test_validation_comes_before_payment",),
    f"{POLL} 200": (f"{CORE}::test_poll_retries_5xx_and_429_with_retry_after",),
    f"{POLL} 401": (f"{IDENTITY}::test_expired_access_token_mid_run_is_reexchanged",),
    f"{POLL} 402": (f"{CORE}::test_tasks_are_scoped_to_the_paying_agent", WRONG_HEADER),
    f"{POLL} 404": (
        f"{CORE}::test_unknown_task_is_exit_7",
        f"{IDENTITY}::test_poll_is_scoped_to_the_bearer_agent",
    ),
    f"{POLL} 422": (_statuses("GET-422-2"),),
    f"{REPLY} 200": (REPLY_RESUMES,),
    f"{REPLY} 401": (_statuses("POST-401-4"),),
    f"{REPLY} 402": (f"{CODES}::test_a_reply_answers_the_zero_amount_402_itself",),
    f"{REPLY} 404": (f"{CORE}::test_unknown_task_is_exit_7",),
    f"{REPLY} 409": (f"{CORE}::test_expired_approval_is_resent_and_early_approve_is_a_conflict",),
    f"{REPLY} 410": (f"{CORE}::test_reply_after_the_ask_expired_is_410_exit_8",),
    f"{REPLY} 422": (
        "tests/e2e/test_hostile_server.py::"
        "test_hostile_error_detail_from_the_service_is_one_inert_line",
        f"{SB_SCENARIOS}::test_questions_structured_ask",
    ),
    f"{QUOTE} 200": (QUOTE_PAID,),
    f"{QUOTE} 402": (QUOTE_PAID,),
    f"{QUOTE} 503": (
        f"{ADVISOR}::test_503_falls_back_to_the_guide",
        f"{ADVISOR}::test_503_from_the_fault_queue_falls_back_once",
    ),
}

_REASONS = (
    "token_expired",
    "token_invalid",
    "malformed_agent_authorization",
    "unrecognized_agent_credential",
    "conflicting_agent_credentials",
    "combined_authorization_unsupported",
)
_RESENDS = "the same command re-sends it"

_ACCESS_CODES: dict[str, tuple[str, ...]] = {
    "bearer_required": (
        _access("bearer_required@/svc/tasks"),
        f"{IDENTITY}::test_bearer_required_then_register_then_retry",
    ),
    "invalid_token": (_access("invalid_token@/svc/tasks"),),
    **{f"invalid_token reason={r}": (_access(f"invalid_token-{r}"),) for r in _REASONS},
    "entitlements_not_available": (
        _access("entitlements_not_available@/auth/agent/entitlements"),
        f"{CODES}::test_entitlements_not_available_is_not_retried",
    ),
    "identity_invalid": (_payment("identity_invalid-2-5-fresh challenge"),),
    "settlement_failed": (
        _payment("settlement_failed-2-5-fund the wallet"),
        f"{PAYMENTS}::test_declined_token_is_settlement_failed_with_its_reason",
    ),
    "payment_refunded": (_payment("payment_refunded-2-5-fresh 402"),),
    "payment_consumed": (_payment("payment_consumed-2-5-fresh 402"),),
    "payment_failed": (_payment("payment_failed-2-5-fresh 402"),),
    "payment_released": (
        _payment("payment_released-2-5-fresh 402"),
        f"{PAYMENTS}::test_dead_card_payment_starts_over_with_a_fresh_402",
    ),
    "payment_incomplete": (
        f"{CODES}::test_payment_incomplete_says_finish_the_page_then_pay_card",
        f"{PAYMENTS}::test_payment_incomplete_finishes_via_status_url",
    ),
    "payment_unknown": (_payment("payment_unknown-1-5-new --request-id"),),
    "payment_provider_unavailable": (
        _payment(f"payment_provider_unavailable-20-9-{_RESENDS}"),
        f"{PAYMENTS}::test_provider_unavailable_is_retried_with_the_same_proof",
    ),
    "402 without a reason (the per-call charge)": (
        f"{CODES}::test_the_normal_charge_is_paid_once",
    ),
    "rate_limit_exceeded": (_payment(f"rate_limit_exceeded-10-9-{_RESENDS}"),),
    "invalid_request": (_access("invalid_request@/svc/tasks"),),
    "payg_not_purchasable": (_access("payg_not_purchasable@/svc/tasks"),),
    "seller_not_found": (_access("seller_not_found@/svc/tasks"),),
    "plan_not_found": (
        _access("plan_not_found@/svc/tasks"),
        f"{CODES}::test_svc_sandbox_tags_says_how_to_reach_the_codes",
    ),
    "signing_secret_required": (_access("signing_secret_required@/svc/tasks"),),
    "payment_request_mismatch": (_payment("payment_request_mismatch-1-5-new --request-id"),),
    "payment_amount_mismatch": (_payment("payment_amount_mismatch-1-5-run the submit again"),),
    "usage_not_priced": (_payment("usage_not_priced-1-8-report it"),),
}

# The identity flow codes: real refusals first (test_identity.py), a `code` fault only where
# svc's own checks or wording never provoke the platform's answer.
_IDENTITY_CODES: dict[str, tuple[str, ...]] = {
    "Register: invalid_request": (
        _jag("flags3-invalid_request-10 minutes"),
        f"{SB_IDENTITY}::test_bad_registrations_are_refused",
    ),
    "Register: invalid_login_hint": (
        f"{IDENTITY}::test_malformed_login_hint",
        f"{IDENTITY}::test_plus_aliased_addresses_are_refused_at_claim_time",
    ),
    "Register: anonymous_registration_disabled": (
        f"{IDENTITY}::test_disabled_registration_types"
        "[anonymous_registration-flags0-anonymous_registration_disabled]",
    ),
    "Register: service_auth_registration_disabled": (
        f"{IDENTITY}::test_disabled_registration_types"
        "[service_auth_registration-flags1-service_auth_registration_disabled]",
    ),
    "Register with assertion: issuer_not_enabled": (_jag("flags0-issuer_not_enabled-not trusted"),),
    "Register with assertion: replay_detected": (f"{IDENTITY}::test_an_id_jag_is_single_use",),
    "Register with assertion: login_required": (_jag("flags4-login_required-30 days"),),
    "Register with assertion: interaction_required": (
        f"{IDENTITY}::test_id_jag_for_an_account_made_by_a_claim_needs_interaction",
    ),
    "Register with assertion: missing_verified_email": (
        _access("missing_verified_email@/auth/agent/identity"),
        _jag("flags5-missing_verified_email-not verified"),
    ),
    "Register with assertion: invalid_audience": (_jag("flags2-invalid_audience-aud"),),
    "Register with assertion: expired": (f"{IDENTITY}::test_expired_id_jag_is_refused",),
    "Register with assertion: invalid_signature": (_jag("flags1-invalid_signature-signature"),),
    "Mint claim attempt: invalid_claim_token": (
        f"{IDENTITY}::test_expired_claim",
        f"{SB_IDENTITY}::test_claim_errors",
    ),
    "Mint claim attempt: too_many_attempts": (f"{IDENTITY}::test_too_many_pending_links",),
    "Complete claim: claim_not_confirmed": (
        f"{IDENTITY}::test_claim_ceremony_as_a_person",
        f"{IDENTITY}::test_claim_refusals",
        f"{SB_IDENTITY}::test_claim_ceremony_through_the_page",
    ),
    "Complete claim: invalid_user_code": (f"{IDENTITY}::test_claim_refusals",),
    "Complete claim: user_code_expired": (
        f"{IDENTITY}::test_expired_link_mints_a_fresh_one",
        f"{SB_IDENTITY}::test_claim_errors",
    ),
    "Complete claim: claim_denied": (f"{IDENTITY}::test_claim_refusals",),
    "Complete claim: claim_expired": (f"{IDENTITY}::test_expired_claim",),
    "Complete claim: already_claimed": (f"{IDENTITY}::test_already_claimed_elsewhere",),
    "Exchange: invalid_request": (
        _access("invalid_request@/auth/oauth2/token"),
        f"{SB_IDENTITY}::test_exchange_errors",
    ),
    "Exchange: invalid_grant": (
        f"{IDENTITY}::test_dead_anonymous_credential_says_register_again",
        f"{IDENTITY}::test_expired_assertion_is_refreshed_transparently",
        f"{SB_IDENTITY}::test_exchange_errors",
    ),
    "Exchange: unsupported_grant_type": (
        _access("unsupported_grant_type@/auth/oauth2/token"),
        f"{SB_IDENTITY}::test_exchange_errors",
    ),
    "Refresh: invalid_refresh_token": (
        f"{IDENTITY}::test_refresh_rotates_and_the_old_token_is_refused",
    ),
}

_HEADERS: dict[str, tuple[str, ...]] = {
    "svc-request-id": (
        f"{CORE}::test_lost_answer_to_a_paid_submit_exits_10_and_reconciles_without_paying_again",
        f"{OFFICIAL}::test_the_official_x402_sdk_pays_for_a_task",
    ),
    "Link": (
        f"{DISCOVERY}::test_all_follows_three_or_more_pages[link]",
        "tests/unit/sandbox/test_sandbox_discovery.py::"
        "test_paging_gives_ten_a_page_with_x_next_and_link",
    ),
    "x-payment": (
        f"{CORE}::test_verbose_trace_redacts_the_payment_proof",
        f"{OFFICIAL}::test_the_official_x402_v1_client_pays_as_it_is",
    ),
    "Payment-Signature": (
        QUOTE_PAID,
        f"{SB_PAID}::test_a_task_proof_in_payment_signature_is_refused_with_the_header_to_use",
    ),
    "svc-agent-authorization": (MPP_BEARER,),
    "svc-payment-id": (
        CARD_RESUMES,
        f"{SB_PAID}::test_a_spent_card_payment_is_consumed_and_cannot_pay_again",
    ),
    "www-authenticate": (MPP_BEARER, f"{OFFICIAL}::test_pympps_client_pays_for_a_task"),
    "svc-billing": (
        f"{CODES}::test_the_normal_charge_is_paid_once",
        f"{OFFICIAL}::test_the_official_x402_sdk_pays_for_a_task",
    ),
    "Authorization: Payment": (MPP_BEARER, f"{OFFICIAL}::test_pympps_client_pays_for_a_task"),
    "Authorization: Bearer": (
        f"{IDENTITY}::test_bearer_required_then_register_then_retry",
        f"{IDENTITY}::test_poll_is_scoped_to_the_bearer_agent",
    ),
    "Retry-After": (
        f"{CORE}::test_poll_retries_5xx_and_429_with_retry_after",
        "tests/e2e/test_hostile_answers.py::test_a_huge_wait_is_not_slept",
    ),
    "svc-usage-error": (
        f"{PAYMENTS}::test_usage_error_header_is_shown_stored_and_not_retried",
        f"{SB_PAID}::test_a_usage_error_fault_marks_a_served_answer_on_every_rail",
    ),
}

COVERAGE: dict[str, tuple[str, ...]] = {
    **{f"endpoint {k}": v for k, v in _ENDPOINTS.items()},
    **{f"status {k}": v for k, v in _STATUSES.items()},
    **{f"code {k}": v for k, v in _ACCESS_CODES.items()},
    **{f"code {k}": v for k, v in _IDENTITY_CODES.items()},
    **{f"header {k}": v for k, v in _HEADERS.items()},
}
