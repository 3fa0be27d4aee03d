"""Every action type, in every phase, from every seat, with random arguments: the engine
either applies it or refuses with ``IllegalAction`` and leaves the state as it was; no
other exception ever escapes (RULES.md §8)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic import ValidationError

from engine import (
    ACTION_ADAPTER,
    GameConfig,
    GameState,
    IllegalAction,
    apply,
    new_game,
    waiting_for,
)
from engine.actions import Action
from engine.agents import random_action
from engine.board import Board, board_for
from engine.cards import CARD_NAMES
from engine.hooks import modules_for
from engine.modules import playable_maps
from engine.phases import Phase


def every_phase(map_id: str) -> set[str]:
    """Every phase the map has, from the engine's facts (so the test shows it reached them
    all): the phases common to all maps (a tunnel's only where the map has tunnels) and
    the phases its rule modules add."""
    board = board_for(map_id)
    added = {p for m in modules_for(map_id, tuple(board.rules.modules)) for p in m.phases}
    common = {p for p in Phase if not p.map_decision}
    if not any(r.tunnel for r in board.map.routes):
        common.discard(Phase.TUNNEL)
    if Phase.DRAFT in added:  # Iberia's ticket draft replaces the first ticket choice
        common.discard(Phase.CHOOSE_INITIAL_TICKETS)
    return common | added


MAPS = sorted(playable_maps())


def action_types() -> list[str]:
    """The ``type`` tag of every action of the union."""
    schema = ACTION_ADAPTER.json_schema()
    return sorted(schema["discriminator"]["mapping"])


def random_cards(rng: random.Random) -> dict[str, int]:
    names = [*CARD_NAMES, "gold", "loco", ""]
    return {rng.choice(names): rng.choice((0, 1, 2, 3, 5, 9)) for _ in range(rng.randint(0, 4))}


def random_id(rng: random.Random, valid: list[Any], bogus: list[Any]) -> Any:
    return rng.choice(valid) if valid and rng.random() < 0.7 else rng.choice(bogus)


def random_fields(rng: random.Random, board: Board, kind: str) -> dict[str, Any]:
    """Arguments of the right types for action ``kind``, valid or not."""
    ints = [-5, -1, 0, 1, 2, 3, 7, 10, 25, 60, 10**6]
    ticket_ids = list(board.t_ids)
    company_ids = [c.id for c in board.rules.shares.companies] if board.rules.shares else []
    piles = [p.id for p in board.rules.festivals.piles] if board.rules.festivals else []
    fields: dict[str, Any] = {
        "keep_tickets": lambda: {
            "tickets": [random_id(rng, ticket_ids, ints) for _ in range(rng.randint(0, 6))]
        },
        "draw_face_up": lambda: {
            "slot": rng.randint(0, 9),
            "refill": rng.choice((None, "train", "ship")),
        },
        "draw_blind": lambda: {"deck": rng.choice(("train", "ship"))},
        "claim": lambda: {
            "route": random_id(rng, list(board.route_ids), ints),
            "cards": random_cards(rng),
        },
        "pay_tunnel": lambda: {"cards": None if rng.random() < 0.3 else random_cards(rng)},
        "build_station": lambda: {
            "city": random_id(rng, list(board.city_ids), ["atlantis", ""]),
            "cards": random_cards(rng),
        },
        "take_share": lambda: {"company": random_id(rng, company_ids, ["ACME", ""])},
        "give_neutral_share": lambda: {"company": random_id(rng, company_ids, ["ACME", ""])},
        "draft_pick": lambda: {"ticket": random_id(rng, ticket_ids, ints)},
        "take_festival": lambda: {"pile": random_id(rng, piles, ["nowhere", ""])},
        "choose_pieces": lambda: {
            "trains": rng.choice((0, 10, 20, 25, 30, 60)),
            "ships": rng.choice((0, 30, 35, 40, 50, 60)),
        },
        "build_harbor": lambda: {
            "city": random_id(rng, list(board.city_ids), ["atlantis"]),
            "cards": random_cards(rng),
        },
        "exchange_pieces": lambda: {"trains": rng.choice(ints) * rng.choice((1, -1))},
    }
    make = fields.get(kind)
    return {"type": kind, **(make() if make else {})}


def fuzz(
    state: GameState,
    rng: random.Random,
    kinds: list[str],
    check_untouched: bool,
    phases: set[str],
) -> None:
    """Try every action kind from every seat (and two seats that are not in the game);
    ``phases`` collects the phases tried in (an accepted action may move the game on)."""
    board = state.board
    for seat in range(-1, state.n_players + 1):
        for kind in rng.sample(kinds, len(kinds)):
            try:
                action: Action = ACTION_ADAPTER.validate_python(random_fields(rng, board, kind))
            except ValidationError:
                continue  # out of the action's own domain: never reaches the engine
            phases.add(state.phase)
            before = state.to_snapshot() if check_untouched else None
            try:
                apply(state, seat, action)
            except IllegalAction:
                if before is not None:
                    assert state.to_snapshot() == before, f"{action} changed the state"
            except Exception as exc:  # pragma: no cover - the message explains
                raise AssertionError(
                    f"{type(exc).__name__} from {action} by seat {seat} in {state.phase}"
                ) from exc


@pytest.mark.slow
@pytest.mark.parametrize("map_id", MAPS)
def test_any_action_anywhere_is_applied_or_refused_with_illegal_action(map_id: str) -> None:
    rules = board_for(map_id).rules
    kinds = action_types()
    expected = every_phase(map_id)
    phases: set[str] = set()
    for seed in range(8):  # games until every phase of the map was met (two at least)
        if seed >= 2 and phases == expected:
            break
        players = rules.players_min + seed % (rules.players_max - rules.players_min + 1)
        config = GameConfig(map_id=map_id, players=[f"P{i}" for i in range(players)], seed=seed)
        state = new_game(config)
        rng = random.Random(seed)
        steps = 0
        while state.phase != "game_over" and steps < 1500:
            if state.phase not in ("turn", "second_draw") or steps % 4 == 0:
                fuzz(state, rng, kinds, steps % 16 == 0, phases)
            if state.phase == "game_over":
                break
            seat = rng.choice(waiting_for(state))
            apply(state, seat, random_action(state, seat, rng))
            steps += 1
        fuzz(state, rng, kinds, True, phases)  # after the end: everything is refused
    assert phases == expected
