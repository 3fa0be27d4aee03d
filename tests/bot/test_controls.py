"""Controls: one ``DynamicItem`` family per kind of button, each template parsing its own
custom_ids; the wire format ``ttr:<game>:<action>[:<arg>]`` of buttons already sent stays."""

from __future__ import annotations

import pytest

from bot.edge.client import CONTROLS, FAMILIES
from bot.edge.components import ControlId
from bot.edge.controls import control_id, pattern
from bot.lobby.controls import LobbyControl
from bot.play.controls import BuildControl, TurnControl
from bot.records.controls import RecordsControl
from bot.seats.controls import OrderControl, SeatControl


def taken_by(custom_id: str) -> list[type]:
    """The registered families whose template takes ``custom_id`` (discord.py calls each)."""
    return [f for f in CONTROLS if pattern(f).fullmatch(custom_id)]


def parse(custom_id: str) -> ControlId | None:
    family = [f for f in FAMILIES if pattern(f).fullmatch(custom_id)]
    return control_id(pattern(family[0]).fullmatch(custom_id)) if family else None


# Every action of the wire format, as older versions of the bot sent them.
SENT = [
    ("ttr:12:join", LobbyControl, ControlId(12, "join")),
    ("ttr:12:leave", LobbyControl, ControlId(12, "leave")),
    ("ttr:12:start", LobbyControl, ControlId(12, "start")),
    ("ttr:12:addbot", LobbyControl, ControlId(12, "addbot")),
    ("ttr:12:rmbot", LobbyControl, ControlId(12, "rmbot")),
    ("ttr:12:endok", LobbyControl, ControlId(12, "endok")),
    ("ttr:12:resign", LobbyControl, ControlId(12, "resign")),
    ("ttr:12:abandon", LobbyControl, ControlId(12, "abandon")),
    ("ttr:3:hand", TurnControl, ControlId(3, "hand")),
    ("ttr:99:keep", TurnControl, ControlId(99, "keep")),
    ("ttr:3:blind:57", TurnControl, ControlId(3, "blind", 57)),
    ("ttr:4:shipdeck:9", TurnControl, ControlId(4, "shipdeck", 9)),
    ("ttr:3:tickets:57", TurnControl, ControlId(3, "tickets", 57)),
    ("ttr:3:pay:8", TurnControl, ControlId(3, "pay", 8)),
    ("ttr:1:decline:0", TurnControl, ControlId(1, "decline", 0)),
    ("ttr:3:undo:57", TurnControl, ControlId(3, "undo", 57)),
    ("ttr:3:undovote:57", TurnControl, ControlId(3, "undovote", 57)),
    ("ttr:3:up:4.57", TurnControl, ControlId(3, "up", 57, 4)),
    ("ttr:4:upt:3.12", TurnControl, ControlId(4, "upt", 12, 3)),
    ("ttr:4:ups:5.0", TurnControl, ControlId(4, "ups", 0, 5)),
    ("ttr:5:pick:2.88", TurnControl, ControlId(5, "pick", 88, 2)),
    ("ttr:4:pick:2.987654321", TurnControl, ControlId(4, "pick", 987654321, 2)),
    ("ttr:7:claim", BuildControl, ControlId(7, "claim")),
    ("ttr:7:station", BuildControl, ControlId(7, "station")),
    ("ttr:7:harbor", BuildControl, ControlId(7, "harbor")),
    ("ttr:7:claimto:40", BuildControl, ControlId(7, "claimto", 40)),
    ("ttr:7:stationpg:1.40", BuildControl, ControlId(7, "stationpg", 40, 1)),
    ("ttr:7:harborpay:31.40", BuildControl, ControlId(7, "harborpay", 40, 31)),
    ("ttr:8:piloton", SeatControl, ControlId(8, "piloton")),
    ("ttr:8:pilotoff", SeatControl, ControlId(8, "pilotoff")),
    ("ttr:8:kick:2", SeatControl, ControlId(8, "kick", number=2)),
    ("ttr:8:orders", OrderControl, ControlId(8, "orders")),
    ("ttr:8:ordroute:0", OrderControl, ControlId(8, "ordroute", number=0)),
    ("ttr:8:orddraw:3", OrderControl, ControlId(8, "orddraw", number=3)),
    ("ttr:8:ordtix:0", OrderControl, ControlId(8, "ordtix", number=0)),
    ("ttr:8:ordcancel:17", OrderControl, ControlId(8, "ordcancel", number=17)),
    ("ttr:8:ordrepl:17", OrderControl, ControlId(8, "ordrepl", number=17)),
    ("ttr:8:ordpay:1.42", OrderControl, ControlId(8, "ordpay", 42, 1)),
    ("ttr:6:hfirst", RecordsControl, ControlId(6, "hfirst")),
    ("ttr:6:hlast", RecordsControl, ControlId(6, "hlast")),
    ("ttr:6:hpage:3", RecordsControl, ControlId(6, "hpage", number=3)),
    ("ttr:6:rturn:14", RecordsControl, ControlId(6, "rturn", number=14)),
]


@pytest.mark.parametrize(("custom_id", "family", "control"), SENT)
def test_each_sent_custom_id_is_taken_by_its_one_family(custom_id, family, control):
    assert taken_by(custom_id) == [family]
    assert parse(custom_id) == control
    assert str(control) == custom_id and len(custom_id) <= 100  # the id it is sent with


def test_every_family_is_registered_and_no_two_share_an_action():
    assert set(FAMILIES) == {family for _, family, _ in SENT}
    owners: dict[str, set[type]] = {}
    for _, family, control in SENT:
        owners.setdefault(control.action, set()).add(family)
    assert all(len(families) == 1 for families in owners.values()), owners


@pytest.mark.parametrize("bad", [
    "ttr:", "ttr:1", "ttr:1:up", "ttr:1:up:3", "ttr:1:blind", "ttr:1:blind:1.2", "ttr:1:keep:3",
    "ttr:01:hand", "ttr:1:HAND", "ttr:1:hand ", "ttr:1:nope:1", "ttr:1:join:5", "ttr:0:hand",
    "ttr:5:pick", "ttr:5:pick:2", "ttr:5:pick:x.1", "ttr:5:pick:1.2.3", "ttr:1:upt:3",
    "ttr:1:shipdeck:1.2", "ttr:1:ups", "ttr:1:pick:1.1234567890", "ttr:1:hpage", "ttr:1:claimto",
])
def test_a_malformed_id_is_taken_only_by_the_refusal(bad):
    assert parse(bad) is None
    assert taken_by(bad) == [CONTROLS[-1]]  # Unrecognised: "not valid (any more)"


def _button(custom_id: str) -> dict:
    return {"type": 2, "style": 2, "label": "x", "custom_id": custom_id}


async def test_buttons_an_older_bot_sent_still_work(table):
    """Buttons on a message this process never sent, with ids written as the old router
    parsed them: the families registered at start-up take them (also after a restart)."""
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.stored_state()
    while state.phase != "turn":  # the opening tickets kept
        state = await table.step()
    await table.restart()  # a new process: only what it registered at start-up answers
    gid, user = table.game_id, table.seat_user(state, state.current)
    old = table.fake.plant(table.fake.CHANNEL_ID, [
        _button(f"ttr:{gid}:hand"), _button(f"ttr:{gid}:blind:{state.version}")])
    ex = await table.click(user, old, custom_id=f"ttr:{gid}:hand")
    assert ex.reply.ephemeral and "not valid" not in ex.text
    ex = await table.click(user, old, custom_id=f"ttr:{gid}:blind:{state.version}")
    assert (await table.stored_state()).version == state.version + 1
    history = table.fake.plant(table.fake.CHANNEL_ID, [_button(f"ttr:{gid}:hfirst")])
    ex = await table.click(user, history, custom_id=f"ttr:{gid}:hfirst")
    assert "not valid" not in ex.text and ex.replies
