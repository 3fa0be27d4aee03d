"""A game's log and its snapshot: undo is an entry of the log, versions only grow, and
stored snapshots of an older format (or games of an older rules version) still load."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from engine import (
    ACTION_ADAPTER,
    LOG_ADAPTER,
    RULES_VERSION,
    Action,
    GameConfig,
    GameState,
    Undo,
    apply,
    in_effect,
    legal_actions,
    new_game,
    replay,
    waiting_for,
)
from engine.hooks import RuleModule
from engine.modules import MODULES
from engine.phases import Decision, Phase
from engine.state import SNAPSHOT_VERSION, migrate_snapshot

OLD_SNAPSHOTS = Path(__file__).parent / "fixtures" / "snapshots_v1.json"


Log = list[tuple[int, Action]]


def _play(map_id: str, players: int, seed: int, n: int) -> tuple[GameConfig, Log]:
    config = GameConfig(map_id=map_id, players=["A", "B", "C"][:players], seed=seed)
    state, rng, log = new_game(config), random.Random(seed), []
    for _ in range(n):
        seat = waiting_for(state)[0]
        action = rng.choice(legal_actions(state, seat))
        apply(state, seat, action)
        log.append((seat, action))
    return config, log


def _snap(state: GameState) -> Any:
    return json.loads(json.dumps(state.to_snapshot()))


# Undo as an entry of the log ----------------------------------------------------------------


@pytest.mark.parametrize("map_id", ["usa", "europe", "pennsylvania", "iberia", "world"])
def test_a_logged_undo_reaches_the_state_before_the_action_at_a_new_version(map_id: str) -> None:
    config, log = _play(map_id, 2, 3, 30)
    undone = replay(config, [*log, (log[-1][0], Undo())])
    before = replay(config, log[:-1])
    assert undone.version == len(log) + 1  # a new version, never one used before
    assert before.version == len(log) - 1
    assert {**_snap(undone), "version": 0} == {**_snap(before), "version": 0}


def test_undos_in_a_row_walk_back_and_play_goes_on_after_them() -> None:
    config, log = _play("europe", 3, 7, 40)
    entries: list[tuple[int, Action | Undo]] = [*log, (0, Undo()), (0, Undo()), log[-2], log[-1]]
    assert in_effect([a for _, a in entries]) == [*range(len(log) - 2), len(log) + 2, len(log) + 3]
    state = replay(config, entries)
    assert state.version == len(entries)
    assert {**_snap(state), "version": 0} == {**_snap(replay(config, log)), "version": 0}


def test_an_undo_with_nothing_to_take_back_is_refused() -> None:
    config = GameConfig(map_id="usa", players=["A", "B"], seed=1)
    with pytest.raises(ValueError, match="nothing to take back"):
        replay(config, [(0, Undo())])


def test_an_undo_is_stored_as_a_log_entry_but_is_no_action() -> None:
    assert LOG_ADAPTER.validate_json('{"type": "undo"}') == Undo()
    with pytest.raises(ValidationError):
        ACTION_ADAPTER.validate_json('{"type": "undo"}')


# Phases: the engine's vocabulary ---------------------------------------------------------


def test_every_phase_says_what_it_is() -> None:
    for phase in Phase:
        assert isinstance(phase.decision, Decision)
        assert isinstance(phase.simultaneous, bool)
        assert phase == phase.value  # stored snapshots and logs keep the plain name


def test_the_map_phases_are_the_rule_modules_own() -> None:
    owned = {p for module in MODULES.values() for p in module.phases}
    assert owned == {p for p in Phase if p.map_decision}
    assert all(isinstance(p, Phase) for p in owned)
    assert RuleModule.phases == {}


@pytest.mark.parametrize("map_id", ["usa", "europe", "nordic", "pennsylvania", "iberia", "world"])
def test_simultaneous_phases_wait_for_their_seats_without_a_current_one(map_id: str) -> None:
    """What ``Phase.simultaneous`` says holds in play: a simultaneous phase may wait for
    several seats; any other waits for the seat whose turn it is, alone."""
    config = GameConfig(map_id=map_id, players=["A", "B", "C"], seed=2)
    state, rng = new_game(config), random.Random(2)
    seen = set()
    while state.phase != Phase.GAME_OVER and state.version < 400:
        seen.add(state.phase)
        waiting = waiting_for(state)
        if not state.phase.simultaneous:
            assert waiting == [state.current], state.phase
        seat = waiting[0]
        apply(state, seat, rng.choice(legal_actions(state, seat)))
    assert Phase.TURN in seen


# Snapshots of an older format, and rules versions -------------------------------------------


def test_a_stored_snapshot_of_the_first_format_loads_and_plays_on() -> None:
    """``snapshots_v1.json``: mid-game snapshots written by the engine before snapshots
    named their rules version (format 1), with the logs that led to them."""
    for game in json.loads(OLD_SNAPSHOTS.read_text()):
        assert game["snapshot"]["snapshot"] == 1
        state = GameState.from_snapshot(game["snapshot"])
        assert state.config.rules == 1
        log = [(seat, ACTION_ADAPTER.validate_python(a)) for seat, a in game["actions"]]
        config = GameConfig.model_validate({"rules": 1, **game["config"]})  # see ``rules``
        # The same state, except the tickets each seat returned: formats before 3 did not
        # keep them, so a loaded game starts without them.
        replayed = _snap(replay(config, log))
        assert _snap(state) == {**replayed, "returned": [[]] * state.n_players}
        assert _snap(state)["snapshot"] == SNAPSHOT_VERSION
        seat = waiting_for(state)[0]
        apply(state, seat, legal_actions(state, seat)[0])  # and the game goes on


def test_a_snapshot_of_an_unknown_format_is_refused() -> None:
    snap = new_game(GameConfig(map_id="usa", players=["A", "B"], seed=1)).to_snapshot()
    with pytest.raises(ValueError, match="unsupported snapshot version 99"):
        migrate_snapshot({**snap, "snapshot": 99})


def test_a_game_records_the_rules_it_plays_by() -> None:
    state = new_game(GameConfig(map_id="usa", players=["A", "B"], seed=1))
    assert state.config.rules == RULES_VERSION
    assert GameState.from_snapshot(state.to_snapshot()).config.rules == RULES_VERSION


def test_a_game_of_newer_rules_than_the_engine_knows_is_refused() -> None:
    """A game started by a newer engine (then the bot was downgraded) would silently play
    other rules: its config does not even parse."""
    with pytest.raises(ValidationError):
        GameConfig(map_id="usa", players=["A", "B"], seed=1, rules=RULES_VERSION + 1)
    snap = new_game(GameConfig(map_id="usa", players=["A", "B"], seed=1)).to_snapshot()
    with pytest.raises(ValidationError):
        GameState.from_snapshot({**snap, "config": {**snap["config"], "rules": RULES_VERSION + 1}})


# Controllers: who plays a seat -------------------------------------------------------------


def test_a_controller_is_read_in_one_place_and_stored_as_its_text() -> None:
    import pickle

    from engine.players import AUTO, CONTROLLERS, HUMAN, LEVELS, Controller

    assert [str(c) for c in CONTROLLERS] == ["human", "auto", *(f"computer:{lv}" for lv in LEVELS)]
    assert HUMAN.human and not AUTO.human and not Controller.computer("hard").human
    assert [c.level for c in CONTROLLERS] == [None, None, *LEVELS]
    assert Controller("computer:easy") == "computer:easy" == Controller.computer("easy")
    assert pickle.loads(pickle.dumps(AUTO)).__class__ is Controller  # to a worker and back
    for bad in ("", "Human", "computer", "computer:", "computer:expert", "bot"):
        with pytest.raises(ValueError, match="unknown controller"):
            Controller(bad)


@pytest.mark.parametrize("map_id", ["usa", "nordic", "iberia", "world"])
def test_the_public_view_says_which_face_up_cards_may_be_taken(map_id: str) -> None:
    """``PublicView.takeable_slots`` (what the market buttons show) is exactly the face-up
    draws the engine accepts from the seat whose turn it is, first and second card."""
    from engine import DrawFaceUp, public_view

    state, rng = new_game(GameConfig(map_id=map_id, players=["A", "B"], seed=5)), random.Random(5)
    checked = 0
    while state.phase != Phase.GAME_OVER and state.version < 300:
        seat = waiting_for(state)[0]
        legal = legal_actions(state, seat)
        if state.phase in (Phase.TURN, Phase.SECOND_DRAW):
            slots = sorted({a.slot for a in legal if isinstance(a, DrawFaceUp)})
            assert public_view(state).takeable_slots == slots, (state.phase, state.market)
            checked += 1
        else:
            assert public_view(state).takeable_slots == []
        apply(state, seat, rng.choice(legal))
    assert checked > 20
