"""The fake checks every request against Discord's published API (``bot.edge.testing_api``)."""

from __future__ import annotations

import re

import discord
import pytest

from bot.edge import testing_api
from bot.edge.testing import VIOLATIONS, FakeDiscord
from bot.edge.testing_api import SpecViolation, request_schemas
from tests.bot.conftest import Table

MESSAGES = "/channels/{channel_id}/messages"
CALLBACK = "/interactions/{webhook_id}/{webhook_token}/callback"


def row(*controls: dict[str, object]) -> dict[str, object]:
    return {"type": 1, "components": list(controls)}


def button(**fields: object) -> dict[str, object]:
    return {"type": 2, "style": 1, "label": "Go", "custom_id": "ttr:1:go", **fields}


@pytest.mark.parametrize(("path", "body", "where", "rule"), [
    (MESSAGES, {"content": "x" * 2001 * 2}, "$.content", "maxLength"),
    (MESSAGES, {"components": [row(button(custom_id="a" * 101))]},
     "$.components[0].components[0].custom_id", "maxLength"),
    (MESSAGES, {"components": [row(*[button(custom_id=f"b{i}") for i in range(6)])]},
     "$.components[0].components", "maxItems"),
    (MESSAGES, {"components": [row(button(label="x" * 81))]},
     "$.components[0].components[0].label", "maxLength"),
    (CALLBACK, {"type": 4, "data": {"components": [row(
        {"type": 3, "custom_id": "s", "options": []})]}},
     "$.data.components[0].components[0].options", "minItems"),
    (CALLBACK, {"type": 99}, "$", "type"),
    (CALLBACK, {"type": 8, "data": {"choices": [{"name": "n", "value": "v"}] * 26}},
     "$.data.choices", "maxItems"),
])
def test_a_body_discord_refuses_names_route_field_and_rule(path: str, body: object,
                                                            where: str, rule: str) -> None:
    with pytest.raises(SpecViolation) as caught:
        request_schemas().check("POST", path, body)
    assert str(caught.value).startswith(f"POST {path}: {where} breaks '{rule}'"), caught.value


def test_snowflakes_may_be_integers_and_valid_bodies_pass() -> None:
    schemas = request_schemas()
    schemas.check("POST", MESSAGES, {
        "content": "hi", "components": [row(button())],
        "allowed_mentions": {"parse": [], "users": [1_200_000_000_000_000_001, "12"]}})
    schemas.check("POST", CALLBACK, {"type": 6})
    with pytest.raises(SpecViolation, match="users"):
        schemas.check("POST", MESSAGES, {"allowed_mentions": {"users": [-1]}})
    assert schemas.known("POST", MESSAGES) and not schemas.known("GET", MESSAGES)


def test_a_body_only_the_compiled_validator_refuses_is_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled validator judges; jsonschema only names the error. Should it see none,
    the body is refused all the same, in the compiled validator's words."""
    monkeypatch.setattr(testing_api, "best_match", lambda errors: None)
    with pytest.raises(SpecViolation, match=re.escape(
            f"POST {MESSAGES}: $.content breaks 'maxLength': ...")):
        request_schemas().check("POST", MESSAGES, {"content": "x" * 4002})


async def test_the_fake_refuses_such_a_request_as_discord_does(table: Table) -> None:
    """The bot hears Discord's 400 (50035); the test is failed by the conformance check."""
    channel = table.bot.get_partial_messageable(FakeDiscord.CHANNEL_ID)
    with pytest.raises(discord.HTTPException) as caught:
        await channel.send("x" * 5000)
    assert (caught.value.status, caught.value.code) == (400, 50035)
    assert VIOLATIONS and "$.content breaks 'maxLength'" in VIOLATIONS[0]
    VIOLATIONS.clear()  # seen: not a failure of this test
    await channel.send("fine")
    assert not VIOLATIONS
