"""An interaction delivered twice is applied once; refusals clip what users typed; the tunnel
prompt shows the hand left after the cards played into the tunnel."""

from __future__ import annotations

import pytest

import engine
from bot.edge import components
from bot.play.decisions import tunnel_hand
from engine import GameState


async def _to_turn(table, names=("Ana", "Ben"), map_id="usa"):
    await table.open_game(list(names), map_id)
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    return state


async def test_a_command_delivered_twice_is_applied_once_even_across_a_restart(table):
    state = await _to_turn(table)
    user = table.seat_user(state, state.current)
    payload = table.fake.interaction_payload(2, user, table.fake.command_data(
        "draw", {"card": "deck"}))
    ex = await table.fake.feed(table.bot, payload)
    assert "You drew" in ex.text
    once = await table.stored_state()
    assert once.version == state.version + 1
    again = await table.fake.feed(table.bot, payload)
    assert again.sent == [] and again.callback_types == ex.callback_types  # no new answer
    await table.restart()
    again = await table.fake.feed(table.bot, payload)
    assert again.sent == []
    assert (await table.stored_state()).version == once.version


async def test_a_click_delivered_twice_is_applied_once(table):
    state = await _to_turn(table)
    user = table.seat_user(state, state.current)
    board = table.fake.last_board()
    control = table.fake.message(board.id).control(label="Draw from deck")
    payload = table.fake.component_payload(user, board, control["custom_id"])
    await table.fake.feed(table.bot, payload)
    await table.fake.feed(table.bot, payload)
    assert (await table.stored_state()).version == state.version + 1


async def test_refusals_clip_what_was_typed(table):
    state = await _to_turn(table)
    user = table.seat_user(state, state.current)
    huge = "x" * 10_000
    for sub, options in (("claim", {"route": huge}), ("station", {"city": huge}),
                         ("seat replace", {"member": None, "seat": huge})):
        if sub == "seat replace":
            from bot.edge.testing import Mention
            options["member"] = Mention(table.fake.add_user("Dee"))
        ex = await table.fake.slash(table.bot, user, sub, **options)
        assert ex.text and len(ex.text) < 300, (sub, len(ex.text))
        assert ex.reply.ephemeral
    assert (await table.stored_state()).version == state.version


@pytest.mark.slow
async def test_the_tunnel_prompt_shows_what_is_left_and_whether_it_can_be_paid(table):
    await table.open_game(["Ana", "Ben"], "europe")
    state = await table.stored_state()
    for _ in range(400):
        if state.phase == "tunnel":
            break
        state = await table.step("tunnels")
    assert state.phase == "tunnel"
    seat = state.tunnel.seat
    prompt = table.last_private[table.seat_user(state, seat)]
    left = tunnel_hand(state, seat)
    assert left is not None
    shown = sum(left.hand.values())
    assert shown < sum(engine.private_view(state, seat).hand.values())  # paid cards are out
    assert "Left in your hand" in prompt.content
    pay = prompt.control(label="Pay the extra cards")
    assert bool(pay.get("disabled")) is (not left.payable)
    # The same hand without a single card to pay with: Pay is disabled in private only.
    poor = GameState.from_snapshot(state.to_snapshot())
    poor.hands[seat] = [0] * len(poor.hands[seat])
    none = tunnel_hand(poor, seat)
    assert none is not None and not none.payable and none.hand == {}
    private = engine.private_view(poor, seat)
    public = engine.public_view(poor)
    controls = components.private_view_controls(
        table.game_id, "europe", private, public, poor.version, tunnel_payable=False)
    pay_button = next(i for i in controls.children if getattr(i, "label", "") == "Pay the "
                      "extra cards" or getattr(getattr(i, "item", None), "label", "") ==
                      "Pay the extra cards")
    assert getattr(pay_button, "item", pay_button).disabled
    board = components.board_view(table.game_id, public, poor.version)
    assert not any(getattr(getattr(i, "item", i), "disabled", False) for i in board.children
                   if "pay:" in getattr(getattr(i, "item", i), "custom_id", ""))
