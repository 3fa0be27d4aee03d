"""Iberia through discord.py's real dispatch: simultaneous ticket drafts picked in private,
festival cards laid out and taken, the festival choice, and nothing secret in the channel."""

from __future__ import annotations

import asyncio
import json

import pytest

import engine
from bot.play.decisions import draft_round
from bot.play.presenters import choice_label
from engine import DraftPick
from engine.extras import ExtraPoints


async def _round_dms(table, state):
    """Each waiting player's newest DM with draft buttons for their current options."""
    out = {}
    for seat in engine.waiting_for(state):
        user = table.seat_user(state, seat)
        dm = table._dm_with(user, "pick", table.option_tag(state, user))
        assert dm is not None, f"seat {seat} has no DM with its draft packet"
        out[seat] = dm
    return out


def _label(table, state, seat, index=0):
    ticket = engine.legal_actions(state, seat)[index]
    assert isinstance(ticket, DraftPick)
    return ticket, choice_label("iberia", ticket)


@pytest.mark.slow
async def test_three_player_iberia_game_to_the_end(table):
    await table.open_game(["Ana", "Ben", "Cy"], "iberia")
    state = await table.play_to_end()
    table.assert_quiet_channel(state)

    assert state.phase == "game_over"
    # Both drafts ran in full: 3 players pick 6 tickets each, twice; each keeps exactly 4.
    assert table.counts["draft_pick"] == 36
    assert table.counts["keep_tickets"] >= 6
    assert table.counts.get("take_festival", 0) >= 1
    assert table.counts["claim"] > 20
    assert set(table.choice_sources) == {"reply", "dm", "hand"}
    public = table.fake.channel_messages()
    texts = [s.content for s in public]
    assert any("Draft round 2 of 6: waiting for" in t for t in texts)
    assert any("Second draft, round 6 of 6: waiting for" in t for t in texts)
    assert any("The draft card came up: the second ticket draft begins" in t for t in texts)
    assert any("A festival card for " in t for t in texts)
    assert any(t.count("took festival cards") for t in texts)
    # While a festival choice waits, the board offers only "My hand"; no pile is named.
    choosing = [s for s in public if "choose which city's festival cards" in s.content]
    assert choosing and all(s.custom_ids() == [f"ttr:{table.game_id}:hand"] for s in choosing)
    # The table message (the empty board) comes with the start; the first draft is private
    # setup and brings no new image.
    start = next(i for i, t in enumerate(texts) if "Iberia** begins" in t)
    first_turn = next(i for i, t in enumerate(texts) if "your turn" in t)
    assert public[start].files[0][1].startswith(b"BOARD")
    assert all(not s.files for s in public[start + 1:first_turn] if not s.edit)
    # Everyone was asked in the channel at each round's start, and told who is still picking.
    starts = [t for t in texts if t.startswith("Draft round") or "\nDraft round" in t]
    assert len(starts) >= 12
    table.assert_no_secrets_before_final()
    assert table.counts["festival_lines_checked"] > 0
    table.assert_hands_show_shares(state)  # every private image went to its own player
    final = next(s for s in public if "Final scores" in s.content)
    view = json.loads(final.files[0][1][5:])
    labels = [str(ExtraPoints.model_validate(e)) for p in view["final"]["players"]
              for e in p["extras"]]
    assert any(" festival (" in label for label in labels)
    assert all(f"{label} " in final.content for label in labels)


@pytest.mark.slow
async def test_tickets_wait_for_the_second_draft(table):
    await table.open_game(["Ana", "Ben"], "iberia")
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    user = table.seat_user(state, state.current)
    ex = await table.slash(user, "tickets")
    assert ex.reply.ephemeral and "only after the second ticket draft" in ex.text
    ex = await table.click(user, table.fake.last_board(), label="Draw tickets")
    assert "only after the second ticket draft" in ex.text
    assert (await table.stored_state()).version == state.version
    ex = await table.slash(user, "rules")
    assert "Ticket draft" in ex.text and "Festival cards" in ex.text
    assert "only after the second ticket draft" in ex.text


async def test_a_draft_round_survives_a_restart(table):
    await table.open_game(["Ana", "Ben", "Cy"], "iberia")
    state = await table.stored_state()
    assert draft_round(state) == (1, 6, False)
    dms = await _round_dms(table, state)
    first, *others = engine.waiting_for(state)
    old_tag = table.option_tag(state, table.seat_user(state, first))
    ticket, label = _label(table, state, first)
    ex = await table.click(table.seat_user(state, first), dms[first], label=label)
    assert f"You picked {label}. Waiting for the others." in ex.text

    await table.restart()  # in the middle of round 1: two players still to pick

    state = await table.stored_state()
    assert engine.waiting_for(state) == others
    # The DM buttons drawn before the restart still work (their tag names the options).
    for seat in others:
        _, label = _label(table, state, seat, index=-1)
        ex = await table.click(table.seat_user(state, seat), dms[seat], label=label)
        assert "You picked" in ex.text, ex.text
    state = await table.stored_state()
    assert draft_round(state) == (2, 6, False)
    assert ticket not in engine.legal_actions(state, first)  # passed on with its packet
    names = ", ".join(state.config.players)
    assert f"Draft round 2 of 6: waiting for {names}." in table.fake.channel_messages()[-1].content
    # Round 2 reached everyone by DM with a new packet; round 1's buttons are stale now. The
    # last to pick, who picked in the DM, has it in the answer there (not asked twice).
    new = await _round_dms(table, state)
    last = others[-1]
    assert all(new[s].id != dms[s].id for s in new if s != last)
    assert new[last].id == dms[last].id
    stale = f"ttr:{table.game_id}:pick:0.{old_tag}"
    button = {"type": 2, "style": 1, "label": "x", "custom_id": stale}
    planted = table.fake.plant(table.fake.CHANNEL_ID, [button])
    ex = await table.click(table.seat_user(state, first), planted, custom_id=stale)
    assert "out of date" in ex.text
    assert (await table.stored_state()).version == state.version


async def test_two_players_pick_in_the_same_round_at_once(table):
    await table.open_game(["Ana", "Ben", "Cy"], "iberia")
    state = await table.stored_state()
    dms = await _round_dms(table, state)
    a, b, c = engine.waiting_for(state)
    clicks = []
    for seat in (a, b):
        _, label = _label(table, state, seat)
        clicks.append(table.click(table.seat_user(state, seat), dms[seat], label=label))
    first, second = await asyncio.gather(*clicks)
    after = await table.stored_state()
    assert after.version == state.version + 2, (first.text, second.text)
    assert engine.waiting_for(after) == [c]
    assert "You picked" in first.text and "You picked" in second.text
    # The picked DM lost its buttons; a second pick this round (an old copy of the
    # button) is refused, and nothing changes.
    assert table.fake.message(dms[a].id).custom_ids() == []
    again_id = f"ttr:{table.game_id}:pick:1.{table.option_tag(state, table.seat_user(state, a))}"
    planted = table.fake.plant(table.fake.CHANNEL_ID, [
        {"type": 2, "style": 1, "label": "x", "custom_id": again_id}])
    again = await table.click(table.seat_user(state, a), planted, custom_id=again_id)
    assert "waiting for the others" in again.text
    assert (await table.stored_state()).version == after.version
    cy = after.config.players[c]
    posts = [s.content for s in table.fake.channel_messages()]
    assert any(p.endswith(f"Draft round 1 of 6: waiting for {cy}.") for p in posts)
    # /ttr status (private) and /ttr board (public) say where the draft stands.
    ex = await table.slash(table.seat_user(after, c), "status")
    assert f"Setup: Draft round 1 of 6: waiting for {cy}." in ex.text
    assert "You must act now" in ex.text and " → " in ex.text  # Cy's own options
    ex = await table.slash(table.seat_user(after, a), "board")
    post = next(s for s in ex.sent if s.public and s.files and not s.edit)  # the table
    assert f"Draft round 1 of 6: waiting for {cy}." in post.content
    assert " → " not in post.content and post.custom_ids() == [f"ttr:{table.game_id}:hand"]


@pytest.mark.slow
async def test_two_player_iberia_with_a_player_who_refuses_dms(table):
    """The drafts and festival choices go through "My hand" alone for a player without DMs."""
    await table.open_game(["Ana", "Ben"], "iberia", refuse_dms=("Ben",))
    ben = table.users["Ben"]
    state = await table.play_to_end()
    table.assert_quiet_channel(state)
    assert state.phase == "game_over"
    assert table.fake.dms(ben) == []
    assert table.counts["draft_pick"] >= 12
    notices = [s for s in table.fake.channel_messages()
               if f"<@{ben}>: I cannot DM you" in s.content]
    assert len(notices) == 1  # said once (issue 27); each draft round's ping names My hand
    table.assert_no_secrets_before_final()
