"""Whole games through discord.py's real dispatch: slash commands, buttons, selects."""

from __future__ import annotations

import json

import pytest

from engine.extras import ExtraPoints


@pytest.mark.slow
async def test_two_player_usa_game_to_the_end(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.play_to_end()
    table.assert_quiet_channel(state)

    assert state.phase == "game_over"
    public = table.fake.channel_messages()
    final = [s for s in public if "Final scores" in s.content]
    assert len(final) == 1
    assert final[0].files and final[0].files[0][1].startswith(b"FINAL")
    for name in ("Ana", "Ben"):
        assert name in final[0].content
    # Every turn's board went to the channel with the public facts of the turn.
    boards = [s for s in public if any(d.startswith(b"BOARD") for _, d in s.files)]
    assert len(boards) >= state.turn - 1
    assert any("claimed" in s.content for s in public)
    # DMs carried the private part: the hand image and the ticket choice.
    for uid in table.users.values():
        dms = table.fake.dms(uid)
        assert dms and dms[0].files[0][1].startswith(b"HAND")
    table.assert_no_secrets_before_final()
    assert {"keep_tickets", "claim"} <= set(table.counts)
    assert table.counts.get("draw_face_up", 0) + table.counts.get("draw_blind", 0) > 0
    assert table.counts.get("blind_lines_checked", 0) > 0


@pytest.mark.slow
async def test_four_player_europe_with_tunnels_stations_and_a_refused_dm(table):
    await table.open_game(["Ana", "Ben", "Cy", "Di"], "europe", refuse_dms=("Cy",))
    cy = table.users["Cy"]
    state = await table.play_to_end(prefer="tunnels")
    table.assert_quiet_channel(state)

    assert state.phase == "game_over"
    assert table.fake.dms(cy) == []
    assert table.counts.get("build_station", 0) >= 1
    assert table.counts.get("pay_tunnel", 0) + table.counts.get("decline_tunnel", 0) >= 1
    public = table.fake.channel_messages()
    assert any("tried the tunnel" in s.content for s in public)
    assert any("built a station" in s.content for s in public)
    notice = [s for s in public if f"<@{cy}>: I cannot DM you" in s.content]
    assert notice, "the channel must tell Cy to use My hand"
    async with table.store() as store:
        assert await store.dm_refused_at(cy) is not None
    # The others got their DMs all game long.
    assert all(table.fake.dms(table.users[n]) for n in ("Ana", "Ben", "Di"))
    table.assert_no_secrets_before_final()
    final = next(s for s in public if "Final scores" in s.content)
    view = json.loads(final.files[0][1][5:])
    assert len(view["final"]["players"]) == 4


@pytest.mark.slow
async def test_two_player_nordic_game_to_the_end(table):
    """Nordic's own payments (substitutes on ferries) and free face-up locomotives via the bot."""
    await table.open_game(["Ana", "Ben"], "nordic")
    state = await table.play_to_end()
    table.assert_quiet_channel(state)
    assert state.phase == "game_over"
    assert len([s for s in table.fake.channel_messages() if "Final scores" in s.content]) == 1
    table.assert_no_secrets_before_final()
    assert table.counts.get("claim", 0) > 0


def _final(table):
    public = table.fake.channel_messages()
    finals = [s for s in public if "Final scores" in s.content]
    assert len(finals) == 1
    return finals[0], json.loads(finals[0].files[0][1][5:])


@pytest.mark.slow
async def test_two_player_pennsylvania_with_shares_and_the_neutral_investor(table):
    await table.open_game(["Ana", "Ben"], "pennsylvania")
    state = await table.play_to_end()
    table.assert_quiet_channel(state)

    assert state.phase == "game_over"
    # Share choices were answered with the buttons of each private place they appear in.
    assert table.counts.get("take_share", 0) >= 3
    assert table.counts.get("give_neutral_share", 0) >= 3
    assert set(table.choice_sources) == {"reply", "dm", "hand"}
    public = table.fake.channel_messages()
    assert any("Ana took a share" in s.content or "Ben took a share" in s.content
               for s in public)
    assert any("gave a share to the neutral investor" in s.content for s in public)
    # While a choice waits the board offers only "My hand"; the prompt names no company.
    prompts = [s for s in public if "choose which company's share" in s.content]
    assert prompts and all(s.custom_ids() == [f"ttr:{table.game_id}:hand"] for s in prompts)
    table.assert_no_secrets_before_final()
    assert table.counts["share_lines_checked"] > 0
    table.assert_hands_show_shares(state)
    # The final scores show each player's share points by company, in the text and image.
    final, view = _final(table)
    extras = {p["seat"]: p["extras"] for p in view["final"]["players"]}
    assert any(extras.values())
    for p in view["final"]["players"]:
        for e in p["extras"]:
            extra = ExtraPoints.model_validate(e)
            assert f"{extra} +{extra.points}" in final.content
            assert " shares (" in str(extra)


@pytest.mark.slow
async def test_three_player_pennsylvania_has_no_neutral_investor(table):
    await table.open_game(["Ana", "Ben", "Cy"], "pennsylvania")
    state = await table.play_to_end()
    table.assert_quiet_channel(state)

    assert state.phase == "game_over"
    assert table.counts.get("take_share", 0) >= 3
    assert "give_neutral_share" not in table.counts
    public = table.fake.channel_messages()
    assert not any("neutral" in s.content for s in public)
    table.assert_no_secrets_before_final()
    assert table.counts["share_lines_checked"] > 0
    table.assert_hands_show_shares(state)
    final, view = _final(table)
    assert sum(e["points"] for p in view["final"]["players"] for e in p["extras"]) > 0
    assert "shares (1st)" in final.content
