"""Rails & Sails (World) through discord.py's real dispatch: the secret piece split, two
decks and the refill choice, ship and train claims, harbors, exchanges."""

from __future__ import annotations

import json
import re

import pytest

import engine
from bot.play.claiming import claim_colour as colour_of
from bot.play.presenters import route_label
from engine import Claim
from engine.extras import ExtraPoints


async def _to_turn(table, prefer=""):
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step(prefer)
    return state


@pytest.mark.slow
async def test_two_player_world_game_to_the_end(table):
    await table.open_game(["Ana", "Ben"], "world")
    state = await table.play_to_end(prefer="harbors")
    table.assert_quiet_channel(state)

    assert state.phase == "game_over"
    counts = table.counts
    assert counts["choose_pieces"] == 2
    assert counts.get("build_harbor", 0) >= 1
    assert counts.get("exchange_pieces", 0) >= 1
    assert counts.get("refill_train", 0) > 0 and counts.get("refill_ship", 0) > 0
    assert counts.get("blind_train", 0) > 0 and counts.get("blind_ship", 0) > 0
    public = table.fake.channel_messages()
    texts = "\n".join(s.content for s in public)
    assert "has chosen their pieces" in texts
    assert "⚓" in texts and "built a harbor in" in texts
    # Every exchange says which way and how many (the splits are public by then).
    assert re.search(r"(Ana|Ben) exchanged (\d+) (trains?|ships?) for \2 (ships?|trains?) \(−\2\)",
                     texts)
    assert " sea route of " in texts and "double ship" in texts  # ship routes were claimed
    assert "joker" in texts and "locomotive" not in texts  # a joker by its name here
    # Two decks, two refills: the board has both deck buttons.
    board = next(s for s in public if "Ship deck" in str(s.message["components"]))
    labels = [c.get("label") for c in board.controls()]
    assert "Train deck" in labels and "Ship deck" in labels and "My hand" in labels
    table.assert_no_secrets_before_final()
    assert counts["piece_lines_checked"] > 0 and counts["exchange_lines_checked"] > 0
    table.assert_hands_show_shares(state)  # every private image went to its own player
    final = next(s for s in public if "Final scores" in s.content)
    view = json.loads(final.files[0][1][5:])
    extras = [str(ExtraPoints.model_validate(e)) for p in view["final"]["players"]
              for e in p["extras"]]
    assert any("harbor" in label for label in extras)
    assert any(label.endswith(" exchanged") for label in extras)


async def test_a_face_up_card_asks_which_deck_refills_it(table):
    await table.open_game(["Ana", "Ben"], "world")
    state = await _to_turn(table)
    user = table.seat_user(state, state.current)
    board = table.fake.last_board()
    before = engine.public_view(state)
    ex = await table.click(user, board, prefix=f"ttr:{table.game_id}:up:3.")
    ask = ex.reply
    assert ask.ephemeral and "Which deck refills the market?" in ask.content
    assert [c["label"] for c in ask.controls()] == [
        f"Train deck ({before.deck} left)", f"Ship deck ({before.ship_deck} left)"]
    assert (await table.stored_state()).version == state.version  # nothing taken yet
    ex = await table.click(user, ask, label=f"Ship deck ({before.ship_deck} left)")
    after = await table.stored_state()
    assert after.version == state.version + 1 and after.phase == "second_draw"
    view = engine.public_view(after)
    assert view.ship_deck == before.ship_deck - 1 and view.deck == before.deck
    assert "You drew" in ex.text and "Take your second card" in ex.text
    # The same question by command; 'deck' alone is ambiguous on this map.
    ex = await table.slash(user, "draw", card="deck")
    assert "`train` or `ship`" in ex.text
    ex = await table.slash(user, "draw", card="1")
    assert "Which deck refills" in ex.text
    ex = await table.click(user, ex.reply, prefix=f"ttr:{table.game_id}:upt:0.")
    done = await table.stored_state()
    assert done.version == after.version + 1 and done.current != state.current
    assert engine.public_view(done).deck == view.deck - 1


async def test_pieces_are_chosen_right_after_keeping_tickets(table):
    """No waiting for the others' tickets (seed 002): the pieces' buttons come by DM at once."""
    await table.open_game(["Ana", "Ben"], "world")
    state = await table.stored_state()
    seat = 0
    user = table.seat_user(state, seat)
    keep = engine.KeepTickets(tickets=[state.board.t_ids[t] for t in state.offered[seat][:3]])
    await table.play(state, seat, keep)
    state = await table.stored_state()
    assert state.phase == "choose_initial_tickets" and state.offered[1]
    dm = table.fake.message(table.fake.dms(user)[-1].id)
    assert "20 trains + 40 ships" in [c.get("label") for c in dm.controls()]
    ex = await table.slash(user, "status")
    assert "then your 60 pieces" in ex.text and "You must act now" in ex.text
    assert "10 trains + 50 ships" in ex.text  # the presets, to the chooser only
    ex = await table.slash(table.seat_user(state, 1), "exchange", trains=20)
    assert "keep your tickets first" in ex.text
    await table.click(user, dm, label="20 trains + 40 ships")
    state = await table.stored_state()
    assert state.ext["rs"]["chosen"] == [True, False] and state.phase == "choose_initial_tickets"
    assert "20 trains" not in (await table.slash(user, "status")).text  # still secret


async def test_pieces_by_command_and_claims_with_ships(table):
    await table.open_game(["Ana", "Ben"], "world")
    state = await table.stored_state()
    while state.phase != "choose_pieces":
        state = await table.step()
    seat = engine.waiting_for(state)[0]
    user = table.seat_user(state, seat)
    ex = await table.slash(user, "status")
    assert "Choose your 60 pieces" in ex.text and "You must act now" in ex.text
    assert "10 trains + 50 ships" in ex.text  # the presets, to the chooser only
    for bad, why in ((30, "At most 25 trains"), (5, "At most 25 trains and 50 ships")):
        ex = await table.slash(user, "exchange", trains=bad)
        assert why in ex.text, ex.text
    ex = await table.slash(user, "exchange", trains=17)
    assert "You play with 17 trains and 43 ships (secret)" in ex.text
    ex = await table.slash(user, "status")
    assert "17 trains" not in ex.text  # secret while the other player still chooses
    mine = engine.private_view(await table.stored_state(), seat).pieces
    assert (mine["trains"], mine["ships"]) == (17, 43)
    ex = await table.slash(user, "exchange", trains=20)
    assert "already chosen" in ex.text
    state = await _to_turn(table)
    ex = await table.slash(user, "status")  # everyone has chosen: the splits are public
    assert "60 pieces (17 trains, 43 ships)" in ex.text
    for _ in range(200):  # draw until the current player can claim a ship route
        legal = engine.legal_actions(state, state.current)
        ships = [a for a in legal if isinstance(a, Claim) and "ship" in str(a.cards)]
        if state.phase == "turn" and ships:
            break
        state = await table.step(prefer="draw-only")
    user = table.seat_user(state, state.current)
    some = ships[0]
    typed = route_label("world", some.route).split(" (")[0]  # 'Lima–Valparaiso'
    got = await table.fake.autocomplete(table.bot, user, "claim", "route", route=typed)
    shown = {c["value"]: c["name"] for c in got}
    # The route, with how each colour would be paid: ships, double ships, jokers.
    assert "ship" in shown[str(some.route)]
    assert shown[str(some.route)].startswith(typed)
    colours = await table.fake.autocomplete(table.bot, user, "claim", "colour",
                                            route=str(some.route), colour="")
    assert colour_of(some.cards) in [c["value"] for c in colours]
    assert all("ship" in c["name"] for c in colours)
    ex = await table.slash(user, "exchange", trains=0)
    assert "at least one" in ex.text
    ex = await table.slash(user, "claim", route=str(some.route), colour=colour_of(some.cards))
    after = await table.stored_state()
    assert after.version == state.version + 1 and "You claimed" in ex.text
    assert after.owner[after.board.route_index[some.route]] == state.current
