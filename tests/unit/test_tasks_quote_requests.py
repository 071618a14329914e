"""`svc tasks` (and its members) and `svc quote` read their options from their operations'
requests: the CLI's own fields stay off svc mcp and the library, an error names the flag a
person typed, and the listing's query is what the flags said."""

from __future__ import annotations

from svc.commands import quote as quote_command
from svc.commands.tasks import query
from svc.operations.fields import offered
from svc.operations.quote import QuoteRequest
from svc.operations.tasks import KEPT, ForgetRequest, PruneRequest, TasksRequest


def test_the_clis_own_fields_are_not_offered_to_a_program() -> None:
    assert offered(TasksRequest, "mcp") == ["limit"]
    assert offered(TasksRequest, "library") == ["limit", "refresh"]
    assert offered(TasksRequest, "cli") == ["limit", "every", "state", "since", "refresh", "runner"]
    assert "pay" not in offered(QuoteRequest, "mcp") + offered(QuoteRequest, "library")
    assert offered(QuoteRequest, "cli")[-1] == "pay"


def test_the_members_of_tasks_carry_their_requests() -> None:
    assert [op.request for op in KEPT] == [ForgetRequest, PruneRequest]


def test_all_is_limit_zero_and_states_are_parsed() -> None:
    opts = TasksRequest.model_construct(every=True, state=["completed,failed", "failed"])
    found = query(opts)
    assert found.limit == 0 and found.states == ("completed", "failed")
    assert query(TasksRequest.model_construct()).limit == 50


def test_a_quote_error_names_what_the_person_typed() -> None:
    spelled = quote_command._spelled
    assert spelled("goal") == "GOAL" and spelled("budgetUsd") == "--budget"
    assert spelled("humanAvailable") == "--human-available"
    assert spelled("reviewAfterCalls") == "--review-after" and spelled("other") == "other"
