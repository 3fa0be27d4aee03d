"""History, replay and the games list through Discord: the log as the channel saw it, the
board at any turn as the channel saw it, paging buttons across a restart, refusals."""

from __future__ import annotations

import json
import re

import pytest

from bot.play import presenters

HEADING = re.compile(r"\*\*(?:Turn (\d+)|Setup)\*\*(?: · (.*?))?( \(continued\))?$")


def _channel_lines(table) -> list[str]:
    """Every line the channel shows about the play at the end (each board message keeps the
    turns it covered), without the prompts (mentions, who is still choosing) and the final
    scores."""
    lines = []
    for sent in table.fake.channel_now():
        if sent.kind != "channel":
            continue
        if "Final scores" in sent.content:
            break
        for line in sent.content.splitlines():
            if line == presenters.RULE:
                break  # below it, a table message's live status
            if "<@" in line or line.startswith("Choose the destination tickets you keep:"):
                continue
            lines.append(line)
    return lines


def _boards(table) -> list[dict]:
    """The views of the boards posted in the channel, in order."""
    views = [json.loads(data[5:]) for sent in table.fake.channel_messages()
             for _, data in sent.uploaded if data.startswith(b"BOARD")]
    for view in views:
        view.pop("last_move")  # what the test renderer was told to highlight
    return views


async def _read_history(table, user: str):
    """Every page of the game's history, walked with the buttons from the first page:
    (page texts, the last message)."""
    ex = await table.slash(user, "records history")
    message = ex.reply
    assert message.ephemeral
    total = int(re.search(r"page (\d+) of (\d+)", message.content)[2])
    assert f"page {total} of {total}" in message.content  # it opens at the latest page
    ex = await table.click(user, message, label="First")
    texts = [table.fake.message(message.id).content]
    for _ in range(total - 1):
        await table.click(user, message, label="Next")
        texts.append(table.fake.message(message.id).content)
    return texts, message


@pytest.mark.slow
async def test_history_and_replay_of_a_finished_game_match_the_channel(table):
    await table.open_game(["Ana", "Ben"], "usa")
    state = await table.play_to_end()
    texts, message = await _read_history(table, "Ana")
    assert len(texts) > 1
    for i, text in enumerate(texts, start=1):
        assert f"page {i} of {len(texts)}" in text and len(text) < 2000

    # Every event line is one the channel saw, all of them, in the same order.
    body = [line for text in texts for line in text.splitlines()[1:]]
    told = [line[2:] for line in body if line.startswith("• ")]
    assert told == _channel_lines(table)

    # Each turn is headed by its number and by whose turn it was, as the boards showed.
    boards = _boards(table)
    whose = {}
    for view in boards:
        if view["phase"] == "turn":
            whose.setdefault(view["turn"], view["players"][view["current"]]["name"])
    headed = {}
    for line in body:
        m = HEADING.match(line)
        if m and m[1]:
            headed.setdefault(int(m[1]), m[2])
    shown = set(headed) & set(whose)  # turns that began with a new board
    assert shown and all(headed[t] == whose[t] for t in shown)
    assert max(headed) == state.turn

    # The board of a replayed turn is the one the channel got when that turn began.
    first_board = {}
    for view in boards:
        first_board.setdefault(view["turn"], view)
    # (A new board is posted when the board changes: compare the turns that began with one.)
    for turn in sorted(t for t in first_board if t >= 1)[::max(1, len(first_board) // 3)]:
        ex = await table.slash("Ben", "records replay", turn=turn)
        reply = ex.reply
        assert reply.ephemeral and f"as turn {turn} of {state.turn} began" in reply.content
        (_, data), = reply.files
        replayed = json.loads(data[5:])
        assert replayed.pop("last_move") is None and replayed == first_board[turn]
    # Its buttons step to the next turn, in place.
    ex = await table.slash("Ben", "records replay", turn=2)
    await table.click("Ben", ex.reply, label="Turn 3")
    stepped = table.fake.message(ex.reply.id)
    assert "as turn 3 of" in stepped.content
    direct = (await table.slash("Ben", "records replay", turn=3)).reply
    assert stepped.files[0][1] == direct.files[0][1]

    # The buttons keep working after a restart: the custom_id says which page.
    await table.restart()
    await table.click("Ben", message, label="First")
    assert table.fake.message(message.id).content == texts[0]
    await table.click("Ben", message, label="Latest")
    assert table.fake.message(message.id).content == texts[-1]
    await table.click("Ben", message, label="Back")
    assert table.fake.message(message.id).content == texts[-2]
    shown = table.fake.message(message.id)
    assert shown.control(label=f"{len(texts) - 1} / {len(texts)}")["disabled"]

    ex = await table.slash("Ana", "records games")
    assert ex.reply.ephemeral
    assert f"**#{table.game_id}** USA" in ex.text and "finished" in ex.text
    assert f"<#{table.fake.CHANNEL_ID}>" in ex.text
    assert "Ana, Ben" in ex.text or "Ben, Ana" in ex.text


@pytest.mark.slow
async def test_history_of_a_running_game_stops_where_the_channel_is(table):
    await table.open_game(["Ana", "Ben"], "usa")
    for _ in range(12):
        await table.step(prefer="draw-only")
    state = await table.stored_state()
    ex = await table.slash("Ana", "records history")
    told = [line[2:] for line in ex.reply.content.splitlines() if line.startswith("• ")]
    lines = _channel_lines(table)
    assert told and told == lines[len(lines) - len(told):]
    ex = await table.slash("Ana", "records replay", turn=state.turn + 1)
    assert f"has turns 1 to {state.turn}" in ex.text and not ex.reply.files


async def test_refusals(table):
    ex = await table.slash(table.fake.add_user("Cy"), "records history")
    assert "no game in this channel" in ex.text
    ex = await table.slash(table.fake.add_user("Di"), "records games")
    assert "No games on this server" in ex.text

    table.users["Eve"] = table.fake.add_user("Eve")
    ex = await table.slash("Eve", "new", map="usa")
    game_id = int(re.search(r"game #(\d+)", ex.text)[1])
    ex = await table.slash("Eve", "records history")
    assert f"Game #{game_id} has not started" in ex.text
    ex = await table.slash("Eve", "records replay", turn=1)
    assert f"Game #{game_id} has not started" in ex.text
    ex = await table.slash("Eve", "records games")
    assert f"**#{game_id}** USA · lobby" in ex.text

    for game in (game_id + 1, 0, -3):
        ex = await table.slash("Eve", "records history", game=game)
        assert f"There is no game #{game} on this server" in ex.text
    # Another server's game is not shown here.
    async with table.store() as store:
        other = await store.create_game(guild_id=42, channel_id=43, map_id="usa", max_players=2,
                                        host_id=1, host_name="X")
    ex = await table.slash("Eve", "records history", game=other.id)
    assert f"There is no game #{other.id} on this server" in ex.text
    ex = await table.slash("Eve", "records games")
    assert f"#{other.id}" not in ex.text


async def test_replay_refuses_turns_out_of_range(table):
    await table.open_game(["Ana", "Ben"], "usa")
    ex = await table.slash("Ana", "records replay", turn=1)
    assert "no turns to replay yet" in ex.text
    state = await table.stored_state()
    while state.turn < 3:
        state = await table.step()
    for turn in (0, -1, state.turn + 1):
        ex = await table.slash("Ana", "records replay", turn=turn)
        assert f"has turns 1 to {state.turn}: choose one of those" in ex.text, ex.text
        assert not ex.reply.files
    # A forged page number shows the nearest page that exists.
    ex = await table.slash("Ana", "records history")
    forged = table.fake.plant(ex.reply.channel_id, [
        {"type": 2, "style": 2, "label": "Far", "custom_id": f"ttr:{table.game_id}:hpage:999"}])
    await table.click("Ana", forged, label="Far")
    assert "page 1 of 1" in table.fake.message(forged.id).content
