"""A finished game's timelapse: an animated GIF under Discord's 10 MiB, 10-20 s long, one
frame per building turn (at most ``MAX_FRAMES``), whose last frame is the game's final map."""

from __future__ import annotations

import functools
import io
import json
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import engine
from bot.records.history import building_turns
from bot.render.board import draw_map, route_boxes
from bot.render.demo import final_view
from bot.render.highlight import LastMove
from bot.render.timelapse import (
    BAR_H,
    CLEAR,
    HOLD_MS,
    LIMIT_BYTES,
    MAX_FRAMES,
    MAX_TOTAL_MS,
    MIN_TOTAL_MS,
    PLAYERS_H,
    SCALE,
    _reduced,
    durations,
    groups,
    render_timelapse,
)
from engine import ACTION_ADAPTER, GameConfig, PublicView
from engine.modules import playable_maps

FIXTURES = Path(__file__).parents[1] / "engine" / "fixtures"


@functools.cache
def finished(map_id: str, most: bool = True) -> tuple[PublicView, tuple[LastMove, ...]]:
    """The stored game of ``map_id`` with the most (or fewest) players, replayed: its final
    public view and its building turns, from its public events (as the bot reads them from
    its log)."""
    games = json.loads((FIXTURES / f"games_{map_id}.json").read_text())
    game = (max if most else min)(games, key=lambda g: len(g["config"]["players"]))
    config = GameConfig.model_validate(game["config"])
    state = engine.new_game(config)
    events = []
    for seat, action in game["actions"]:
        events += engine.apply(state, seat, ACTION_ADAPTER.validate_python(action))
    return engine.public_view(state), tuple(building_turns(map_id, config.players, events))


def frames_of(gif: bytes) -> tuple[Image.Image, list[Image.Image], list[int]]:
    img = Image.open(io.BytesIO(gif))
    shown, times = [], []
    for i in range(img.n_frames):
        img.seek(i)
        shown.append(img.convert("RGB"))
        times.append(int(img.info["duration"]))
    img.seek(0)
    return img, shown, times


@pytest.mark.slow
@pytest.mark.parametrize("map_id", playable_maps())
def test_a_finished_game_of_every_map_makes_a_timelapse_under_10_mib(map_id: str) -> None:
    view, moves = finished(map_id)
    assert len(moves) >= 30  # a whole game's claims (stations, harbors)
    gif = render_timelapse(view, moves)
    assert len(gif) < LIMIT_BYTES
    img, shown, times = frames_of(gif)
    assert img.format == "GIF" and img.is_animated
    # The empty map, a frame per building turn (grouped beyond MAX_FRAMES), the winner.
    assert img.n_frames == min(len(moves), MAX_FRAMES) + 2
    assert MIN_TOTAL_MS <= sum(times) <= MAX_TOTAL_MS
    assert times[-1] >= HOLD_MS  # the last frame is held
    assert img.width <= 800  # readable at chat size: Discord shows ~550 px
    # Every claim, station and harbor reached the last frame: its map is the final map.
    bare = view.model_copy(update={"festival_piles": {}})
    final_map = _reduced(draw_map(bare), map_id).convert("RGB")
    last = shown[-1].crop((0, BAR_H, img.width, img.height - PLAYERS_H))
    assert ImageChops.difference(last, final_map).getbbox() is None
    # The first frame has no transparent pixel (a later frame's are those it keeps).
    first = Image.open(io.BytesIO(gif))
    assert first.mode == "P" and first.histogram()[CLEAR] == 0


@pytest.mark.slow
def test_a_double_route_closes_when_its_twin_is_claimed() -> None:
    view, moves = finished("usa", most=False)  # 2 players: one of each pair is closed
    assert view.closed
    _img, shown, _times = frames_of(render_timelapse(view, moves))
    bare = view.model_copy(update={"festival_piles": {}})
    final_map = _reduced(draw_map(bare), "usa").convert("RGB")
    last = shown[-1].crop((0, BAR_H, shown[-1].width, shown[-1].height - PLAYERS_H))
    assert ImageChops.difference(last, final_map).getbbox() is None


@pytest.mark.slow
def test_each_frame_adds_its_turns_claim_and_nothing_else_on_the_map() -> None:
    """A frame's map changes only around its turn's claim (which glows) and the claim
    before (whose glow goes)."""
    view, moves = finished("usa")
    _img, shown, _times = frames_of(render_timelapse(view, moves))
    reach = 16  # px in a frame: the glow around a route's pieces
    for i, move in enumerate(moves[:12], start=1):  # one turn per frame (< MAX_FRAMES)
        maps = [f.crop((0, BAR_H, f.width, f.height - PLAYERS_H)) for f in shown[i - 1:i + 1]]
        changed = ImageChops.difference(*maps).getbbox()
        assert changed is not None, move
        near = [*move.routes, *(moves[i - 2].routes if i > 1 else ())]
        boxes = [b for r in near for b in route_boxes("usa", r)]
        left = min(b[0] for b in boxes) // SCALE - reach
        top = min(b[1] for b in boxes) // SCALE - reach
        right = max(b[2] for b in boxes) // SCALE + reach
        bottom = max(b[3] for b in boxes) // SCALE + reach
        assert left <= changed[0] and top <= changed[1], (move, changed)
        assert changed[2] <= right and changed[3] <= bottom, (move, changed)


def test_frame_times_make_10_to_20_seconds_for_any_number_of_turns() -> None:
    for frames in range(MAX_FRAMES + 1):
        times = durations(frames)
        assert len(times) == frames + 2
        assert MIN_TOTAL_MS <= sum(times) <= MAX_TOTAL_MS, frames
        assert all(t % 10 == 0 and t >= 20 for t in times)  # GIF: 1/100 s; < 20 ms is slowed
        assert times[-1] >= HOLD_MS


def test_turns_beyond_the_frame_budget_share_frames_in_order() -> None:
    moves = [LastMove(seat=i % 3, routes=(i,)) for i in range(MAX_FRAMES * 2 + 7)]
    grouped = groups(moves)
    assert len(grouped) == MAX_FRAMES
    assert [m for g in grouped for m in g] == moves
    assert max(map(len, grouped)) - min(map(len, grouped)) <= 1
    assert groups(moves[:5]) == [[m] for m in moves[:5]]
    assert groups([]) == []


@pytest.mark.slow
def test_a_long_game_stays_within_the_frame_budget() -> None:
    view = final_view("usa", seed=3, players=5)
    routes = sorted(view.claimed)
    moves = tuple(LastMove(seat=view.claimed[r], routes=(r,), caption=f"{r}")
                  for r in routes * 3)  # more turns than frames
    assert len(moves) > MAX_FRAMES
    img, _shown, times = frames_of(render_timelapse(view, moves))
    assert img.n_frames == MAX_FRAMES + 2
    assert MIN_TOTAL_MS <= sum(times) <= MAX_TOTAL_MS


def test_only_a_finished_game_has_a_timelapse() -> None:
    view, moves = finished("usa")
    with pytest.raises(ValueError, match="finished"):
        render_timelapse(view.model_copy(update={"final": None}), moves)
