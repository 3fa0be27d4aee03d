"""Refusals that are about who may act when, not about the cards: turn order, phases, seats."""

from __future__ import annotations

import pytest

from engine import (
    BuildStation,
    Claim,
    DeclineTunnel,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    KeepTickets,
    PayTunnel,
    apply,
    legal_actions,
    new_game,
    waiting_for,
)
from engine.state import GameConfig, GameState

TURN_ACTIONS = [
    DrawBlind(),
    DrawFaceUp(slot=0),
    DrawTickets(),
    Claim(route=1, cards={"red": 2}),
    BuildStation(city="paris", cards={"red": 1}),
]
IDS = ["blind", "face_up", "tickets", "claim", "station"]


@pytest.mark.parametrize("action", TURN_ACTIONS, ids=IDS)
def test_acting_out_of_turn_names_whose_turn_it_is(started, set_hand, illegal, action):
    state = started("europe", 3)
    other = (state.current + 1) % 3
    set_hand(state, other, {"red": 5})
    illegal(state, other, action, f"It is {state.config.players[state.current]}'s turn, not yours.")


@pytest.mark.parametrize("seat", [-1, 3, 5])
def test_a_seat_outside_the_game_is_refused(started, illegal, seat):
    state = started("usa", 3)
    illegal(state, seat, DrawBlind(), "You are not seated in this game.")


@pytest.mark.parametrize(
    "action", [*TURN_ACTIONS[2:], KeepTickets(tickets=[1])], ids=[*IDS[2:], "keep"]
)
def test_after_one_card_only_a_second_card_may_follow(
    started, set_hand, set_deck_top, illegal, action
):
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 5})
    set_deck_top(state, ["white"])
    apply(state, seat, DrawBlind())
    illegal(
        state,
        seat,
        action,
        "Finish your draw first: take a second card from the market or the deck.",
    )


@pytest.mark.parametrize("action", TURN_ACTIONS, ids=IDS)
def test_no_turn_action_before_everyone_chose_initial_tickets(illegal, action):
    state = new_game(GameConfig(map_id="europe", players=["Ann", "Bob"], seed=3))
    illegal(
        state,
        state.current,
        action,
        "Everyone is still choosing their first destination tickets.",
    )


def test_waiting_for_lists_who_must_still_choose_initial_tickets():
    state = new_game(GameConfig(map_id="usa", players=["Ann", "Bob", "Cid"], seed=3))
    assert waiting_for(state) == [0, 1, 2]
    apply(state, 1, KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[1]]))
    assert waiting_for(state) == [0, 2]
    assert legal_actions(state, 1) == []


def test_waiting_for_is_the_current_player_during_turns(started):
    state = started("usa", 3)
    assert waiting_for(state) == [state.current]
    assert legal_actions(state, (state.current + 1) % 3) == []


@pytest.mark.parametrize("action", [PayTunnel(), DeclineTunnel()], ids=["pay", "decline"])
def test_tunnel_answers_outside_a_tunnel(started, illegal, action):
    state = started("usa", 2)
    illegal(
        state,
        state.current,
        action,
        "You cannot do that now: choose an action for your turn.",
    )


def test_face_up_slot_beyond_the_market(started, illegal):
    state = started("usa", 2)
    illegal(state, state.current, DrawFaceUp(slot=7), "There is no face-up card in slot 8.")


def test_legal_actions_are_all_accepted(started, set_hand):
    """Every action ``legal_actions`` offers at the start of a turn is accepted by ``apply``."""
    state = started("europe", 2)
    seat = state.current
    set_hand(state, seat, {"red": 3, "locomotive": 2})
    snapshot = state.to_snapshot()
    actions = legal_actions(state, seat)
    assert any(isinstance(a, Claim) for a in actions)
    assert any(isinstance(a, BuildStation) for a in actions)
    for action in actions[:: max(1, len(actions) // 60)]:
        copy = GameState.from_snapshot(snapshot)
        apply(copy, seat, action)
