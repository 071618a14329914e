"""The pure parts of `svc mcp`: secret detection, scrubbing, argument checks, poll spacing,
and the two settings (in-process; the e2e tests drive the server itself)."""

from __future__ import annotations

import time

import pytest

from svc.errors import UsageError
from svc.mcp.asks import reply_command
from svc.mcp.server import check_arguments, offered
from svc.mcp.state import PollGate
from svc.mcp.tool_schemas import output_schema
from svc.redact import REDACTED, Vault
from svc.replies import is_secret
from svc.settings import resolve


@pytest.mark.parametrize(
    "name",
    ["sms_code", "password", "otp", "2fa", "bank-PIN", "verification code", "cvv", "card_pin"],
)
def test_secret_looking_fields(name: str) -> None:
    assert is_secret(name)


@pytest.mark.parametrize(
    "name", ["postal_code", "zip_code", "phone", "shipping_address", "spinach", "topic"]
)
def test_ordinary_fields(name: str) -> None:
    assert not is_secret(name)


def test_the_vault_replaces_a_secret_at_any_depth_and_keeps_the_rest() -> None:
    doc = {"a": ["x 918273 y", {"918273": 918273}], "b": "plain", "c": None, "d": 9182730}
    vault = Vault()
    assert vault.scrub(doc) is doc  # nothing held: nothing to do
    vault.add(" 918273 ")
    assert vault.scrub(doc) == {
        "a": [f"x {REDACTED} y", {REDACTED: REDACTED}],
        "b": "plain",
        "c": None,
        "d": REDACTED,  # a number that contains the code shows it too
    }


def test_the_vault_holds_digests_only_and_merges_overlapping_secrets() -> None:
    vault = Vault()
    for secret in ("hunter2", "er2-x", "Zq9!"):
        vault.add(secret)
    held = repr(vars(vault))
    assert "hunter2" not in held and "Zq9!" not in held
    assert vault.scrub("pw=hunter2-x; pin Zq9!Zq9!.") == f"pw={REDACTED}; pin {REDACTED}."
    assert vault.scrub(["", "hunter", "unter2"]) == ["", "hunter", "unter2"]


def test_argument_errors_name_the_rule_not_the_value() -> None:
    secret = "s3cr3t-" + "x" * 5000
    with pytest.raises(UsageError) as info:
        check_arguments(offered()["reply_to_task"], {"task_id": "t", "field": "f", "value": secret})
    assert info.value.code == "invalid_arguments"
    assert "value: at most 4000 characters" in info.value.message
    assert "s3cr3t" not in info.value.message
    with pytest.raises(UsageError, match="Additional properties"):
        check_arguments(offered()["get_task"], {"task_id": "t", "extra": 1})
    check_arguments(offered()["get_task"], {"task_id": "tsk_1"})  # a valid call passes


def test_every_tool_schema_is_closed_and_valid() -> None:
    from jsonschema import Draft202012Validator

    for tool in offered().values():
        Draft202012Validator.check_schema(tool.input_schema)
        Draft202012Validator.check_schema(output_schema(tool.face))
        assert tool.input_schema["additionalProperties"] is False
        assert set(tool.input_schema["required"]) <= set(tool.input_schema["properties"])


def test_poll_gate_spaces_polls_of_one_task() -> None:
    gate = PollGate(0.2)
    assert gate.recent("t") is None and gate.wait_time("t") == 0.0
    gate.record("t", {"id": "t"})
    recent = gate.recent("t")
    assert recent is not None and recent[1] == {"id": "t"}
    assert 0.0 < gate.wait_time("t") <= 0.2
    assert gate.recent("other") is None
    time.sleep(0.25)
    assert gate.recent("t") is None


def test_reply_command_quotes_what_it_names() -> None:
    assert reply_command("tsk_1", "sms code") == (
        "svc reply tsk_1 --field 'sms code' --sensitive --value-file -"
    )


def test_mcp_settings_default_to_asking_and_refusing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SVC_MCP_PREAPPROVED_USD", raising=False)
    monkeypatch.delenv("SVC_MCP_ALLOW_MODEL_SECRETS", raising=False)
    s = resolve(profile_values={}, stdin_is_tty=False)
    assert s.mcp_preapproved_usd is None and s.mcp_allow_model_secrets is False
    s = resolve(
        profile_values={"mcp_preapproved_usd": "1.50", "mcp_allow_model_secrets": "true"},
        stdin_is_tty=False,
    )
    assert str(s.mcp_preapproved_usd) == "1.50" and s.mcp_allow_model_secrets is True
    monkeypatch.setenv("SVC_MCP_ALLOW_MODEL_SECRETS", "maybe")
    with pytest.raises(UsageError, match="true or false"):
        resolve(profile_values={}, stdin_is_tty=False)
    monkeypatch.setenv("SVC_MCP_ALLOW_MODEL_SECRETS", "0")
    monkeypatch.setenv("SVC_MCP_PREAPPROVED_USD", "-1")
    with pytest.raises(UsageError):
        resolve(profile_values={}, stdin_is_tty=False)


def test_a_secret_cut_by_the_length_bound_leaves_no_part_of_itself() -> None:
    """The text and the error detail are bounded; a secret straddling the bound was cut to
    its first digits *before* it was looked for, and those digits reached the model."""
    from svc.errors import SvcError
    from svc.mcp.results import TEXT_LIMIT, Outcome, failure, success

    code = "73914628"
    vault = Vault()
    vault.add(code)
    text = success(Outcome(doc={}, text="x" * (TEXT_LIMIT - 4) + code), vault).content[0]
    assert "739" not in text.text  # type: ignore[union-attr]
    error = SvcError("y" * 996 + code + " tail", code="conflict")
    failed = failure(error, vault)
    assert "739" not in str(failed.meta)
    assert "739" not in failed.content[0].text  # type: ignore[union-attr]


def test_submit_task_names_an_argument_it_does_not_have() -> None:
    """Issue 30.18: a typo (`emial`) must not fall back to the profile's e-mail and pay; the
    schema refuses it by name before the paid engine runs (which refuses it too)."""
    from svc.errors import UsageError

    with pytest.raises(UsageError) as caught:
        check_arguments(offered()["submit_task"], {"task": "t", "emial": "a@b.co"})
    assert caught.value.code == "invalid_arguments"
    assert "'emial' was unexpected" in caught.value.message


def test_a_round_keeps_the_earlier_answers_of_its_call_until_all_are_in() -> None:
    """Two secrets in one call under 2026-07-28: the second round's state carries the first
    answer, and the third call answers both without asking again."""
    import json
    from types import SimpleNamespace
    from typing import Any

    import anyio
    import mcp_types as types

    from svc.mcp.rounds import InputNeeded, RoundHuman, input_required

    caps = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    session: Any = SimpleNamespace(client_capabilities=caps)
    first = {"kind": "secret", "task": "t", "field": "a"}

    def typed(value: str) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"value": value})

    async def both(human: RoundHuman) -> tuple[str | None, str | None]:
        return await human.secret("a?", "a", "t"), await human.secret("b?", "b", "t")

    with pytest.raises(InputNeeded) as asked:
        anyio.run(both, RoundHuman(session, 1, None, None))
    assert asked.value.about == first and asked.value.kept == []
    with pytest.raises(InputNeeded) as asked:
        anyio.run(both, RoundHuman(session, 1, first, typed("1111")))
    second = asked.value.about
    assert second["field"] == "b" and asked.value.kept == [(first, {"value": "1111"})]
    state = json.loads(input_required(asked.value).request_state or "")
    kept = [(about, content) for about, content in state["kept"]]  # sealed on the way out
    human = RoundHuman(session, 1, second, typed("2222"), kept)
    assert anyio.run(both, human) == ("1111", "2222")


def test_the_vault_survives_hostile_text_fast_and_keeps_short_answers_whole_values() -> None:
    """Review of 29.10: a lone surrogate in server text made the scrub raise (it encoded each
    window), a 16 MB answer took seconds a megabyte, and a one-character secret would have
    blanked every text holding that character."""
    import time

    from svc.api.jsonsafe import load_json

    vault = Vault()
    for secret in ("918273", "7", "hunter2"):
        vault.add(secret)
    hostile = load_json(b'{"goal": "pin 918273 \\ud800 done"}')
    assert vault.scrub(hostile) == {"goal": f"pin {REDACTED} \ud800 done"}
    big = "x" * (16 << 20) + "918273"
    started = time.process_time()
    assert vault.scrub(big).endswith(REDACTED)
    assert time.process_time() - started < 2.0
    assert vault.scrub("version 1.7, 17 items") == "version 1.7, 17 items"
    assert vault.scrub(" 7 ") == REDACTED and vault.scrub(7) == REDACTED  # a whole value


def test_a_code_with_leading_zeros_folded_back_as_a_number_is_redacted() -> None:
    """`0192291243` comes back as the JSON number 192291243 (one run in ten of the folding
    test drew such a code, and the number was printed)."""
    vault = Vault()
    vault.add("0192291243")
    assert vault.scrub({"code": 192291243}) == {"code": REDACTED}
    assert vault.scrub(19229124) == 19229124


def test_a_flood_of_states_never_makes_a_live_one_replayable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Full of live nonces, a new state is refused; evicting the oldest live one instead
    would let its sealed state be used a second time."""
    from svc.mcp import rounds

    clock = [1000.0]
    monkeypatch.setattr(rounds.time, "monotonic", lambda: clock[0])
    spent = rounds.SpentNonces(ttl=60, limit=3)
    assert [spent.spend(n) for n in ("a", "b", "c")] == [True, True, True]
    assert spent.spend("d") is False  # full of live ones: refused, nothing evicted
    assert spent.spend("a") is False  # still spent: no replay
    clock[0] += 200  # past the ttl and its skew allowance: the old ones have expired
    assert spent.spend("d") is True and spent.spend("a") is True
