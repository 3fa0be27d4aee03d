"""Slash commands during a game: board, hand, status, autocomplete from legal actions."""

from __future__ import annotations

import json

import pytest

import engine
from bot import i18n
from bot.edge.client import TTRBot
from bot.edge.testing import FakeDiscord
from bot.ops.config import Settings
from bot.play import presenters
from bot.play.handlers import typed_colour
from engine import BuildStation, Claim


async def _turn(table):
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    return state


async def test_board_hand_and_status(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.stored_state()
    user = table.seat_user(state, 0)
    ex = await table.slash(user, "hand")
    assert ex.reply.ephemeral and "Your hand" in ex.text
    assert ex.reply.files[0][1].startswith(b"HAND")
    assert any(c.startswith(f"ttr:{table.game_id}:keep") for c in ex.reply.custom_ids())
    ex = await table.slash(user, "status")
    assert ex.reply.ephemeral and "Setup" in ex.text and "You must act now" in ex.text
    state = await _turn(table)
    old_table = table.fake.last_board()
    ex = await table.slash(table.seat_user(state, 0), "board")
    # The table message moves to the bottom with a fresh image; the answer is private.
    assert ex.reply.ephemeral and ex.callback_types == [5] and f"Turn {state.turn}" in ex.text
    (post,) = [s for s in ex.sent if s.public and not s.edit]
    assert post.files[0][1].startswith(b"BOARD") and table.fake.last_board().id == post.id
    assert f"ttr:{table.game_id}:blind:{state.version}" in post.custom_ids()
    assert table.fake.message(old_table.id).custom_ids() == []  # the old one keeps no buttons
    ex = await table.slash(table.seat_user(state, 1 - state.current), "tickets")
    assert "turn" in ex.text and (await table.stored_state()).version == state.version


async def test_autocomplete_offers_the_legal_claims_and_stations(table):
    await table.open_game(["Ana", "Ben"], "europe")
    state = await _turn(table)
    for _ in range(200):  # draw until the current player can claim and build
        legal = engine.legal_actions(state, state.current)
        if state.phase == "turn" and any(isinstance(a, Claim) for a in legal) and any(
                isinstance(a, BuildStation) for a in legal):
            break
        state = await table.step(prefer="draw-only")
    user = table.seat_user(state, state.current)
    legal = engine.legal_actions(state, state.current)
    routes = {str(a.route) for a in legal if isinstance(a, Claim)}
    got = await table.fake.autocomplete(table.bot, user, "claim", "route", route="")
    assert {c["value"] for c in got} <= routes and (len(got) == min(25, len(routes)))
    some = next(a for a in legal if isinstance(a, Claim))
    colours = await table.fake.autocomplete(table.bot, user, "claim", "colour",
                                            route=str(some.route), colour="")
    expected = {next((c for c in a.cards if c != "locomotive"), "locomotive")
                for a in legal if isinstance(a, Claim) and a.route == some.route}
    assert {c["value"] for c in colours} == expected
    cities = await table.fake.autocomplete(table.bot, user, "station", "city", city="")
    assert cities and all(c["value"] in {a.city for a in legal if isinstance(a, BuildStation)}
                          for c in cities)
    # Typing narrows the list; others get nothing (it is not their turn).
    name = cities[0]["name"]
    narrowed = await table.fake.autocomplete(table.bot, user, "station", "city", city=name[:4])
    assert name in [c["name"] for c in narrowed]
    other = table.seat_user(state, 1 - state.current)
    assert await table.fake.autocomplete(table.bot, other, "claim", "route", route="") == []
    market = await table.fake.autocomplete(table.bot, user, "draw", "card", card="")
    assert market[0]["value"] == "deck" and len(market) >= 2


def test_a_typed_colour_is_read_in_either_language():
    assert typed_colour("usa", "red") == typed_colour("usa", " Rot ") == "red"
    assert typed_colour("europe", "schwarz") == typed_colour("europe", "Black") == "black"
    assert typed_colour("usa", "Lokomotive") == typed_colour("usa", "locomotive") == "locomotive"
    assert typed_colour("world", "Joker") == "locomotive"
    assert typed_colour("usa", "mauve") == "mauve"  # the engine refuses it, saying why
    assert typed_colour("usa", "") is None and typed_colour("usa", None) is None


async def test_a_claim_by_typed_city_names_with_locomotives(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await _turn(table)
    for _ in range(300):
        claims = [a for a in engine.legal_actions(state, state.current)
                  if isinstance(a, Claim) and a.cards.get("locomotive")]
        if state.phase == "turn" and claims:
            break
        state = await table.step(prefer="draw-only")
    action = claims[0]
    route = state.board.map.routes[state.board.route_index[action.route]]
    names = {c.id: c.name for c in state.board.map.cities}
    colour = next((c for c in action.cards if c != "locomotive"), "locomotive")
    with i18n.language("de"):  # typed in German ("Rot", "Lokomotive"), not picked
        typed = presenters.card_label("usa", colour).capitalize()
    assert typed.lower() != colour
    user = table.seat_user(state, state.current)
    ex = await table.slash(user, "claim", route=f"{names[route.a]} {names[route.b]}",
                           colour=typed, locomotives=action.cards["locomotive"])
    assert "You claimed" in ex.text or "tunnel" in ex.text.lower(), ex.text
    after = await table.stored_state()
    assert after.version == state.version + 1


@pytest.mark.slow
async def test_real_renderer_images_in_a_short_game(tmp_path):
    """The real renderer behind the bot: PNG boards in the channel, PNG hands by DM."""
    fake = FakeDiscord()
    bot = TTRBot(Settings(token="t", db_path=str(tmp_path / "db.sqlite3")))
    await fake.connect(bot)
    try:
        ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
        lobby = (await fake.slash(bot, ana, "new", map="usa")).reply
        await fake.click(bot, ben, lobby, label="Join")
        await fake.click(bot, ana, lobby, label="Start")
        for uid in (ana, ben):
            dm = fake.dms(uid)[-1]
            assert dm.files[0][1].startswith(b"\x89PNG")
            options = dm.control(prefix="ttr:1:keep")["options"]
            await fake.choose(bot, uid, dm, [o["value"] for o in options])
        board = fake.last_board()
        assert board.files and board.files[0][1].startswith(b"\x89PNG")
        assert fake.unexpected == []
    finally:
        await bot.close()


async def test_ttr_hand_gives_the_renderer_the_plan_its_text_shows(table):
    """``/ttr hand`` works the planner out once, for its text, and hands that answer to the
    renderer (the worker worked it out again for the picture)."""
    import dataclasses

    await table.open_game(["Ana", "Ben"], "europe")
    state = await _turn(table)
    seat = state.current
    plain = table.bot.renderer
    given = []

    def hand(view, map_id, public=None, plans=None):
        given.append((view, public, plans))
        return plain.hand(view, map_id, public, plans)

    table.bot.renderer = dataclasses.replace(plain, hand=hand)
    try:
        await table.slash(table.seat_user(state, seat), "hand")
    finally:
        table.bot.renderer = plain
    [(view, public, plans)] = given
    assert public is not None and plans and plans == presenters.ticket_plans(public, view)


async def test_the_hand_shows_the_ticket_plan_only_to_its_player(table):
    await table.open_game(["Ana", "Ben"], "europe")
    state = await _turn(table)
    seat = state.current
    user = table.seat_user(state, seat)
    ex = await table.slash(user, "hand")
    plans = presenters.ticket_plans(engine.public_view(state), engine.private_view(state, seat))
    text = presenters.planner_text("europe", plans)
    assert plans and ex.reply.ephemeral and "**Your ticket plan:**" in ex.text
    assert text.splitlines()[1] in ex.text  # the first ticket's line, as the planner says
    assert json.loads(ex.reply.files[0][1][4:])["with_plan"]  # and drawn on the image
    dms = [table.fake.message(dm.id).content for dm in table.fake.dms(user)]
    assert any("**Your ticket plan:**" in c for c in dms)
    assert not any("ticket plan" in s.content for s in table.fake.channel_messages())
    with i18n.language("de"):
        german = presenters.planner_text("europe", plans)
    assert german.startswith("**Dein Plan für die Zielkarten:**")
    assert len(german.splitlines()) == len(plans) + 1
