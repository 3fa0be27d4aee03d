"""The information panel of the board image: title, players, market."""

from __future__ import annotations

from PIL import Image, ImageDraw

from bot.i18n import N_, _, _n
from engine.phases import Phase
from engine.views import PublicPlayer, PublicView
from maps.model import MapData, Route

from .board import blend
from .cards import card_parts, card_sprite
from .fonts import Face, Font, font
from .icons import FESTIVAL, anchor_badge, tent_sprite
from .palette import (
    ACCENT,
    PANEL_BG,
    PANEL_DIM,
    PANEL_FG,
    RGB,
    player_fill,
    player_shape,
    shade,
    suit_letter,
)
from .shapes import mark_sprite
from .shares import companies, company_fill, draw_tag, tag_width

CARD_W, CARD_H = 54, 78


def phase_text(view: PublicView) -> str:
    who = view.players[view.current].name if view.current is not None else ""
    texts = {
        Phase.CHOOSE_INITIAL_TICKETS: N_("Everyone is choosing tickets"),
        Phase.TURN: N_("{who} to play"),
        Phase.SECOND_DRAW: N_("{who} draws a second card"),
        Phase.CHOOSE_TICKETS: N_("{who} is choosing tickets"),
        Phase.TUNNEL: N_("{who} decides whether to pay for a tunnel"),
        Phase.CHOOSE_SHARE: N_("{who} is choosing a share"),
        Phase.CHOOSE_NEUTRAL_SHARE: N_("{who} gives the neutral investor a share"),
        Phase.DRAFT: N_("Ticket draft: everyone picks a ticket and passes the rest on"),
        Phase.DRAFT_KEEP: N_("Ticket draft: everyone chooses the tickets to keep"),
        Phase.CHOOSE_FESTIVAL: N_("{who} chooses which city's festival cards to take"),
        Phase.CHOOSE_PIECES: N_("Everyone is choosing their split of trains and ships"),
        Phase.GAME_OVER: N_("Game over"),
    }
    found = texts.get(view.phase)
    return _(found, who=who) if found else view.phase


def acting(view: PublicView) -> int | None:
    """The seat to highlight as the one to play (None while everyone decides at once)."""
    return None if view.phase.simultaneous else view.current


def sails(m: MapData) -> bool:
    """Rails & Sails: pieces are trains and ships, locomotives are jokers."""
    return m.rules.rails_and_sails is not None


def deck_lines(view: PublicView, m: MapData) -> list[str]:
    if sails(m):
        return [
            _("Decks: {trains} train, {ships} ship  ·  Tickets {tickets}", trains=view.deck,
              ships=view.ship_deck, tickets=view.tickets_left),
            _("Discards: {trains} train, {ships} ship", trains=view.discards,
              ships=view.ship_discards),
        ]
    return [_("Deck {deck}  ·  Discards {discards}  ·  Tickets {tickets}", deck=view.deck,
              discards=view.discards, tickets=view.tickets_left)]


BANNER_SIZE = 22


def _banner(d: ImageDraw.ImageDraw, x: int, y: int, text: str, fill: RGB) -> int:
    """A red or coloured pill with white capitals, like LAST ROUND; returns the y below it."""
    w = int(font(BANNER_SIZE, "bold").getlength(text)) + 28
    d.rounded_rectangle((x, y + 2, x + w, y + 38), radius=9, fill=fill)
    d.text((x + w / 2, y + 20), text, font=font(BANNER_SIZE, "bold"), fill=(255, 255, 255),
           anchor="mm")
    return y + 44


def fit_text(text: str, size: int, face: Face, width: float) -> str:
    """Shorten ``text`` with an ellipsis until it fits ``width`` px."""
    f = font(size, face)
    if f.getlength(text) <= width:
        return text
    while text and f.getlength(text + "…") > width:
        text = text[:-1]
    return text + "…"


def fit_font(text: str, size: int, face: Face, width: float, smallest: int = 10) -> Font:
    """The largest font up to ``size`` in which ``text`` fits ``width`` px (at least
    ``smallest``): a longer word (German) is set smaller rather than cut."""
    while size > smallest and font(size, face).getlength(text) > width:
        size -= 1
    return font(size, face)


def section_heading(
    d: ImageDraw.ImageDraw, x: int, y: int, title: str, note: str, *, size: int = 20,
    fill: RGB = PANEL_FG,
) -> None:
    """A bold section title with a dim explanatory note after it on the same line."""
    bold = font(size, "bold")
    d.text((x, y), title, font=bold, fill=fill)
    d.text((x + bold.getlength(title) + 16, y + size // 5), note, font=font(size - 6),
           fill=PANEL_DIM)


# Text sizes read at Discord's inline width (~550 px: a landscape board shrinks to ~34 %,
# a portrait one to ~37 %): the turn, whose move ("Ana to play"), the players' names and
# scores are 38 px (``LEGIBLE``), so their capitals stay >= 9 px tall there.
LEGIBLE = 38
TITLE_SIZES = (44, 40, 36, 32, 28, 24)  # a long map name on a narrow panel: smaller
TURN_SIZE = LEGIBLE
PHASE_SIZE = LEGIBLE
PHASE_SMALLEST = 18  # a long phase text (a draft, a tunnel) is set smaller, down to this
TITLE_H = 56  # the title's line
PHASE_H = 48  # a line of the phase text


def title_line(view: PublicView, m: MapData, w: int) -> tuple[int, str, str, bool]:
    """The map's name (its size, and the name as it fits), the turn after it, and whether
    the turn goes on a line of its own (a long name on a narrow panel)."""
    turn = _("Turn {n}", n=view.turn) if view.turn > 0 else _("Setup")
    room = w - 20 - round(font(TURN_SIZE, "bold").getlength(turn))
    size = next((n for n in TITLE_SIZES if font(n, "title").getlength(m.name) <= room), None)
    if size is not None:
        return size, m.name, turn, False
    size = next((n for n in TITLE_SIZES if font(n, "title").getlength(m.name) <= w),
                TITLE_SIZES[-1])
    return size, fit_text(m.name, size, "title", w), turn, True


def title_block(img: Image.Image, x: int, y: int, w: int, view: PublicView, m: MapData,
                most: int = 1) -> int:
    """The map's name and the turn, then whose move it is (in up to ``most`` lines; a text
    too long for one line at ``PHASE_SMALLEST`` takes two small ones in its place);
    returns the y below them."""
    d = ImageDraw.Draw(img)
    size, name, turn, stacked = title_line(view, m, w)
    title = font(size, "title")
    base = y + 44  # the title's baseline, whatever its size
    d.text((x, base), name, font=title, fill=PANEL_FG, anchor="ls")
    if stacked:
        base += TITLE_H
        y += TITLE_H
    d.text((x + (0 if stacked else title.getlength(name) + 20), base), turn,
           font=font(TURN_SIZE, "bold"), fill=ACCENT, anchor="ls")
    y += TITLE_H
    indent = 0
    seat = acting(view)
    if seat is not None:
        blend(img, mark_sprite(player_shape(seat), player_fill(seat), 34), x, y + 6)
        indent = 46
    text, room = phase_text(view), w - indent
    size, lines = fit_lines(text, PHASE_SIZE, room, most, "bold", " ", PHASE_SMALLEST)
    step = PHASE_H
    if most == 1 and lines[0].endswith("…"):
        size, lines = fit_lines(text, PHASE_H // 2 - 4, room, 2, "bold", " ", 12)
        step = PHASE_H // 2
    for line in lines:
        d.text((x + indent, y + step // 2 + 1), line, font=font(size, "bold"),
               fill=PANEL_FG, anchor="lm")
        y += step
    return y


def status_block(img: Image.Image, x: int, y: int, w: int, view: PublicView, m: MapData) -> int:
    """The deck, discards and tickets left, and the banners (LAST ROUND, TICKET DRAFT);
    returns the y below them."""
    d = ImageDraw.Draw(img)
    for line in deck_lines(view, m):
        d.text((x, y), fit_text(line, 15, "regular", w), font=font(15), fill=PANEL_DIM)
        y += 22
    y += 4
    banners = []
    if view.phase in (Phase.DRAFT, Phase.DRAFT_KEEP):
        banners.append((_("TICKET DRAFT"), FESTIVAL))
    if view.last_round and view.phase != Phase.GAME_OVER:
        banners.append((_("LAST ROUND"), (196, 58, 44)))
    bx = x
    for text, fill in banners:  # side by side
        bottom = _banner(d, bx, y, text, fill)
        bx += int(font(BANNER_SIZE, "bold").getlength(text)) + 28 + 10
    return bottom if banners else y


def player_stats(p: PublicPlayer, view: PublicView, m: MapData) -> list[tuple[str, str, str]]:
    """(column heading, value, the value with its noun for the narrow panel) per figure."""
    if sails(m):
        pieces = (_("Pieces"), str(p.trains), _n("{n} piece", "{n} pieces", p.trains))
    else:
        pieces = (_("Trains"), str(p.trains), _n("{n} train", "{n} trains", p.trains))
    if view.piece_split:  # Rails & Sails, once everyone has chosen: the split is public
        split = view.piece_split[p.seat]
        both = f"{split['trains']}/{split['ships']}"
        pieces = (_("Trains/Ships"), both, _("{n} trains/ships", n=both))
    out = [(_("Score"), str(p.score), _n("{n} point", "{n} points", p.score)), pieces,
           (_("Cards"), str(p.hand_size), _n("{n} card", "{n} cards", p.hand_size)),
           (_("Tickets"), str(p.tickets), _n("{n} ticket", "{n} tickets", p.tickets))]
    if m.rules.stations is not None:
        out.insert(2, (_("Stations"), str(p.stations),
                       _n("{n} station", "{n} stations", p.stations)))
    if sails(m):  # after Cards: a narrow label beside the wide Trains/Ships
        harbors = sum(1 for s in view.harbors.values() if s == p.seat)
        out.insert(3, (_("Harbors"), str(harbors), _n("{n} harbor", "{n} harbors", harbors)))
    return out


NUM_W = 84  # a figure's column in the wide players table
HEADING_H = 28  # the wide table's column headings
ROW_H = 48  # a row of the wide table
COMPACT_ROW_H = 90  # a stacked two-line row of the narrow panel
MARK = 34  # a seat's mark in the table
STAT_SIZE = 32  # the figures after the score


def table_shape(view: PublicView, m: MapData, w: int) -> tuple[int, bool, int]:
    """The players table in ``w`` px: the names' width, whether rows are the stacked
    two-line ones of a narrow panel, and the height of a row."""
    ncols = len(player_stats(view.players[0], view, m)) if view.players else 4
    name_w = w - MARK - 12 - NUM_W * ncols
    compact = name_w < 200
    return name_w, compact, COMPACT_ROW_H if compact else ROW_H


def players_heading(img: Image.Image, x: int, y: int, w: int, view: PublicView,
                    m: MapData) -> int:
    """The column headings of the wide table (none on a narrow panel); returns the y of
    the first row."""
    name_w, compact, _row_h = table_shape(view, m, w)
    if compact:
        return y
    d = ImageDraw.Draw(img)
    for i, (label, *_values) in enumerate(
            player_stats(view.players[0], view, m) if view.players else []):
        cx = x + MARK + 12 + name_w + i * NUM_W + NUM_W // 2
        d.text((cx, y), label, font=fit_font(label, 20, "bold", NUM_W - 4), fill=PANEL_DIM,
               anchor="ma")
    d.text((x + MARK + 12, y), _("Player"), font=font(20, "bold"), fill=PANEL_DIM)
    return y + HEADING_H


def player_name(p: PublicPlayer) -> str:
    return _("{name}  (choosing)", name=p.name) if p.deciding else p.name


def player_row(img: Image.Image, x: int, y: int, w: int, p: PublicPlayer, view: PublicView,
               m: MapData) -> None:
    """One player's row of the table, ``table_shape``'s row height tall from ``y``: the
    name and score at ``LEGIBLE`` size (a long name is set smaller, then cut)."""
    d = ImageDraw.Draw(img)
    name_w, compact, row_h = table_shape(view, m, w)
    if p.seat == acting(view):
        d.rounded_rectangle(
            (x - 6, y + 1, x + w + 4, y + row_h - 3),
            radius=9,
            fill=shade(PANEL_BG, 1.12),
            outline=ACCENT,
            width=3,
        )
    name = player_name(p)
    stats = player_stats(p, view, m)
    score = font(LEGIBLE, "bold")
    line = y + (row_h // 4 if compact else row_h // 2)  # the name's middle
    blend(img, mark_sprite(player_shape(p.seat), player_fill(p.seat), MARK), x,
          line - MARK // 2 - 1)
    if compact:
        # The name and the score on the first line, the other figures under them.
        value = stats[0][1]
        right = x + w - 6
        room = w - MARK - 12 - 16 - score.getlength(value) - 6
        f = fit_font(name, LEGIBLE, "bold", room, 26)
        d.text((x + MARK + 12, line), fit_text(name, round(f.size), "bold", room), font=f,
               fill=PANEL_FG, anchor="lm")
        d.text((right, line), value, font=score, fill=ACCENT, anchor="rm")
        rest = "  ·  ".join(text for _label, _value, text in stats[1:])
        size, (text, *_more) = fit_lines(rest, 24, w - MARK - 12, 1, "regular", "  ·  ", 16)
        d.text((x + MARK + 12, y + 3 * row_h // 4 - 2), text, font=font(size),
               fill=PANEL_FG, anchor="lm")
    else:
        f = fit_font(name, LEGIBLE, "bold", name_w - 8, 26)
        d.text((x + MARK + 12, line), fit_text(name, round(f.size), "bold", name_w - 8),
               font=f, fill=PANEL_FG, anchor="lm")
        for i, (_label, v, _text) in enumerate(stats):
            cx = x + MARK + 12 + name_w + i * NUM_W + NUM_W // 2
            f = score if i == 0 else fit_font(v, STAT_SIZE, "regular", NUM_W - 8, 20)
            d.text((cx, line), v, font=f, fill=ACCENT if i == 0 else PANEL_FG, anchor="mm")


def players_block(img: Image.Image, x: int, y: int, w: int, view: PublicView, m: MapData) -> int:
    """A table with one row per player; stacked two-line rows when the panel is narrow."""
    y = players_heading(img, x, y, w, view, m)
    row_h = table_shape(view, m, w)[2]
    for p in view.players:
        player_row(img, x, y, w, p, view, m)
        y += row_h
    return y


def market_width(view: PublicView) -> int:
    n = max(1, len(view.market))
    return n * CARD_W + (n - 1) * 12


def market_block(img: Image.Image, x: int, y: int, w: int, view: PublicView, m: MapData) -> int:
    d = ImageDraw.Draw(img)
    jokers = sails(m)
    title = _("Face-up cards")
    if jokers:
        ships = sum(1 for c in view.market if c and card_parts(c)[1] in ("ship", "double"))
        title = _("Face-up cards  ({trains} train, {ships} ship)",
                  trains=len(view.market) - ships, ships=ships)
    d.text((x, y), title, font=font(14, "bold"), fill=PANEL_DIM)
    y += 22
    n = max(1, len(view.market))
    gap = min(12, max(4, (w - n * CARD_W) // max(1, n - 1)))
    for i, card in enumerate(view.market):
        blend(img, card_sprite(card, CARD_W, CARD_H, jokers), x + i * (CARD_W + gap), y)
    y += CARD_H + 8
    if view.tunnel is not None:
        t = view.tunnel
        who = view.players[t.seat].name if t.seat < len(view.players) else "?"
        colour = (_n("locomotive", "locomotives", t.extra) if t.color == "locomotive"
                  else _(t.color))
        d.text(
            (x, y),
            fit_text(_("Tunnel ({who}): +{n} {colour}", who=who, n=t.extra, colour=colour),
                     15, "bold", w),
            font=font(15, "bold"),
            fill=ACCENT,
        )
        y += 22
        for i, card in enumerate(t.revealed):
            blend(img, card_sprite(card, 34, 48, jokers), x + i * 40, y)
        y += 54
    return y


def stacks_block(img: Image.Image, x: int, y: int, w: int, view: PublicView, m: MapData) -> int:
    """Pennsylvania: the share stacks left on the table (public), wrapped into ``w`` px."""
    d = ImageDraw.Draw(img)
    label = _("Share stacks")
    d.text((x, y + 12), label, font=font(14, "bold"), fill=PANEL_DIM, anchor="lm")
    cx, top = x + int(font(14, "bold").getlength(label)) + 14, y
    tags: list[tuple[str, RGB, bool]] = []
    for c in companies(m):
        left = view.share_stacks.get(c.id, c.shares)
        tags.append((f"{c.id}  {left}", company_fill(m, c.id), left == 0))
    shares = m.rules.shares
    if view.neutral_shares or (shares and len(view.players) in shares.neutral_investor_players):
        tags.append((_("neutral pile  {n}", n=view.neutral_shares), shade(PANEL_BG, 1.6), False))
    for text, fill, empty in tags:
        tw = tag_width(text)
        if cx + tw > x + w:  # wrap under the first tag
            cx, y = x, y + 30
        draw_tag(d, cx, y, text, fill, dim=empty)
        cx += tw + 8
    return max(y, top) + 26


def legend_block(img: Image.Image, x: int, y: int, w: int, m: MapData) -> int:
    """How to read the board: sample pieces with a word each."""
    from .board import claimed_style, unclaimed_style
    from .layout import Space
    from .shapes import house_sprite, space_sprite

    d = ImageDraw.Draw(img)
    d.text((x, y), _("How to read the board"), font=font(14, "bold"), fill=PANEL_DIM)
    y += 26
    sample = m.routes[0]
    rows: list[tuple[Route, str, str]] = [
        (
            sample.model_copy(
                update={"color": "red", "tunnel": False, "ferry_locomotives": 0, "kind": "train"}
            ),
            _("free route, red cards"),
            "free",
        ),
        (
            sample.model_copy(update={"kind": "train"}),
            _("claimed: owner's colour and shape"),
            "claimed",
        ),
        (
            sample.model_copy(
                update={"color": "gray", "tunnel": False, "ferry_locomotives": 0, "kind": "train"}
            ),
            _("gray: any one colour"),
            "free",
        ),
    ]
    if any(r.tunnel for r in m.routes):
        rows.append(
            (
                sample.model_copy(
                    update={
                        "color": "gray",
                        "tunnel": True,
                        "ferry_locomotives": 0,
                        "kind": "train",
                    }
                ),
                _("tunnel (dashed edge)"),
                "free",
            )
        )
    if any(r.ferry_locomotives for r in m.routes):
        rows.append(
            (
                sample.model_copy(
                    update={
                        "color": "gray",
                        "tunnel": False,
                        "ferry_locomotives": 1,
                        "kind": "train",
                    }
                ),
                _("ferry: locomotive needed"),
                "free",
            )
        )
    if any(r.kind == "ship" for r in m.routes):
        rows.append(
            (
                sample.model_copy(
                    update={
                        "color": "blue",
                        "tunnel": False,
                        "ferry_locomotives": 0,
                        "kind": "ship",
                    }
                ),
                _("ship route"),
                "free",
            )
        )
    for route, text, how in rows:
        space = Space(x + 26, y + 12, 0.0, 46.0, 17.0)
        st = claimed_style(route, 0) if how == "claimed" else unclaimed_style(route, 0)
        s = space_sprite(space, st)
        blend(img, s.image, s.x, s.y)
        d.text((x + 64, y + 12), text, font=font(15), fill=PANEL_FG, anchor="lm")
        y += 30
    if any(c.harbor for c in m.cities):
        blend(img, anchor_badge(24, player_fill(0), halo=True), x + 14, y)
        d.text((x + 64, y + 12), _("harbor (owner's colour)"), font=font(15), fill=PANEL_FG,
               anchor="lm")
        y += 30
    if any(c.festival_pile for c in m.cities):
        blend(img, tent_sprite(26), x + 13, y - 2)
        d.text(
            (x + 64, y + 12),
            _("festival city; badge = cards there"),
            font=font(15),
            fill=PANEL_FG,
            anchor="lm",
        )
        y += 30
    if m.rules.stations is not None:
        blend(img, house_sprite(player_fill(0), 24), x + 14, y)
        d.text((x + 64, y + 12), _("station (owner's colour)"), font=font(15), fill=PANEL_FG,
               anchor="lm")
        y += 30
    letters = "  ".join(suit_letter(s) + " " + _(s) for s in m.rules.deck.colors)
    for line in wrap(letters, 15, w):
        d.text((x, y + 4), line, font=font(15), fill=PANEL_DIM)
        y += 22
    return y


def wrap(text: str, size: int, width: int, face: Face = "regular", sep: str = "  ") -> list[str]:
    """Greedy line breaking at ``sep``."""
    f = font(size, face)
    lines: list[str] = []
    for word in text.split(sep):
        if lines and f.getlength(lines[-1] + sep + word) <= width:
            lines[-1] += sep + word
        else:
            lines.append(word)
    return lines


def fit_lines(text: str, size: int, width: int, most: int, face: Face = "regular",
              sep: str = "  ", smallest: int = 10) -> tuple[int, list[str]]:
    """``text`` broken at ``sep`` into at most ``most`` lines of ``width`` px: the largest
    font size down to ``smallest`` that does it (longer German words are set smaller);
    failing that, the last line ends in an ellipsis."""
    for n in range(size, smallest - 1, -1):
        lines = wrap(text, n, width, face, sep)
        if len(lines) <= most and all(font(n, face).getlength(s) <= width for s in lines):
            return n, lines
    lines = wrap(text, smallest, width, face, sep)
    kept = [*lines[: most - 1], sep.join(lines[most - 1 :])]
    return smallest, [fit_text(line, smallest, face, width) for line in kept]


def key_line(img: Image.Image, x: int, y: int, w: int, m: MapData) -> None:
    """A two-line reminder of the symbols, for the narrow header of landscape boards."""
    d = ImageDraw.Draw(img)
    parts = [_("K = black, other letters = colour")]
    if any(r.tunnel for r in m.routes):
        parts.append(_("dashed = tunnel"))
    if any(r.ferry_locomotives for r in m.routes):
        parts.append(_("engine = ferry"))
    if any(r.kind == "ship" for r in m.routes):
        parts.append(_("hull = ship route"))
    if any(c.harbor for c in m.cities):
        parts.append(_("⚓ = harbor city, owner's colour once built"))
    if any(c.festival_pile for c in m.cities):
        parts.append(_("tent = festival city, badge = cards lying there"))
    parts.append(_("shape = owner"))
    size, lines = fit_lines("  ·  ".join(parts), 13, w, 3, "regular", "  ·  ")
    for line in lines:
        d.text((x, y), line, font=font(size), fill=PANEL_DIM)
        y += size + 5
