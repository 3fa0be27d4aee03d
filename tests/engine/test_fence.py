"""The engine's use of pydantic's private internals (``engine.fence``) against the installed
pydantic: an upgrade that changes what a model instance holds fails here, by name."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from engine import actions
from engine.fence import unvalidated
from engine.state import TunnelPending


def _state(model: BaseModel) -> dict[str, object]:
    """Everything an instance holds (``__getstate__``: what pickling and copies take)."""
    state: dict[str, object] = model.__getstate__()
    return state


@pytest.mark.parametrize(
    ("cls", "fields", "fields_set"),
    [
        (actions.Claim, {"type": "claim", "route": 7, "cards": {"red": 2}}, {"route", "cards"}),
        (actions.KeepTickets, {"type": "keep_tickets", "tickets": [1, 2]}, {"tickets"}),
        (actions.DraftPick, {"type": "draft_pick", "ticket": 3}, {"ticket"}),
        (actions.BuildStation, {"type": "build_station", "city": "wien", "cards": {"red": 1}},
         {"city", "cards"}),
        (actions.BuildHarbor, {"type": "build_harbor", "city": "lima", "cards": {"red": 1}},
         {"city", "cards"}),
        (actions.PayTunnel, {"type": "pay_tunnel", "cards": {"red": 1, "locomotive": 1}},
         {"cards"}),
        (TunnelPending, {"seat": 1, "route": 4, "paid": [0, 2, 0, 0, 0, 0, 0, 0, 1],
                         "color": 1, "revealed": [3, 8, 1], "extra": 2},
         {"seat", "route", "paid", "color", "revealed", "extra"}),
    ],
)
def test_unvalidated_holds_what_model_construct_builds(
    cls: type[BaseModel], fields: dict[str, object], fields_set: set[str]
) -> None:
    values = {k: v for k, v in fields.items() if k in fields_set}
    expected = cls.model_construct(set(fields_set), **values)
    got = unvalidated(cls, dict(fields), set(fields_set))
    assert type(got) is cls
    assert _state(got) == _state(expected)
    assert got == expected and got.model_fields_set == expected.model_fields_set
    assert got.model_dump() == expected.model_dump()
    assert cls.model_validate(got.model_dump()) == got  # and it is a valid one


def test_the_engine_s_shared_actions_are_what_pydantic_validates() -> None:
    claim = actions.claim_of(5, [0, 0, 2, 0, 0, 0, 0, 0, 1])
    assert claim == actions.Claim(route=5, cards={"blue": 2, "locomotive": 1})
    assert actions.keep((4, 9)) == actions.KeepTickets(tickets=[4, 9])
    assert actions.pick_of(12) == actions.DraftPick(ticket=12)
