"""Standing orders through the fake Discord (``bot.seats.orders``, ``order_controls``): queued
under **My hand**, played the moment the turn comes without a ping, dropped with a private
note, kept across restarts, and never shown to anyone else."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import engine
from bot.edge.testing import Sent
from bot.seats.orders import due
from bot.settings.preferences import ServerSettings
from bot.storage.api import OrderRow
from bot.storage.sqlite import SqliteStorage
from engine import GameState
from engine.payment import can_afford
from tests.bot.conftest import BACKENDS, Table


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def first_turn(table: Table) -> GameState:
    """Past the first tickets, at the start of the first turn."""
    state = await table.stored_state()
    while state.phase != "turn":
        state = await table.step()
    return state


async def bens_turn(table: Table, **options: object) -> tuple[GameState, int]:
    """A new game of Ana and Ben (``options`` for ``/ttr new``) at the start of Ben's first
    turn, so that Ana may queue orders; the state, and Ana's seat."""
    await table.open_game(["Ana", "Ben"], "usa", **options)
    state = await first_turn(table)
    while state.config.players[state.current] != "Ben":
        state = await table.step()
    return state, seat_of(table, state, "Ana")


async def panel(table: Table, name: str) -> Sent:
    """The standing-orders list, opened from **My hand**."""
    hand = (await table.slash(name, "hand")).reply
    return (await table.click(name, hand, label=table.t("Standing orders"))).reply


async def choose(table: Table, name: str, message: Sent, prefix: str, value: str) -> Sent:
    ex = await table.fake.choose(table.bot, table.users[name], message, [value],
                                 prefix=f"ttr:{table.game_id}:{prefix}")
    return ex.reply


async def queued(table: Table, name: str) -> list[str]:
    async with table.store() as store:
        rows = await store.orders(table.game_id)
    return [r.spec for r in rows if r.user_id == table.users[name]]


def seat_of(table: Table, state: GameState, name: str) -> int:
    return table.seat_of(state, table.users[name])


async def others_turn(table: Table, state: GameState, seat: int, *, jobs: bool = True
                      ) -> tuple[GameState, list[Sent]]:
    """Play the current (other) seat's turn to its end, and then the due jobs (``seat``'s
    order may have played already: the scheduler's loop runs it at once); what the bot
    sent meanwhile."""
    assert state.current != seat
    start, turn = len(table.fake.sent), state.turn
    while state.phase != "game_over" and state.turn == turn:
        other = state.current
        assert other is not None
        await table.play(state, other, table.choose(state, other, ""))
        state = await table.stored_state()
    if jobs:
        await table.advance(seconds=1)
    return await table.stored_state(), table.fake.sent[start:]


async def stop_loop(table: Table) -> None:
    """Only ``table.advance`` runs jobs from now on (until a restart): a test sees the turn
    handed over before the order plays."""
    assert table.bot.scheduler is not None
    await table.bot.scheduler.stop()


def pinged(table: Table, sent: list[Sent], name: str) -> bool:
    """Whether ``sent`` mentions ``name`` in the channel or DMs them."""
    user = table.users[name]
    return any((s.public and f"<@{user}>" in s.content) or (s.kind == "dm" and s.user_id == user)
               for s in sent)


async def bot_played(table: Table, seat: int, after: int) -> list[engine.Action]:
    """The actions the bot played for ``seat`` after version ``after``."""
    async with table.store() as store:
        rows = await store.actions(table.game_id, after=after)
    return [engine.ACTION_ADAPTER.validate_json(r.action) for r in rows
            if r.seat == seat and r.user_id is None]


async def test_an_order_plays_the_moment_the_turn_comes_without_a_ping(table: Table) -> None:
    state, ana = await bens_turn(table, timer=2)
    shown = await panel(table, "Ana")
    assert shown.ephemeral and "No orders yet." in shown.content
    shown = await choose(table, "Ana", shown, "orddraw", "any")
    assert "1. Draw two cards from the deck" in shown.content
    assert await queued(table, "Ana") == ['{"type":"draw","colour":null}']

    version = state.version
    await stop_loop(table)
    state, sent = await others_turn(table, state, ana, jobs=False)
    assert state.current == ana and not pinged(table, sent, "Ana")  # ready: no mention, no DM
    async with table.store() as store:
        jobs = [j for j in await store.jobs(table.game_id, pending=False)
                if j.seat == ana and j.version == state.version]
    assert [j.kind for j in jobs] == ["order"]  # no reminder, no timer while it holds
    sent = await table.advance(seconds=1)
    played = await bot_played(table, ana, version)
    assert [type(a) for a in played] == [engine.DrawBlind, engine.DrawBlind]
    state = await table.stored_state()
    assert state.config.players[state.current] == "Ben"
    assert await queued(table, "Ana") == []  # played: gone from the list
    assert not pinged(table, sent, "Ana")
    table.assert_orders_secret("Ana")


async def test_an_order_that_cannot_be_played_is_dropped_with_a_private_note(
        table: Table) -> None:
    state, ana = await bens_turn(table, timer=2)
    shown = await panel(table, "Ana")
    # A route Ana cannot pay for, claimed in its own colour, with nothing else to do.
    board = state.board
    routes = [c for c in shown.control(prefix=f"ttr:{table.game_id}:ordroute")["options"]]
    unpayable = next(int(o["value"]) for o in routes if not can_afford(
        board, board.route_index[int(o["value"])], state.hands[ana]))
    asked = await choose(table, "Ana", shown, "ordroute", str(unpayable))
    colour = board.map.routes[board.route_index[unpayable]].color
    value = "any:drop" if colour == "gray" else f"{colour}:drop"
    shown = await choose(table, "Ana", asked, "ordpay", value)
    assert "1. Claim " in shown.content and "if it is still open" in shown.content

    await stop_loop(table)
    state, sent = await others_turn(table, state, ana, jobs=False)
    assert pinged(table, sent, "Ana")  # it will not hold: the turn is hers as usual
    sent = await table.advance(seconds=1)
    notes = [s for s in sent if s.kind == "dm" and s.user_id == table.users["Ana"]]
    assert len(notes) == 1 and "was dropped" in notes[0].content
    assert "You cannot" in notes[0].content
    assert await queued(table, "Ana") == []
    assert await bot_played(table, ana, state.version) == []  # her turn waits for her
    async with table.store() as store:
        kinds = {j.kind for j in await store.jobs(table.game_id) if j.seat == ana}
    assert kinds == {"remind", "timeout"}  # reminded and timed as ever
    table.assert_orders_secret("Ana")


async def test_orders_and_their_controls_survive_a_restart(table: Table) -> None:
    state, ana = await bens_turn(table)
    shown = await panel(table, "Ana")
    shown = await choose(table, "Ana", shown, "orddraw", "any")
    shown = (await table.click("Ana", shown, prefix=f"ttr:{table.game_id}:ordtix")).reply
    assert "2. Draw destination tickets" in shown.content
    await table.restart()
    # The list sent before the restart still works: replace the first order, cancel none.
    asked = (await table.click("Ana", shown, label=table.t("Replace {n}").format(n=1))).reply
    assert "Choose the new order 1" in asked.content
    shown = await choose(table, "Ana", asked, "orddraw", "any")
    shown = (await table.click("Ana", shown, label=table.t("Cancel {n}").format(n=2))).reply
    assert "2." not in shown.content
    shown = (await table.click("Ana", shown, prefix=f"ttr:{table.game_id}:ordtix")).reply
    assert len(await queued(table, "Ana")) == 2

    version = state.version
    await stop_loop(table)
    state, sent = await others_turn(table, state, ana, jobs=False)
    assert not pinged(table, sent, "Ana")
    await table.restart()  # the order job planned before the restart runs after it
    await table.advance(seconds=1)
    assert [type(a) for a in await bot_played(table, ana, version)] == [
        engine.DrawBlind, engine.DrawBlind]
    assert len(await queued(table, "Ana")) == 1  # the tickets wait for her next turn
    table.assert_orders_secret("Ana")


async def test_an_order_is_played_once_when_the_bot_stops_in_the_middle(table: Table) -> None:
    """A crash after the order was begun and its first card stored: the restart plays the
    second card, not the order again."""
    state, ana = await bens_turn(table)
    await choose(table, "Ana", await panel(table, "Ana"), "orddraw", "any")
    version = state.version
    await stop_loop(table)
    state, _sent = await others_turn(table, state, ana, jobs=False)
    async with table.store() as store:
        (row,) = await store.orders(table.game_id, ana)
        assert await store.begin_order(row.id, state.turn, state.version)
    # The first card as the order's job would have stored it, then the process stops.
    await table.bot.service.act(table.game_id, None, engine.DrawBlind(), seat=ana,
                                expect_version=state.version)
    await table.restart()
    await table.advance(seconds=1)
    assert [type(a) for a in await bot_played(table, ana, version)] == [
        engine.DrawBlind, engine.DrawBlind]
    state = await table.stored_state()
    assert state.config.players[state.current] == "Ben"
    assert await queued(table, "Ana") == []


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sqlite"])
async def test_a_whole_game_with_standing_orders(table: Table) -> None:
    """Ana queues an order on most of Ben's turns: each holds (she is not pinged and it
    plays at once) or is dropped (she is pinged, gets a note and plays herself). Nothing
    of an order reaches the channel or Ben."""
    rng = random.Random(5)
    await table.open_game(["Ana", "Ben"], "usa")
    state = await first_turn(table)
    held = dropped = 0
    kinds: set[type] = set()  # what the orders played
    for _ in range(300):
        if state.phase == "game_over":
            break
        ana = seat_of(table, state, "Ana")
        if state.current == ana:
            state = await table.step(seats=[ana])
            continue
        if not await queued(table, "Ana") and rng.random() < 0.8:
            shown = await panel(table, "Ana")
            kind = rng.choice(["draw", "claim", "claim", "tickets"])
            if kind == "draw":
                await choose(table, "Ana", shown, "orddraw", "any")
            elif kind == "tickets":
                await table.click("Ana", shown, prefix=f"ttr:{table.game_id}:ordtix")
            else:
                options = shown.control(prefix=f"ttr:{table.game_id}:ordroute")["options"]
                route = int(rng.choice(options[:3])["value"])
                asked = await choose(table, "Ana", shown, "ordroute", str(route))
                await choose(table, "Ana", asked, "ordpay",
                             rng.choice(["any:draw", "any:drop"]))
        had_order = bool(await queued(table, "Ana"))
        version = state.version
        state, sent = await others_turn(table, state, ana)
        if state.phase == "game_over":
            break
        played = await bot_played(table, ana, version)
        notes = [s for s in sent if s.kind == "dm" and "was dropped" in s.content]
        if played:
            held += 1
            kinds |= {type(a) for a in played}
            assert had_order and not pinged(table, sent, "Ana"), [s.content for s in sent]
        elif had_order:
            dropped += 1
            assert pinged(table, sent, "Ana") and len(notes) == 1
        state = await table.stored_state()
    assert state.phase == "game_over"
    assert held >= 5 and dropped >= 1, (held, dropped)
    assert {engine.Claim, engine.DrawBlind, engine.DrawTickets, engine.KeepTickets} <= kinds
    table.assert_no_secrets_before_final()
    table.assert_orders_secret("Ana")


async def test_the_list_and_its_controls_speak_german(table: Table) -> None:
    await table.open_game(["Ana", "Ben"], "usa", language="de")
    await first_turn(table)
    shown = await panel(table, "Ana")
    assert shown.content.startswith("📋 Deine Daueraufträge in Spiel #")
    assert "Noch keine Aufträge." in shown.content
    labels = {c.get("label") for c in shown.controls()} | {
        c.get("placeholder") for c in shown.controls()}
    assert {"Zielkarten ziehen, die billigsten behalten", "Zwei Karten ziehen …"} <= labels


def row(id: int, *, user: int = 1, queued: int = 0, played: tuple[int, int] | None = None
        ) -> OrderRow:
    turn, version = played if played is not None else (None, None)
    return OrderRow(id=id, seat=0, user_id=user, position=id, spec='{"type":"draw"}',
                    queued_turn=queued, played_turn=turn, played_version=version)


def test_which_order_speaks_now_and_which_are_spent() -> None:
    state = engine.new_game(engine.GameConfig(map_id="usa", players=["Ana", "Ben"], seed=3))
    for seat in range(2):
        offered = [state.board.t_ids[t] for t in state.offered[seat]]
        engine.apply(state, seat, engine.KeepTickets(tickets=offered))
    state.turn = turn = 5  # (the fifth turn, as though four were played)
    version = state.version
    fresh, old = row(1, queued=4), row(2, queued=5)
    assert due([fresh, old], 1, state) == (fresh, [])
    assert due([old, fresh], 1, state) == (None, [])  # queued this turn: the next one
    theirs = row(3, user=2, queued=1)  # the seat's former player's
    assert due([theirs, fresh], 1, state) == (fresh, [theirs])
    begun = row(4, played=(turn, version))  # begun, then the bot stopped: again
    assert due([begun, fresh], 1, state) == (begun, [])
    undone = row(5, played=(turn, version - 1))  # its move was taken back by an undo
    earlier = row(6, played=(turn - 2, 3))
    assert due([earlier, undone, fresh], 1, state) == (fresh, [earlier, undone])
    engine.apply(state, state.current, engine.DrawBlind())  # the middle of the turn
    assert due([row(7, played=(turn, version)), fresh], 1, state)[0] == row(
        7, played=(turn, version))  # its next step
    assert due([fresh], 1, state) == (None, [])  # the turn was begun by hand


async def test_the_hand_in_a_private_thread_opens_the_orders_too(table: Table) -> None:
    store = table.bot.service.storage
    await store.save_server_settings(table.fake.GUILD_ID, ServerSettings(player_threads=True))
    state, ana = await bens_turn(table)
    thread = next(tid for tid, users in table.fake.thread_members.items()
                  if users == {table.users["Ana"]})
    hand = table.fake.message(next(s.id for s in table.fake.sent
                                   if s.channel_id == thread and not s.edit))
    shown = (await table.click("Ana", hand, label=table.t("Standing orders"))).reply
    assert shown.ephemeral and shown.user_id == table.users["Ana"]
    await choose(table, "Ana", shown, "orddraw", "any")
    version = state.version
    await others_turn(table, state, ana)
    assert [type(a) for a in await bot_played(table, ana, version)] == [
        engine.DrawBlind, engine.DrawBlind]
    table.assert_orders_secret("Ana")


async def test_reading_the_orders_leaves_sqlites_writer_alone(tmp_path: Path) -> None:
    """Every change of a game reads its orders (who is ready): a few rows on the event
    loop, never a trip to the writer's thread, whose commits would wait behind it."""
    store = await SqliteStorage.open(str(tmp_path / "db.sqlite3"))
    try:
        row = await store.create_game(guild_id=1, channel_id=5, map_id="usa", max_players=2,
                                      host_id=100, host_name="Ana")
        assert await store.add_order(row.id, 0, 100, '{"type":"draw"}', queued_turn=1, most=3)
        trips = store.trips
        assert len(await store.orders(row.id)) == len(await store.orders(row.id, 0)) == 1
        assert store.trips == trips
    finally:
        await store.close()


async def test_every_open_route_can_be_queued_page_by_page(table: Table) -> None:
    state, _ana = await bens_turn(table)
    public = engine.public_view(state)
    shut = {*public.claimed, *public.closed}
    open_routes = {r.id for r in state.board.map.routes if r.id not in shut}
    shown = await panel(table, "Ana")
    seen: list[int] = []
    for _ in range(len(open_routes)):
        select = shown.control(prefix=f"ttr:{table.game_id}:ordroute")
        assert len(select["options"]) <= 25
        seen += [int(o["value"]) for o in select["options"]]
        pages = {c.get("label"): c for c in shown.controls()
                 if c.get("custom_id", "").startswith(f"ttr:{table.game_id}:ordpage:")}
        after = [label for label in pages if label == f"Page {len(seen) // 25 + 1}"]
        if not after:
            break
        shown = (await table.click("Ana", shown, label=after[0])).reply
    assert len(seen) == len(set(seen)) and set(seen) == open_routes
    # The last page's route is queued like any other.
    asked = await choose(table, "Ana", shown, "ordroute", str(seen[-1]))
    shown = await choose(table, "Ana", asked, "ordpay", "any:draw")
    assert "1. Claim " in shown.content


async def test_a_claim_order_on_a_route_taken_meanwhile_is_dropped(table: Table) -> None:
    """The issue's example, 'claim X if it is still open': Ben takes X first."""
    state, ana = await bens_turn(table)
    ben, board = state.current, state.board
    assert ben is not None
    claim = next(a for a in engine.legal_actions(state, ben) if isinstance(a, engine.Claim)
                 and not board.r_tunnel[board.route_index[a.route]])
    shown = await panel(table, "Ana")
    while str(claim.route) not in [o["value"] for o in shown.control(
            prefix=f"ttr:{table.game_id}:ordroute")["options"]]:
        (forward,) = [c["custom_id"] for c in shown.controls() if c.get("emoji", {}).get(
            "name") == "▶"]
        shown = (await table.click("Ana", shown, custom_id=forward)).reply
    asked = await choose(table, "Ana", shown, "ordroute", str(claim.route))
    await choose(table, "Ana", asked, "ordpay", "any:drop")
    await stop_loop(table)
    await table.play(state, ben, claim)
    sent = await table.advance(seconds=1)
    (note,) = [s for s in sent if s.kind == "dm" and s.user_id == table.users["Ana"]]
    assert f"{board.route_name(board.route_index[claim.route])} is claimed already." \
        in note.content
    assert await bot_played(table, ana, state.version) == []
    table.assert_orders_secret("Ana")
