"""Labels on the images fit, in English and in German (issue 13: German words are longer).

Every word an image module draws is measured as it is drawn: its text box must lie inside
the image it is drawn on, overlap no other text there, and not have been cut short with
an ellipsis. Checked on every map: the board's panel in every phase, the hand and the
final scores. (The map's city names follow the board's own spelling in both languages,
so the map layer is not measured here.)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import pytest
from PIL import Image, ImageDraw

import maps
from bot import i18n
from bot.play import presenters
from bot.play.endings import end_reason
from bot.render import panel_image
from bot.render.demo import empty_view, final_view, hand_view, mid_view
from bot.render.final import draw_scores
from bot.render.hand import draw_hand
from bot.render.palette import player_fill
from engine.events import GameEnded
from engine.phases import Phase
from engine.views import PendingTunnel, PublicView, TicketResult

# The modules that draw words (the map layer, cards and symbols are measured elsewhere).
WORDS = {"bot.render.panel", "bot.render.final", "bot.render.hand", "bot.render.extras",
         "bot.render.shares", "bot.render.highlight"}


@dataclass(frozen=True)
class Label:
    where: str  # the function that drew it
    text: str
    box: tuple[int, int, int, int]
    image: Any  # the image drawn on (its core object)
    font: Any = None


@pytest.fixture
def labels(monkeypatch: pytest.MonkeyPatch) -> list[Label]:
    """Every text the word-drawing modules draw, with its box, from now on."""
    drawn: list[Label] = []
    original = ImageDraw.ImageDraw.text

    def text(self: ImageDraw.ImageDraw, xy: Any, text: Any, fill: Any = None,
             font: Any = None, anchor: Any = None, *args: Any, **kwargs: Any) -> None:
        caller = sys._getframe(1)
        if caller.f_globals["__name__"] in WORDS:
            box = self.textbbox(xy, text, font=font, anchor=anchor,
                                stroke_width=kwargs.get("stroke_width", 0))
            drawn.append(Label(caller.f_code.co_name, str(text),
                               tuple(round(v) for v in box), self.im,  # type: ignore[arg-type]
                               font))
        original(self, xy, text, fill, font, anchor, *args, **kwargs)

    monkeypatch.setattr(ImageDraw.ImageDraw, "text", text)
    return drawn


def problems(labels: list[Label]) -> list[str]:
    """What does not fit: outside the image, over another text, or cut short."""
    found = []
    for i, a in enumerate(labels):
        width, height = a.image.size
        x0, y0, x1, y1 = a.box
        if x0 < 0 or y0 < 0 or x1 > width or y1 > height:
            found.append(f"{a.where}: {a.text!r} {a.box} leaves its {width}x{height} image")
        if a.text.endswith("…"):
            found.append(f"{a.where}: {a.text!r} is cut short")
        for b in labels[i + 1:]:
            if b.image is a.image and (a.box[0] < b.box[2] - 1 and b.box[0] < a.box[2] - 1
                                       and a.box[1] < b.box[3] - 1 and b.box[1] < a.box[3] - 1):
                found.append(f"{a.where}: {a.text!r} overlaps {b.where}: {b.text!r}")
    labels.clear()
    return found


# Every phase the panel describes, and the moments with more to say (a tunnel, the last round).
PHASES = [p for p in Phase if p != Phase.TUNNEL]  # the tunnel comes with its pending claim


@pytest.mark.slow
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("map_id", maps.map_ids())
def test_every_label_fits(labels: list[Label], map_id: str,
                          lang: i18n.Language) -> None:
    found: list[str] = []
    with i18n.language(lang):
        mid = mid_view(map_id, players=5)
        for phase in PHASES:
            panel_image(mid.model_copy(update={"phase": phase}))
        for colour in ("purple", "locomotive"):
            tunnel = PendingTunnel(seat=2, route=0, color=colour, extra=2,
                                   revealed=["purple", "locomotive", "red"])
            panel_image(mid.model_copy(update={"phase": Phase.TUNNEL, "last_round": True,
                                               "tunnel": tunnel}))
        panel_image(empty_view(map_id, players=2))
        panel_image(empty_view(map_id, players=2).model_copy(update={"turn": 0}))  # setup
        found += problems(labels)
        draw_hand(hand_view(map_id), map_id)
        found += problems(labels)
        for players in (2, 5):
            draw_scores(final_view(map_id, players=players))
            found += problems(labels)
    assert labels == [] and not found, "\n".join(found)


def test_the_measure_finds_a_label_that_does_not_fit(labels: list[Label],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself: a word past the edge, two words on top of each other, an ellipsis."""
    from bot.render.fonts import font
    from bot.render.panel import fit_text

    monkeypatch.setattr(sys.modules[__name__], "WORDS", WORDS | {__name__})
    d = ImageDraw.Draw(Image.new("RGB", (100, 40)))
    d.text((60, 5), "Zielkarten", font=font(15))
    d.text((2, 5), "Wagen", font=font(15))
    d.text((2, 8), "Lok", font=font(15))
    d.text((2, 22), fit_text("Schiffskarten", 15, "regular", 60), font=font(15))
    found = problems(labels)
    assert any("'Zielkarten'" in f and "leaves" in f for f in found), found
    assert any("'Wagen'" in f and "overlaps" in f and "'Lok'" in f for f in found), found
    assert any("cut short" in f for f in found), found
    assert len(found) == 3, found


def _with_tickets(view: PublicView, tickets: list[TicketResult]) -> PublicView:
    assert view.final is not None
    players = [p.model_copy(update={"tickets": tickets}) for p in view.final.players]
    return view.model_copy(update={"final": view.final.model_copy(update={"players": players})})


@pytest.mark.parametrize("map_id", ["usa", "world"])
def test_every_ticket_is_written_out_under_the_score_bars(labels: list[Label],
                                                          map_id: str) -> None:
    """Issue 27 (6): fourteen tickets each (World's name several cities) wrap onto more
    lines under a player's bar; none is cut short."""
    m = maps.load_map(map_id)
    many = [TicketResult(id=t.id, cities=t.cities, points=-t.points if i % 3 else t.points)
            for i, t in enumerate(sorted(m.tickets, key=lambda t: -len(t.cities))[:14])]
    draw_scores(_with_tickets(final_view(map_id, players=5), many))
    written = " ".join(a.text for a in labels if a.where == "draw_scores")
    names = {c.id: c.name for c in m.cities}
    for t in many:
        assert "–".join(names[c] for c in t.cities) + f" {t.points:+d}" in written
    assert not problems(labels)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize(("map_id", "reason"), [("usa", "trains"), ("world", "trains"),
                                                ("europe", "stalled")])
def test_the_end_reason_reads_the_same_in_the_channel_and_on_the_image(
        labels: list[Label], lang: i18n.Language, map_id: str, reason: str) -> None:
    """Issue 27 (6): the channel's last line and the final image give one reason, in the
    same words ("ran low": the game ends with up to 2 trains left, not only at none)."""
    with i18n.language(lang):
        view = final_view(map_id, players=3)
        assert view.final is not None
        view = view.model_copy(update={"final": view.final.model_copy(
            update={"reason": reason})})
        line = " ".join(presenters.event_lines(map_id, ["Ana", "Ben", "Cy"],
                                               [GameEnded(seat=0, reason=reason, winners=(0,))]))
        phrase = end_reason(reason, map_id == "world")
        draw_scores(view)
        assert phrase and phrase in line
        assert any(phrase in a.text for a in labels), [a.text for a in labels][:5]


def test_the_routes_swatch_of_the_score_bars_shows_every_players_colour(
        labels: list[Label]) -> None:
    """Issue 26 (18): each bar's routes part is in its player's colour, so the legend's
    routes swatch shows all of them (it showed the winner's only)."""
    view = final_view("usa", players=5)
    img = draw_scores(view).convert("RGB")
    (routes,) = [a for a in labels if a.where == "draw_scores" and a.text == "routes"]
    x0, y0, _x1, y1 = routes.box
    swatch = img.crop((x0 - 60, y0 - 2, x0, y1 + 2))
    colours = {c for _n, c in swatch.getcolors(10_000) or []}
    assert {player_fill(seat) for seat in range(5)} <= colours


# Discord shows an image ~550 px wide in the chat; capitals 9 px tall read there.
INLINE_WIDTH = 550
LEGIBLE_PX = 9


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("map_id", maps.map_ids())
def test_scores_turn_and_whose_move_read_at_discords_inline_width(
        labels: list[Label], map_id: str, lang: i18n.Language) -> None:
    """Issue 27 (4): with the board scaled to 550 px wide, the players' names and scores,
    the turn and whose move it is are set with capitals >= 9 px tall (they were ~5)."""
    from bot.render import board_image
    from bot.render.panel import phase_text

    with i18n.language(lang):
        players = maps.load_map(map_id).rules.players_max
        view = mid_view(map_id, players=players)
        scale = INLINE_WIDTH / board_image(view).width
        turn, phase = i18n._("Turn {n}", n=view.turn), phase_text(view)
    m = maps.load_map(map_id)

    def cap(a: Label) -> float:
        _left, top, _right, bottom = a.font.getbbox("H")
        return (bottom - top) * scale

    # Whose move may take two lines on a narrow panel: its labels after the turn's.
    title = [a for a in labels if a.where == "title_block" and a.text not in (m.name, turn)]
    assert " ".join(a.text for a in title) == phase
    wanted = {turn, *(p.name for p in view.players), *(str(p.score) for p in view.players)}
    for text in wanted:
        assert any(cap(a) >= LEGIBLE_PX for a in labels if a.text == text), (
            text, [round(cap(a), 1) for a in labels if a.text == text])
    for a in title:
        assert cap(a) >= LEGIBLE_PX, (a.text, round(cap(a), 1))
