"""A finished game's board as an animated GIF, claim by claim, for the final scores.

Built from public data only: the final public view (who built what, which double routes
closed, the scores) and the game's building turns in order (``LastMove`` per turn, from the
stored log's public events). A frame shows the map at chat size (the board's map reduced
2x: 800 px wide on a landscape map) with the turn's pieces glowing as on the board, a bar
above it with the turn's player, what they built and how far the game is (n/N and a
progress line), and the players below it with their route points so far; the last
frame, held, shows the final map and names the winner and the final totals.

Each frame redraws only what changed (the changed regions of the map at full size,
reduced and mapped to the map's board palette, the bar, the players' line); the GIF's
frames are that palette's indices, so no frame is quantized whole. A long game's turns
are grouped so that at most ``MAX_FRAMES`` frames are made (memory: the GIF writer holds
them all, ~0.5 MB each); frame times are scaled so the whole runs 10-15 s.
"""

from __future__ import annotations

import functools
import io
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from bot import i18n
from bot.i18n import _, _n
from engine.views import PublicView
from maps.model import MapData

from . import MapKey, board_palette, merge_boxes
from .board import Box, base_for, blend, draw_map
from .demo import empty_view
from .fonts import font
from .highlight import LastMove, _glow, _glow_box, _spots
from .palette import ACCENT, PANEL_BG, PANEL_DIM, PANEL_FG, player_fill, player_shape, shade
from .panel import fit_text
from .shapes import mark_sprite

SCALE = 2  # the map at half its board size: box-filtered, so a region reduces exactly
BAR_H = 40  # the caption bar above the map
PROGRESS_H = 4  # the progress line at the bar's bottom
PLAYERS_H = 32  # the players' line under the map
MAX_FRAMES = 120
FIRST_MS = 800  # the empty map
HOLD_MS = 3000  # the last frame: the winner
STEPS_MS = 11_000  # the building turns together, as long as frames of MAX_MS allow
MIN_MS, MAX_MS = 40, 1000  # one frame of building turns
MIN_TOTAL_MS, MAX_TOTAL_MS = 10_000, 20_000
LIMIT_BYTES = 10 * 2**20  # Discord's attachment limit


def durations(frames: int) -> list[int]:
    """How long each frame shows (ms), for ``frames`` frames of building turns between the
    empty map and the held last frame: 10-15 s in all. GIF counts in 1/100 s."""
    step = 0 if frames == 0 else max(MIN_MS, min(MAX_MS, STEPS_MS // frames // 10 * 10))
    hold = max(HOLD_MS, MIN_TOTAL_MS - FIRST_MS - frames * step)
    return [FIRST_MS, *[step] * frames, hold]


def groups(moves: Sequence[LastMove], most: int = MAX_FRAMES) -> list[list[LastMove]]:
    """The building turns in at most ``most`` frames, consecutive turns together, as evenly
    as they go."""
    n = len(moves)
    count = min(n, most)
    return [list(moves[i * n // count:(i + 1) * n // count]) for i in range(count)]


@dataclass
class _Board:
    """What the frames show so far, as a public view grows turn by turn."""

    final: PublicView
    claimed: dict[int, int]
    stations: dict[str, int]
    harbors: dict[str, int]
    points: list[int]

    def add(self, move: LastMove, m: MapData) -> None:
        routes = {r.id: r for r in m.routes}
        for rid in move.routes:
            self.claimed[rid] = move.seat
            if rid in routes and 0 <= move.seat < len(self.points):
                self.points[move.seat] += m.rules.route_points.get(routes[rid].length, 0)
        for city in move.cities:  # the final view says which each is
            if city in self.final.harbors:
                self.harbors[city] = move.seat
            else:
                self.stations[city] = move.seat

    def view(self, m: MapData) -> PublicView:
        """The map's public view at this point: a double route is closed once its twin is
        claimed (if the game closed it)."""
        twin = {r.id: r.double_of for r in m.routes if r.double_of is not None}
        closed = [r for r in self.final.closed if twin.get(r) in self.claimed]
        return empty_view(self.final.map_id).model_copy(update={
            "claimed": dict(self.claimed), "closed": closed, "stations": dict(self.stations),
            "harbors": dict(self.harbors)})


# The palette's last index is kept free: a frame's pixels that did not change are set to
# it, transparent (the GIF writer's ``optimize``), and a few changed pixels cost little.
CLEAR = 255


@functools.cache
def timelapse_palette(map_id: str) -> Image.Image:
    """The board palette with its last colour a copy of the one before (quantizing picks
    the lower index of two equal colours, so no pixel takes ``CLEAR``)."""
    colours = (board_palette(map_id).getpalette() or [])[:3 * CLEAR]
    palette = Image.new("P", (1, 1))
    palette.putpalette(colours + colours[-3:])
    return palette


def _reduced(img: Image.Image, map_id: str) -> Image.Image:
    """Map pixels at frame size, in the timelapse palette."""
    return img.convert("RGB").reduce(SCALE).quantize(palette=timelapse_palette(map_id),
                                                     dither=Image.Dither.NONE)


def empty_map(map_id: str) -> Image.Image:
    """The map with nothing built, at frame size, in the language being drawn (kept per
    process: every timelapse of the map starts from it)."""
    return _empty_map(map_id, i18n.current())


@functools.cache
def _empty_map(map_id: str, lang: str) -> Image.Image:
    return _reduced(draw_map(empty_view(map_id)), map_id)


def _aligned(box: Box, width: int, height: int) -> Box:
    """``box`` grown to even edges (a region reduces to the whole map's pixels there)."""
    return (box[0] - box[0] % SCALE, box[1] - box[1] % SCALE,
            min(width, math.ceil(box[2] / SCALE) * SCALE),
            min(height, math.ceil(box[3] / SCALE) * SCALE))


def _bar(width: int, caption: str, seat: int | None, done: int, total: int) -> Image.Image:
    """The caption bar: the player's mark and what they built, n/N, the progress line."""
    img = Image.new("RGB", (width, BAR_H), PANEL_BG)
    d = ImageDraw.Draw(img)
    x = 10
    if seat is not None:
        blend(img, mark_sprite(player_shape(seat), player_fill(seat), 24), x,
              (BAR_H - PROGRESS_H - 24) // 2)
        x += 32
    count = f"{done}/{total}" if total else ""
    count_w = font(15).getlength(count) + 12 if count else 0
    d.text((x, (BAR_H - PROGRESS_H) // 2), fit_text(caption, 18, "bold", width - x - count_w - 10),
           font=font(18, "bold"), fill=PANEL_FG, anchor="lm")
    if count:
        d.text((width - 10, (BAR_H - PROGRESS_H) // 2), count, font=font(15), fill=PANEL_DIM,
               anchor="rm")
    d.rectangle((0, BAR_H - PROGRESS_H, width, BAR_H), fill=shade(PANEL_BG, 1.3))
    if total:
        fill = ACCENT if seat is None else player_fill(seat)
        d.rectangle((0, BAR_H - PROGRESS_H, round(width * done / total) - 1, BAR_H), fill=fill)
    return img


def _players(width: int, names: Sequence[str], points: Sequence[int]) -> Image.Image:
    """Each player's mark, name and points, in a line under the map."""
    img = Image.new("RGB", (width, PLAYERS_H), PANEL_BG)
    d = ImageDraw.Draw(img)
    each = width // max(1, len(names))
    for seat, (name, score) in enumerate(zip(names, points, strict=True)):
        x = seat * each + 8
        blend(img, mark_sprite(player_shape(seat), player_fill(seat), 18), x, 7)
        score_text = str(score)
        score_w = font(15, "bold").getlength(score_text)
        d.text((x + 24, PLAYERS_H // 2), fit_text(name, 15, "regular", each - 44 - score_w),
               font=font(15), fill=PANEL_FG, anchor="lm")
        d.text((x + each - 14, PLAYERS_H // 2), score_text, font=font(15, "bold"),
               fill=ACCENT, anchor="rm")
    return img


def _light(frame: Image.Image, view: PublicView, last: LastMove) -> list[Box]:
    """The pieces ``last`` placed, glowing (as on the board's highlight) on ``frame``;
    returns the map's region that glows."""
    base = base_for(view.map_id)
    lay = base.layout
    spaces, cities = _spots(base, last)
    if not spaces and not cities:
        return []
    box = _aligned(_glow_box(spaces, cities, lay.width, lay.height), lay.width, lay.height)
    work = draw_map(view, box)
    _glow(work, box[:2], box, base, view, last, spaces, cities)
    frame.paste(_reduced(work, view.map_id), (box[0] // SCALE, BAR_H + box[1] // SCALE))
    return [box]


def winner_line(final: PublicView) -> str:
    """The last frame's caption: who won, with how many points (the final image's words)."""
    scores = final.final
    assert scores is not None
    names = [p.name for p in scores.players if p.seat in scores.winners]
    best = max((p.total for p in scores.players), default=0)
    if len(names) == 1:
        return _n("{name} wins with {n} point", "{name} wins with {n} points", best,
                  name=names[0])
    return _n("{names} share the win with {n} point", "{names} share the win with {n} points",
              best, names=_(" and ").join(names))


def frames(final: PublicView, moves: Sequence[LastMove]) -> Iterator[Image.Image]:
    """The timelapse's frames ("P", the board palette), each made from the one before."""
    base = base_for(final.map_id)
    m, lay = base.map, base.layout
    palette = timelapse_palette(final.map_id)
    names = [p.name for p in final.players]
    small = empty_map(final.map_id)
    width, map_h = small.size
    frame = Image.new("P", (width, BAR_H + map_h + PLAYERS_H))
    frame.putpalette(palette.getpalette() or [])

    def put(img: Image.Image, at: tuple[int, int]) -> None:
        frame.paste(img.quantize(palette=palette, dither=Image.Dither.NONE), at)

    board = _Board(final, {}, {}, {}, [0] * len(names))
    frame.paste(small, (0, BAR_H))
    put(_bar(width, _(m.name), None, 0, 0), (0, 0))
    put(_players(width, names, board.points), (0, BAR_H + map_h))
    yield frame.copy()
    def draw(view: PublicView, boxes: list[Box]) -> None:
        for box in merge_boxes([_aligned(b, lay.width, lay.height) for b in boxes]):
            frame.paste(_reduced(draw_map(view, box), final.map_id),
                        (box[0] // SCALE, BAR_H + box[1] // SCALE))

    turns = groups(moves)
    key = MapKey.of(board.view(m))
    lit: list[Box] = []  # the glow of the frame before, drawn over next
    for i, group in enumerate(turns):
        for move in group:
            board.add(move, m)
        view = board.view(m)
        new = MapKey.of(view)
        draw(view, [*new.changed_boxes(key), *lit])
        key = new
        last = group[-1]
        lit = _light(frame, view, last)
        put(_bar(width, last.caption, last.seat, i + 1, len(turns)), (0, 0))
        put(_players(width, names, board.points), (0, BAR_H + map_h))
        yield frame.copy()
    draw(board.view(m), lit)
    scores = final.final
    totals = [0] * len(names)
    for p in scores.players if scores is not None else ():
        if 0 <= p.seat < len(totals):
            totals[p.seat] = p.total
    alone = scores.winners[0] if scores is not None and len(scores.winners) == 1 else None
    put(_bar(width, winner_line(final), alone, len(turns), len(turns)), (0, 0))
    put(_players(width, names, totals), (0, BAR_H + map_h))
    yield frame.copy()


def render_timelapse(final: PublicView, moves: Sequence[LastMove]) -> bytes:
    """The animated GIF of a finished game (``final``: its public view after final scoring;
    ``moves``: its building turns in order), looping."""
    if final.final is None:
        raise ValueError("render_timelapse needs a view of a finished game (view.final is None)")
    made = frames(final, moves)
    first = next(made)
    times = durations(len(groups(moves)))
    buf = io.BytesIO()
    first.save(buf, "GIF", save_all=True, append_images=made, duration=times, loop=0,
               optimize=True, transparency=CLEAR)
    return buf.getvalue()
