"""Stored games replay identically: same random draws, same final state and scores.

The fixtures (``fixtures/games_<map>.json``, written by ``fixtures/record_games.py``) were
recorded with the engine as it was before its hot path's data layout changed; every later
engine must turn their action logs into the very same final snapshot and scores. Their
snapshots are of the first format (before configs named their rules version): they are
compared through ``migrate_snapshot``, as the bot loads a stored one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import ACTION_ADAPTER, GameConfig, GameState, apply, new_game, waiting_for
from engine.scoring import final_scores
from engine.state import migrate_snapshot

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("games_*.json"))
GAMES = [
    pytest.param(game, id=f"{game['config']['map_id']}-{len(game['config']['players'])}p")
    for path in FIXTURES
    for game in json.loads(path.read_text())
]


def test_every_playable_map_has_stored_games() -> None:
    from engine.modules import playable_maps

    stored = {game.values[0]["config"]["map_id"] for game in GAMES}  # type: ignore[index]
    assert stored == set(playable_maps())


@pytest.mark.parametrize("game", GAMES)
def test_a_stored_game_replays_to_the_same_end(game: dict) -> None:  # type: ignore[type-arg]
    state = new_game(GameConfig.model_validate({"rules": 1, **game["config"]}))
    for seat, action in game["actions"]:
        assert seat in waiting_for(state)
        apply(state, seat, ACTION_ADAPTER.validate_python(action))
    assert state.phase == "game_over"
    assert final_scores(state).model_dump(mode="json") == game["final_scores"]
    # The same end, except the tickets each seat returned, which these formats did not keep.
    replayed = json.loads(json.dumps(state.to_snapshot()))
    unkept: list[list[int]] = [[] for _ in range(state.n_players)]
    assert {**replayed, "returned": unkept} == migrate_snapshot(game["snapshot"])
    # The stored end also loads as a state that scores the same.
    restored = GameState.from_snapshot(game["snapshot"])
    assert final_scores(restored).model_dump(mode="json") == game["final_scores"]
