"""Bot test fixtures: a fake Discord, a bot wired to it, and a driver that plays whole games
through slash commands and buttons, choosing moves from ``engine.legal_actions`` of the
stored state."""

from __future__ import annotations

import dataclasses
import json
import random
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import engine
from bot import i18n
from bot.edge.client import TTRBot
from bot.edge.testing import VIOLATIONS, Exchange, FakeClock, FakeDiscord, Sent
from bot.game.images import Renderer
from bot.ops.config import Settings
from bot.ops.database import is_postgres
from bot.play import claiming, presenters
from bot.play.decisions import choice_tag, decisions
from bot.storage.api import Storage
from bot.storage.postgres import PostgresStorage
from bot.storage.sqlite import SqliteStorage
from engine import (
    BuildHarbor,
    BuildStation,
    ChoosePieces,
    Claim,
    DeclineShare,
    DeclineTunnel,
    DraftPick,
    DrawBlind,
    DrawFaceUp,
    DrawTickets,
    ExchangePieces,
    GameState,
    GiveNeutralShare,
    IllegalAction,
    KeepTickets,
    PayTunnel,
    TakeFestival,
    TakeShare,
)
from maps import load_map
from tests.postgres import PgServer

# Module decisions answered with a choice button (``pick:<i>.<tag>``).
OPTION_ACTIONS = (TakeShare, DeclineShare, GiveNeutralShare, DraftPick, TakeFestival,
                  ChoosePieces)
# Words of public lines the secret scan follows, per language: a split of pieces (secret
# until everyone has chosen), an exchange (public after), and the lines it counts; words
# of private texts ("private"), how many festival cards someone holds or took ("holding",
# {piles}: the festival cities) and how many shares ("shares"), never in a channel line.
LEAK_MARKS = {
    "en": {"split": r"\b\d+ (trains?|ships?)\b|trains for ships|ships for trains",
           "exchange": r"exchanged (\d+) (trains?|ships?) for \1 (ships?|trains?) \(−\1\)",
           "exchanged": "exchanged", "festival": "took festival cards",
           "chosen": "chosen their pieces", "share": "took a share",
           "private": r"Your hand|Offered|draft packet|Picked in this draft|Your ",
           "holding": r"\d+ (festival|{piles})|festival \(\d|took \d|holds?\b",
           "shares": r"\d+ shares?\b|shares?:"},
    "de": {"split": r"\b\d+ (Waggons?|Schiffe?)\b",
           "exchange": r"hat (\d+) (Waggons?|Schiffe?) gegen \1 (Schiffe?|Waggons?) getauscht "
                       r"\(−\1\)",
           "exchanged": "getauscht", "festival": "hat Festivalkarten genommen",
           "chosen": "hat die Figuren gewählt", "share": "hat einen Anteilsschein genommen",
           "private": r"Deine Hand|Angeboten|Auswahlpäckchen|in dieser Auswahl|\bDeine?\b",
           "holding": r"\d+ (Festival|{piles})|Festival \S+ \(\d|\d+ genommen|\bhält\b|"
                      r"\bhalten\b",
           "shares": r"\d+ Anteilsscheine?\b|Anteilsscheine?:"},
}
# Private fields of the engine's views that must never reach a channel image.
SECRET_FIELDS = {"hand", "tickets", "offered", "shares", "share_options", "festival_cards",
                 "festival_options", "draft_packet", "draft_picked", "keep_max", "pieces",
                 "harbors_left"}


def json_renderer() -> Renderer:
    """A fast renderer whose bytes are the view it was given and the language its words
    would be in, so tests can read them back."""
    return Renderer(
        board=lambda v, last=None: b"BOARD" + json.dumps(
            {**v.model_dump(mode="json"), "language": i18n.current(),
             "last_move": None if last is None else dataclasses.asdict(last)}).encode(),
        hand=lambda v, m, public=None, plans=None: b"HAND" + json.dumps(
            {**v.model_dump(mode="json"), "language": i18n.current(),
             "with_plan": public is not None}).encode(),
        final=lambda v: b"FINAL" + json.dumps(
            {**v.model_dump(mode="json"), "language": i18n.current()}).encode(),
        timelapse=lambda v, moves: b"TIMELAPSE" + json.dumps(
            {**v.model_dump(mode="json"), "language": i18n.current(),
             "moves": [dataclasses.asdict(m) for m in moves]}).encode(),
    )


def colour_of(cards: dict[str, int]) -> str:
    """The colour a player names for a payment: its first suit ('red' for 'red_ship')."""
    return next((c.split("_")[0] for c, n in cards.items() if n and c != "locomotive"),
                "locomotive")


@dataclass
class Table:
    """One bot process (restartable) on one fake Discord, and the players around it."""

    fake: FakeDiscord
    db_path: Path  # the SQLite file (unused while ``database`` is a PostgreSQL URL)
    bot: TTRBot
    database: str = ""  # where the games live: ``db_path``, or a PostgreSQL URL
    clock: FakeClock = field(default_factory=FakeClock)
    users: dict[str, int] = field(default_factory=dict)
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    game_id: int = 0
    map_id: str = "usa"
    language: i18n.Language = "en"  # of the game's posts (``open_game(language=...)``)
    channel_id: int | None = None  # the game's thread (``open_game(thread=True)``)
    # Every ticket ever dealt to anyone, and blind-drawn cards per turn: for leak checks.
    tickets_seen: set[tuple[str, ...]] = field(default_factory=set)
    last_private: dict[int, Sent] = field(default_factory=dict)  # user -> private controls
    draws: dict[int, dict[str, list[str]]] = field(default_factory=dict)  # seat -> this turn
    counts: dict[str, int] = field(default_factory=dict)
    # Where each answered module decision's button was clicked ("reply", "dm", "hand").
    choice_sources: dict[str, int] = field(default_factory=dict)
    # A newcomer: every action by a button or a select, never a typed command; ``clicks``
    # then counts the interactions each turn took, by turn type ('draw', 'claim', ...).
    buttons_only: bool = False
    typed: list[str] = field(default_factory=list)  # the slash commands used, in order
    clicks: dict[str, list[int]] = field(default_factory=dict)
    # Channels where members follow the game without a seat (``/ttr watch``: their DM
    # channel or private thread): the leak check scans them like the game's channel.
    watched: set[int] = field(default_factory=set)
    _pg_store: PostgresStorage | None = None

    @property
    def uid(self) -> dict[str, int]:
        return self.users

    def t(self, text: str) -> str:
        """A control's label or a text as the bot shows it in this table's language."""
        return i18n.translate(text, {}, self.language)

    @property
    def draw_words(self) -> list[str]:
        """Words of the channel's draw lines ('drew', 'took'), in this table's language."""
        return ["drew", "took"] if self.language == "en" else ["gezogen", "genommen"]

    @property
    def final_mark(self) -> str:
        return self.t("🏁 **Final scores**")

    @property
    def private_marks(self) -> list[str]:
        """Heads of private texts (a hand, an offer, a draft packet) that a channel line
        must never carry, in this table's language."""
        return [self.t(m).split("{")[0].strip() for m in (
            "**Your hand:** {cards}", "**Offered — {rule}:**", "**Your tickets:**",
            "**Your draft packet — pick one:**", "**Your festival cards:** {piles}",
            "**Your shares:** {shares}", "**Left in your hand:** {cards}",
            "**Your ticket plan:**", *ORDER_MARKS)]

    def assert_orders_secret(self, *owners: str) -> None:
        """Standing orders (their list, the note when one is dropped) reach only their
        player: never a channel, never another member."""
        marks = [self.t(m).split("{")[0].strip() for m in ORDER_MARKS]
        allowed = {self.users[name] for name in owners}
        seen = 0
        for sent in self.fake.sent:
            if any(mark in sent.content for mark in marks):
                assert not sent.public and sent.user_id in allowed, sent.content
                seen += 1
        assert seen  # (the marks are still the texts the bot sends)

    async def restart(self) -> None:
        """Stop the bot and start a new process on the same database and Discord."""
        await self.bot.close()
        self.bot = make_bot(self.database or self.db_path, clock=self.clock)
        await self.fake.connect(self.bot)
        self.bot.service.seeds = random.Random(self.rng.random())

    async def advance(self, hours: float = 0.0, *, seconds: float = 0.0) -> list[Sent]:
        """Move the clock forward and run every job that fell due; what the bot sent."""
        start = len(self.fake.sent)
        self.clock.advance(hours * 3600 + seconds)
        assert self.bot.scheduler is not None
        await self.bot.scheduler.run_due()
        return self.fake.sent[start:]

    async def slash(self, user: str | int, sub: str, **options: Any) -> Exchange:
        self.typed.append(sub)
        uid = self.users[user] if isinstance(user, str) else user
        return await self.fake.slash(self.bot, uid, sub, channel_id=self.channel_id, **options)

    async def click(self, user: str | int, message: Sent, **how: Any) -> Exchange:
        uid = self.users[user] if isinstance(user, str) else user
        return await self.fake.click(self.bot, uid, message, **how)

    @asynccontextmanager
    async def store(self) -> AsyncIterator[Storage]:
        """The database itself, not the bot's memory: the SQLite file opened anew, or a
        PostgreSQL pool of the test's own (every read goes to the server)."""
        if is_postgres(self.database):
            if self._pg_store is None:
                self._pg_store = await PostgresStorage.open(self.database, pool_size=2)
            yield self._pg_store
            return
        store = await SqliteStorage.open(str(self.db_path))
        try:
            yield store
        finally:
            await store.close()

    async def stored_state(self) -> GameState:
        """The state as the database has it (the snapshot), not the bot's memory."""
        async with self.store() as store:
            snap = await store.snapshot(self.game_id)
        assert snap is not None
        return GameState.from_snapshot(json.loads(snap[1]))

    async def open_game(self, names: list[str], map_id: str, *, refuse_dms: tuple[str, ...] = (),
                        computers: tuple[str, ...] = (), **options: Any) -> None:
        """``language='de'``: a German game whose members' Discord speaks German too."""
        self.language = options.get("language") or "en"
        for name in names:
            self.users[name] = self.fake.add_user(name)
            if self.language != "en":
                self.fake.locales[self.users[name]] = self.language
            if name in refuse_dms:
                self.fake.refuse_dms.add(self.users[name])
        host = names[0]
        self.map_id = map_id
        ex = await self.slash(host, "new", map=map_id, **options)
        lobby = ex.reply
        if options.get("thread"):  # the lobby is the thread's first message
            self.channel_id = int(re.findall(r"<#(\d+)>", lobby.content)[-1])
            lobby = self.fake.channel_messages(self.channel_id)[0]
        m = re.search(r"#(\d+)", lobby.content)
        assert m, lobby.content
        self.game_id = int(m[1])
        for name in names[1:]:
            await self.click(name, lobby, label=self.t("Join"))
        for level in computers:  # seated by the host; the newest lobby copy has the buttons
            lobby = (await self.slash(host, "addbot", level=level)).reply
        ex = await self.click(host, lobby, label=self.t("Start"))
        started = i18n.translate(
            "🚂 **Ticket to Ride: {map}** — game #{game} has started. Players: {players}.",
            {"map": self.t(load_map(map_id).name), "game": self.game_id, "players": ""},
            self.language).rstrip(".")  # up to the players, in the seat order drawn
        assert self.fake.message(lobby.id).content.startswith(started), ex.text

    def seat_user(self, state: GameState, seat: int) -> int:
        return self.users[state.config.players[seat]]

    # -- playing one action through Discord --------------------------------------------

    def choose(self, state: GameState, seat: int, prefer: str) -> engine.Action:
        legal = engine.legal_actions(state, seat)
        assert legal, f"seat {seat} must act but has no legal action"
        if state.phase == "choose_share" and self.rng.random() < 0.85:
            return self.rng.choice([a for a in legal if isinstance(a, TakeShare)])
        if state.phase in ("choose_initial_tickets", "choose_tickets", "choose_share",
                           "choose_neutral_share", "draft", "draft_keep", "choose_festival"):
            return self.rng.choice(legal)
        if state.phase == "choose_pieces":
            rs = state.board.rules.rails_and_sails
            assert rs is not None
            if self.buttons_only or self.rng.random() < 0.5:  # a preset, or a typed split
                return self.rng.choice(legal)
            trains = self.rng.randint(rs.pieces - rs.max_ships, rs.max_trains)
            return ChoosePieces(trains=trains, ships=rs.pieces - trains)
        if state.phase == "tunnel":
            pays = [a for a in legal if isinstance(a, PayTunnel)]
            return pays[0] if pays and self.rng.random() < 0.7 else DeclineTunnel()
        if prefer == "draw-only":  # build up a hand
            draws = [a for a in legal if isinstance(a, DrawFaceUp | DrawBlind)]
            if draws:
                return self.rng.choice(draws)
        harbors = [a for a in legal if isinstance(a, BuildHarbor)]
        if harbors and self.rng.random() < 0.8:
            return self.rng.choice(harbors)
        exchange = None if self.buttons_only else self._exchange(state, seat, legal)
        if exchange is not None:
            return exchange
        claims = [a for a in legal if isinstance(a, Claim)]
        stations = [a for a in legal if isinstance(a, BuildStation)]
        hand = engine.private_view(state, seat).hand
        routes = load_map(state.config.map_id).routes

        def spare(a: Claim) -> int:  # cards left that could pay a tunnel's extra
            colour = colour_of(a.cards)
            return (hand.get(colour, 0) + hand.get("locomotive", 0) * (colour != "locomotive")
                    - sum(a.cards.values()))

        tunnels = [a for a in claims
                   if routes[state.board.route_index[a.route]].tunnel and spare(a) >= 1]
        if prefer == "tunnels" and tunnels:
            return self.rng.choice(tunnels)
        if prefer == "tunnels" and stations and self.rng.random() < 0.15:
            return self.rng.choice(stations)
        if claims and self.rng.random() < (0.4 if prefer in ("tunnels", "harbors") else 0.8):
            return max(claims, key=lambda a: (sum(a.cards.values()), self.rng.random()))
        if any(isinstance(a, DrawTickets) for a in legal) and self.rng.random() < 0.05:
            return DrawTickets()
        draws = [a for a in legal if isinstance(a, DrawFaceUp | DrawBlind)]
        if prefer == "harbors" and draws and self.rng.random() < 0.6:
            draws = self._harbor_draws(state, hand, draws)
        return self.rng.choice(draws or legal)

    def _harbor_draws(self, state: GameState, hand: dict[str, int],
                      draws: list[engine.Action]) -> list[engine.Action]:
        """Draws that collect a harbor's cost: harbor trains and single ships of the colour
        the hand has most of, or jokers."""
        colours = state.board.rules.deck.colors
        suit = max(colours, key=lambda c: (hand.get(f"{c}_harbor", 0) + hand.get(f"{c}_ship", 0),
                                           self.rng.random()))
        market = engine.public_view(state).market
        wanted = {f"{suit}_harbor", f"{suit}_ship", "locomotive"}
        up = [a for a in draws if isinstance(a, DrawFaceUp) and market[a.slot] in wanted]
        deck = "train" if hand.get(f"{suit}_harbor", 0) < 2 else "ship"
        blind = [a for a in draws if isinstance(a, DrawBlind) and a.deck == deck]
        return up or blind or draws

    def _exchange(self, state: GameState, seat: int,
                  legal: list[engine.Action]) -> ExchangePieces | None:
        """Now and then swap a few pieces (Rails & Sails), as many as the engine allows."""
        swaps = [a for a in legal if isinstance(a, ExchangePieces)]
        if not swaps or self.rng.random() > 0.04:
            return None
        sign = self.rng.choice(swaps).trains
        for n in (3, 2, 1):
            trial = GameState.from_snapshot(state.to_snapshot())
            try:
                engine.apply(trial, seat, ExchangePieces(trains=n * sign))
            except IllegalAction:
                continue
            return ExchangePieces(trains=n * sign)
        return None

    async def play(self, state: GameState, seat: int, action: engine.Action) -> Exchange:
        """Make ``action`` happen the way a player would: a button or a slash command."""
        if self.buttons_only:
            return await self._click_only(state, seat, action)
        user = self.seat_user(state, seat)
        board = self.fake.last_board()
        coin = self.rng.random() < 0.5
        private = self.last_private.get(user)
        keep = f"ttr:{self.game_id}:keep"
        rs = presenters.two_decks(self.map_id)
        match action:
            case KeepTickets():
                ids = [str(t) for t in action.tickets]
                msg = (private if private is not None and any(
                    c.startswith(keep) for c in private.custom_ids())
                    else self._dm_with_select(user))
                if msg is None:  # no DM (refused): the ephemeral "My hand" has the select
                    ex = await self.click(user, board, label=self.t("My hand"))
                    msg = ex.reply
                ex = await self.fake.choose(self.bot, user, msg, ids)
            case DrawFaceUp():
                up = f"ttr:{self.game_id}:up:{action.slot}."
                if state.phase == "second_draw" and private is not None and coin:
                    ex = await self.click(user, private, prefix=up)
                elif state.phase == "turn" and coin:
                    ex = await self.click(user, board, prefix=up)
                elif rs and self.rng.random() < 0.5:
                    ex = await self.slash(user, "draw", card=str(action.slot + 1),
                                          refill=action.refill)
                else:
                    ex = await self.slash(user, "draw", card=str(action.slot + 1))
                ex = await self._refill(user, action, ex)
            case DrawBlind():
                label = self.t(("Ship deck" if action.deck == "ship" else "Train deck") if rs
                               else "Draw from deck")
                if state.phase == "second_draw" and private is not None and coin:
                    ex = await self.click(user, private, label=label)
                elif state.phase == "turn" and coin:
                    ex = await self.click(user, board, label=label)
                else:
                    ex = await self.slash(user, "draw", card=action.deck if rs else "deck")
            case DrawTickets():
                ex = (await self.click(user, board, label=self.t("Draw tickets")) if coin
                      else await self.slash(user, "tickets"))
            case Claim():
                if self.rng.random() < 0.2:  # autocomplete offers exactly this claim
                    got = await self.fake.autocomplete(self.bot, user, "claim", "route",
                                                       channel_id=self.channel_id,
                                                       route="")
                    assert str(action.route) in [c["value"] for c in got] or len(got) == 25
                ex = await self.slash(user, "claim", route=str(action.route),
                                      colour=colour_of(action.cards))
            case PayTunnel():
                target = private if private is not None and coin else board
                ex = await self.click(user, target, label=self.t("Pay the extra cards"))
            case DeclineTunnel():
                target = private if private is not None and coin else board
                ex = await self.click(user, target, label=self.t("Decline"))
            case BuildStation():
                ex = await self.slash(user, "station", city=action.city,
                                      colour=colour_of(action.cards))
            case BuildHarbor():
                if self.rng.random() < 0.3:  # autocomplete offers exactly the legal cities
                    got = await self.fake.autocomplete(self.bot, user, "harbor", "city", city="",
                                                       channel_id=self.channel_id)
                    legal = {a.city for a in engine.legal_actions(state, seat)
                             if isinstance(a, BuildHarbor)}
                    offered = {c["value"] for c in got}  # Discord shows at most 25
                    assert offered == legal if len(legal) <= 25 else offered < legal
                ex = await self.slash(user, "harbor", city=action.city,
                                      colour=colour_of(action.cards))
            case ExchangePieces():
                ex = await self.slash(user, "exchange", trains=action.trains)
            case ChoosePieces() if action not in decisions(state, seat) or coin:
                ex = await self.slash(user, "exchange", trains=action.trains)
            case (TakeShare() | DeclineShare() | GiveNeutralShare() | DraftPick() | TakeFestival()
                  | ChoosePieces()):
                ex = await self._choose_option(state, user, action)
            case _:
                raise AssertionError(action)
        self.counts[action.type] = self.counts.get(action.type, 0) + 1
        if isinstance(action, DrawBlind):
            self._count(f"blind_{action.deck}")
        # The answer's controls (second card, ticket choice, tunnel) are used next time.
        self.last_private.pop(user, None)
        for sent in ex.replies:
            if not sent.public and sent.custom_ids():
                self.last_private[user] = sent
        return ex

    async def _click_only(self, state: GameState, seat: int, action: engine.Action
                          ) -> Exchange:
        """``action`` by buttons and selects alone, as a newcomer plays; counts the clicks."""
        user = self.seat_user(state, seat)
        board = self.fake.last_board()
        clicks = 1
        rs = presenters.two_decks(self.map_id)
        match action:
            case DrawFaceUp():
                ex = await self.click(user, board, prefix=f"ttr:{self.game_id}:up:{action.slot}.")
                refilled = await self._refill(user, action, ex)
                clicks += refilled is not ex
                ex = refilled
            case DrawBlind():
                ex = await self.click(user, board, label=self.t(
                    ("Ship deck" if action.deck == "ship" else "Train deck") if rs
                    else "Draw from deck"))
            case DrawTickets():
                ex = await self.click(user, board, label=self.t("Draw tickets"))
            case Claim() | BuildStation() | BuildHarbor():
                ex, clicks = await self._build(user, board, action)
            case PayTunnel() | DeclineTunnel():
                label = "Pay the extra cards" if isinstance(action, PayTunnel) else "Decline"
                private = self.last_private.get(user)
                target = private if private is not None and self.rng.random() < 0.5 else board
                ex = await self.click(user, target, label=self.t(label))
            case KeepTickets():
                private = self.last_private.get(user)
                keep = f"ttr:{self.game_id}:keep"
                msg = (private if private is not None and any(
                    c.startswith(keep) for c in private.custom_ids())
                    else self._dm_with_select(user))
                if msg is None:
                    msg = (await self.click(user, board, label=self.t("My hand"))).reply
                    clicks += 1
                ex = await self.fake.choose(self.bot, user, msg, [str(t) for t in action.tickets])
            case _:
                ex = await self._choose_option(state, user, action)
        kind = {"draw_face_up": "draw", "draw_blind": "draw", "draw_tickets": "tickets",
                "keep_tickets": "tickets" if state.phase == "choose_tickets" else "setup",
                "build_station": "station", "build_harbor": "harbor"}.get(action.type,
                                                                          action.type)
        starts = not (state.phase == "second_draw" or (
            isinstance(action, KeepTickets) and state.phase == "choose_tickets"))
        if kind in ("draw", "tickets", "claim", "station", "harbor"):
            if starts:
                self.clicks.setdefault(kind, []).append(0)
            self.clicks[kind][-1] += clicks
        self.counts[action.type] = self.counts.get(action.type, 0) + 1
        self.last_private.pop(user, None)
        for reply in ex.replies:
            if not reply.public and reply.custom_ids():
                self.last_private[user] = reply
        return ex

    async def _build(self, user: int, board: Sent, action: Claim | BuildStation | BuildHarbor
                     ) -> tuple[Exchange, int]:
        """Claim a route (build a station or harbor) by clicks: the board's button, the
        private list (paged on until the target shows), then the payment if asked."""
        kind = claiming.kind_of(action)
        assert kind is not None
        gid = self.game_id
        ex = await self.click(user, board, label=self.t(presenters.BUILD_BUTTONS[kind]))
        picker = ex.reply
        assert picker.ephemeral and not picker.public
        key = str(action.route) if isinstance(action, Claim) else action.city
        clicks, page = 1, 0
        while True:
            picker = self.fake.message(picker.id)
            (select,) = [c for c in picker.controls() if c["type"] == 3]
            assert len(select["options"]) <= 25 and len(select["custom_id"]) <= 100
            assert all(len(o["label"]) <= 100 and len(o.get("description", "")) <= 100
                       for o in select["options"])
            if key in [o["value"] for o in select["options"]]:
                break
            page += 1
            await self.click(user, picker, prefix=f"ttr:{gid}:{kind}pg:{page}.")
            clicks += 1
        ex = await self.fake.choose(self.bot, user, picker, [key], prefix=f"ttr:{gid}:{kind}to:")
        clicks += 1
        after = self.fake.message(picker.id)
        pay = f"ttr:{gid}:{kind}pay:"
        if any(c.startswith(pay) for c in after.custom_ids()):
            ex = await self.fake.choose(self.bot, user, after,
                                        [claiming.payment_value(action.cards)], prefix=pay)
            clicks += 1
        return ex, clicks

    async def _refill(self, user: int, action: DrawFaceUp, ex: Exchange) -> Exchange:
        """Rails & Sails: a face-up card asks which deck refills its slot; answer it."""
        if action.refill is None or not ex.replies:
            return ex
        step = f"ttr:{self.game_id}:up{action.refill[0]}:{action.slot}."
        reply = self.fake.message(ex.reply.id)
        if not any(c.startswith(step) for c in reply.custom_ids()):
            return ex  # only one deck could refill it: taken at once
        assert self.t("You take {slot}: {card}. Which deck refills the market?").split(
            ". ")[-1] in reply.content and not reply.public
        self.counts[f"refill_{action.refill}"] = self.counts.get(f"refill_{action.refill}", 0) + 1
        return await self.click(user, reply, prefix=step)

    def option_tag(self, state: GameState, user: int) -> int:
        seat = self.seat_of(state, user)
        return choice_tag(seat, state.phase, decisions(state, seat))

    async def _choose_option(self, state: GameState, user: int, action: engine.Action
                             ) -> Exchange:
        """Click the option's button in the last private answer, the DM or "My hand"."""
        seat = self.seat_of(state, user)
        with i18n.language(self.language):  # the buttons are in the player's language
            label = presenters.choice_label(self.map_id, action)
            labels = sorted(presenters.choice_label(self.map_id, a)
                            for a in decisions(state, seat))
        tag = self.option_tag(state, user)
        dm = self._dm_with(user, "pick", tag)
        reply = self.last_private.get(user)
        if reply is not None and not any(c.endswith(f".{tag}") for c in reply.custom_ids()):
            reply = None  # an answer with other controls (or older options)
        sources: list[tuple[str, Sent | None]] = [("reply", reply), ("dm", dm), ("hand", None)]
        where, msg = self.rng.choice([s for s in sources if s[0] == "hand" or s[1] is not None])
        if msg is None:
            msg = (await self.click(user, self.fake.last_board(), label=self.t("My hand"))).reply
            # The hand image shows the holdings; its text names the options only to them.
            assert msg.ephemeral and msg.files[0][1].startswith(b"HAND")
        msg = self.fake.message(msg.id)
        shown = sorted(c.get("label", "") for c in msg.controls()
                       if c.get("custom_id", "").startswith(f"ttr:{self.game_id}:pick:"))
        assert shown == labels, (shown, labels)  # every option, each a button
        self.choice_sources[where] = self.choice_sources.get(where, 0) + 1
        return await self.click(user, msg, label=label)

    def seat_of(self, state: GameState, user: int) -> int:
        return next(s for s in range(state.n_players) if self.seat_user(state, s) == user)

    def _dm_with(self, user: int, action: str, version: int) -> Sent | None:
        """The newest DM of this game with ``action`` controls drawn for ``version`` (or,
        for choice buttons, the options' tag)."""
        for dm in reversed(self.fake.dms(user)):
            latest = self.fake.message(dm.id)
            if any(c.startswith(f"ttr:{self.game_id}:{action}:") and c.endswith(f".{version}")
                   for c in latest.custom_ids()):
                return latest
        return None

    def _dm_with_select(self, user: int) -> Sent | None:
        for dm in reversed(self.fake.dms(user)):
            latest = self.fake.message(dm.id)
            if any(c.startswith(f"ttr:{self.game_id}:keep") for c in latest.custom_ids()):
                return latest
        return None

    async def step(self, prefer: str = "", *, seats: list[int] | None = None) -> GameState:
        """One action by one waiting player (of ``seats``), checked to be applied exactly
        once."""
        state = await self.stored_state()
        seat = self.rng.choice([s for s in engine.waiting_for(state)
                                if seats is None or s in seats])
        for s in range(state.n_players):
            for t in [*state.offered[s], *state.tickets[s]]:
                self.tickets_seen.add(tuple(state.board.map.tickets[t].cities))
        if state.phase == "draft":  # every packet on the table is secret too
            for s in range(state.n_players):
                for view in engine.private_view(state, s).draft_packet:
                    self.tickets_seen.add(tuple(view.cities))
        action = self.choose(state, seat, prefer)
        ex = await self.play(state, seat, action)
        after = await self.stored_state()
        assert after.version == state.version + 1, (action, ex.text)
        self._check_draw_lines(state, after, seat, action, ex)
        async with self.store() as store:
            last = (await store.actions(self.game_id, after=state.version))[0]
        applied = engine.ACTION_ADAPTER.validate_json(last.action)
        if isinstance(action, PayTunnel):  # the button lets the engine pick the cards
            action = PayTunnel()
        assert (last.seat, applied) == (seat, action), ex.text
        return after

    def _check_draw_lines(self, before: GameState, after: GameState, seat: int,
                          action: engine.Action, ex: Exchange) -> None:
        """The channel learns which market cards a player took, never the blind ones."""
        turn = self.draws.setdefault(seat, {"blind": [], "up": []})
        if isinstance(action, DrawBlind | DrawFaceUp):
            had = engine.private_view(before, seat).hand
            now = engine.private_view(after, seat).hand
            (card,) = [c for c in now if now[c] > had.get(c, 0)]
            with i18n.language(self.language):  # as the channel names it
                label = presenters.card_label(self.map_id, card)
            turn["blind" if isinstance(action, DrawBlind) else "up"].append(label)
        name = before.config.players[seat]
        for sent in ex.sent:
            # New posts only: an edited table message repeats older turns' text.
            for line in sent.content.splitlines() if sent.public and not sent.edit else []:
                if line.startswith(name) and any(w in line for w in self.draw_words):
                    for label in set(turn["blind"]) - set(turn["up"]):
                        assert label not in line, (line, turn)
                    if turn["blind"]:
                        self.counts["blind_lines_checked"] = (
                            self.counts.get("blind_lines_checked", 0) + 1)
                    self.draws.pop(seat, None)

    async def play_to_end(self, prefer: str = "", limit: int = 3000) -> GameState:
        for _ in range(limit):
            state = await self.step(prefer)
            if state.phase == "game_over":
                return state
        raise AssertionError("the game did not finish")

    # -- a quiet channel ----------------------------------------------------------------

    def assert_quiet_channel(self, state: GameState) -> None:
        """After a whole game: a new board image only for a board change (plus the first,
        and a new page when a table message's text grew long), and the channel shows one
        message per board plus the final scores (turn lines were folded away)."""
        changes = sum(self.counts.get(k, 0) for k in ("claim", "build_station", "build_harbor",
                                                      "pay_tunnel"))
        public = self.fake.channel_messages()
        boards = [s for s in public for _, d in s.uploaded if d.startswith(b"BOARD")]
        assert 1 <= len(boards) <= changes + 1 + state.turn // 8, (len(boards), changes)
        assert len(boards) < state.turn  # far fewer than one board per turn
        shown = self.fake.channel_now()
        first = next(i for i, s in enumerate(shown) if s.id == boards[0].id)
        final = next(i for i, s in enumerate(shown) if self.final_mark in s.content)
        # Between the lobby and the final scores: board messages only, with the turns told.
        assert all(any(d.startswith(b"BOARD") for _, d in s.files) and not s.custom_ids()
                   for s in shown[first:final])
        told = sum(len(s.content.splitlines()) for s in shown[first:final])
        assert told >= state.turn // 2  # (a turn is a line; setup picks and draws add more)

    # -- leak check ---------------------------------------------------------------------

    def assert_no_secrets_before_final(self) -> None:
        """No channel message or file before the final scores shows a hand or a ticket."""
        map_data = load_map(self.map_id)
        names = {c.id: c.name for c in map_data.cities}
        routes = {frozenset((r.a, r.b)) for r in map_data.routes}
        public = self.fake.channel_messages()
        final_at = next(i for i, s in enumerate(public) if self.final_mark in s.content)
        assert final_at > 0
        shares = map_data.rules.shares
        # A company named as a word ("B&O" but not "Erie"), or a count of shares.
        company = re.compile(r"(?<![\w&])(" + "|".join(
            re.escape(c.id) for c in (shares.companies if shares else [])) + r")(?![\w&])")
        festivals = map_data.rules.festivals is not None
        marks = LEAK_MARKS[self.language]
        # How many festival cards someone holds or took ("3 Sevilla", "festival (2 cards)").
        holding = re.compile(marks["holding"].format(piles="|".join(
            re.escape(p.name) for p in (map_data.rules.festivals.piles if festivals
                                        and map_data.rules.festivals else []))))
        private_words = re.compile(marks["private"])
        share_count = re.compile(marks["shares"])
        rs = map_data.rules.rails_and_sails is not None
        # Rails & Sails: the piece splits are secret until everyone has chosen, then public.
        split = re.compile(marks["split"])
        exchange = re.compile(marks["exchange"])
        chosen = 0
        for sent in public[:final_at] + self._watched_before_final():
            for line in sent.content.splitlines():
                assert not private_words.search(line), line
                for private in self.private_marks:  # the same in the game's language
                    assert private not in line, line
                if festivals:
                    assert not holding.search(line), line
                    if marks["festival"] in line:
                        self._count("festival_lines_checked")
                if rs and chosen < len(self.users):
                    assert not split.search(line), line
                    if marks["chosen"] in line:
                        chosen += 1
                        self._count("piece_lines_checked")
                if rs and marks["exchanged"] in line:
                    assert chosen == len(self.users) and exchange.search(line), line
                    self._count("exchange_lines_checked")
                if shares is not None:
                    assert not company.search(line), line
                    assert not share_count.search(line), line
                    if marks["share"] in line:
                        self.counts["share_lines_checked"] = (
                            self.counts.get("share_lines_checked", 0) + 1)
                for cities in self.tickets_seen:
                    a, b = names[cities[0]], names[cities[-1]]
                    assert f"{a} → {b}" not in line, line
                    if frozenset((cities[0], cities[-1])) not in routes:
                        assert not (a in line and b in line), (cities, line)
            for name, data in sent.uploaded:  # (an edit keeps the image it had)
                assert not data.startswith(b"HAND"), name
                if data.startswith(b"BOARD"):
                    board = json.loads(data[5:])
                    assert not set(board) & SECRET_FIELDS, set(board)
                    if rs:  # the splits on the board: exactly once everyone has chosen
                        revealed = chosen == len(self.users)
                        assert bool(board["piece_split"]) == revealed, board["piece_split"]
        assert self.tickets_seen

    def _watched_before_final(self) -> list[Sent]:
        """What watchers got before the final scores (each stream up to its own)."""
        found: list[Sent] = []
        for channel in sorted(self.watched):
            stream = [s for s in self.fake.sent if s.channel_id == channel and not s.edit]
            end = next((i for i, s in enumerate(stream) if self.final_mark in s.content),
                       len(stream))
            found += stream[:end]
        return found

    def _count(self, key: str) -> None:
        self.counts[key] = self.counts.get(key, 0) + 1

    def assert_hands_show_shares(self, state: GameState) -> None:
        """Each player's private hand images (DM or "My hand") list their shares: every share
        shown is one that player holds at the end (shares are never lost)."""
        for seat in range(state.n_players):
            user = self.seat_user(state, seat)
            mine = {(c, n) for c, ns in engine.private_view(state, seat).shares.items()
                    for n in ns}
            shown: set[tuple[str, int]] = set()
            for sent in self.fake.sent:
                if sent.public or sent.user_id != user:
                    continue
                for _, data in sent.files:
                    if data.startswith(b"HAND"):
                        view = json.loads(data[4:])
                        assert view["seat"] == seat
                        shown |= {(c, n) for c, ns in view["shares"].items() for n in ns}
            assert shown <= mine, (shown, mine)
            if mine:
                assert shown, f"seat {seat} holds shares but no hand image showed one"


# The heads of the standing orders' private texts (bot.order_controls, bot.orders).
ORDER_MARKS = ("📋 Your standing orders in game #{game}, only you see them. Each plays one of "
               "your next turns, in this order, the moment it comes (no ping, no wait); one "
               "that cannot be played is dropped and you are told.",
               "📋 Game #{game}: your standing order “{order}” was dropped: {why} It is your "
               "turn: press **My hand** there.")


def make_bot(database: Path | str, renderer: Renderer | None = None,
             clock: FakeClock | None = None) -> TTRBot:
    """A bot on ``database``: an SQLite file, or a PostgreSQL URL."""
    where = str(database)
    settings = (Settings(token="test", database_url=where) if is_postgres(where)
                else Settings(token="test", db_path=where))
    return TTRBot(settings, renderer=renderer or json_renderer(), clock=clock or FakeClock())


@pytest.fixture(autouse=True)
def discord_api_conformance() -> Iterator[None]:
    """Every bot test fails if a request it made broke Discord's published API (the fake
    answered it with a 400 the bot may have taken in its stride)."""
    VIOLATIONS.clear()
    yield
    assert not VIOLATIONS, "requests Discord would refuse:\n" + "\n".join(VIOLATIONS[:10])


# -- PostgreSQL: a real server for the tests on both backends -------------------------------

# A module runs its tests that use ``database`` (or ``table``) on each backend by defining
#     @pytest.fixture(params=BACKENDS)
#     def backend(request): return request.param
BACKENDS = ("sqlite", "postgresql")


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PgServer]:
    """One PostgreSQL server for the whole run, started from the ``pgserver`` package's own
    binaries (a dev dependency: nothing to install on the machine, also as root), with a
    migrated template that each test's database is copied from."""
    try:
        server = PgServer.start()
    except Exception as exc:  # a failure, never a skip: these tests must run everywhere
        pytest.fail(f"cannot start the PostgreSQL server for the tests ({exc!r}); it comes "
                    f"from the pgserver package: pip install -c constraints.txt -e '.[dev]'",
                    pytrace=False)
    yield server
    server.stop()


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """'sqlite', unless the module asks for ``BACKENDS``."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def database(backend: str, tmp_path: Path,
             request: pytest.FixtureRequest) -> Iterator[str]:
    """Where the test's games live: an SQLite file, or a fresh PostgreSQL database."""
    if backend == "sqlite":
        yield str(tmp_path / "ttr.sqlite3")
        return
    server: PgServer = request.getfixturevalue("postgres_server")
    with server.database() as url:
        yield url


@pytest.fixture
async def table(tmp_path: Path, database: str) -> AsyncIterator[Table]:
    clock = FakeClock()
    fake = FakeDiscord(clock)  # messages age and tokens expire on the bot's clock
    bot = make_bot(database, clock=clock)
    await fake.connect(bot)
    t = Table(fake=fake, db_path=tmp_path / "ttr.sqlite3", bot=bot, clock=clock,
              database=database)
    bot.service.seeds = random.Random(11)  # the same games every run
    yield t
    await t.bot.close()
    if t._pg_store is not None:
        await t._pg_store.close()
    assert fake.unexpected == [], fake.unexpected
