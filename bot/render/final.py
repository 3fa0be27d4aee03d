"""The final scores image: winner, a breakdown table, score bars (the final map goes under
them, ``bot.render.final_image``)."""

from __future__ import annotations

from typing import NamedTuple

from PIL import Image, ImageDraw

from bot.i18n import N_, _, _n
from bot.play.endings import end_reason
from bot.play.estimates import estimate_note
from engine.views import FinalScores, PlayerScore, PublicView
from maps.model import MapData

from .board import base_for, blend
from .extras import CHIP_H, ROW_GAP, chips_of, draw_chips, extras_note, rows_needed
from .fonts import font
from .palette import (
    ACCENT,
    INK,
    PANEL_BG,
    PANEL_DIM,
    PANEL_FG,
    RGB,
    hex_rgb,
    player_fill,
    player_shape,
    shade,
)
from .panel import fit_font, fit_text, section_heading, wrap
from .shapes import mark_sprite
from .shares import companies, company_fill, draw_tag, place_text

WIDTH = 1600
PAD = 32
ROW_H = 44
GRID_ROW = 34
GOOD: RGB = hex_rgb("#3fb16a")
BAD: RGB = hex_rgb("#e0564a")
MEDALS: dict[int, RGB] = {1: hex_rgb("#f5c542"), 2: hex_rgb("#c9ced6"), 3: hex_rgb("#cd8a4f")}
BAR_H = 24
SWATCH_STRIPE = 8  # px per player in the routes' legend swatch
TICKETS_X = 260  # where the ticket lines under the bars start, right of the names
TICKETS_W = WIDTH - 2 * PAD - TICKETS_X
TICKET_SIZE = 14
TICKET_LINE = 19
TICKET_SEP = "    "
FOOTNOTE_H = 36  # under the scores: what the map's data only estimates (Iberia)


SHARES: RGB = hex_rgb("#a77bdb")  # the share points' part of a score bar


def exact_colours(m: MapData) -> list[RGB]:
    """The flat colours of the scores part, kept exactly in the final image's palette."""
    flat = [PANEL_BG, PANEL_FG, PANEL_DIM, ACCENT, INK, GOOD, BAD, SHARES, *MEDALS.values(),
            shade(PANEL_BG, 1.15), shade(PANEL_BG, 1.18), shade(PANEL_BG, 1.4)]
    flat += [player_fill(seat) for seat in range(5)]
    flat += [company_fill(m, c.id) for c in companies(m)]
    return list(dict.fromkeys(flat))


def _extras_title(m: MapData) -> str:
    if m.rules.shares is not None:
        return _("Shares")
    if m.rules.festivals is not None:
        return _("Festivals")
    if m.rules.rails_and_sails is not None:
        return _("Harbors & pieces")
    return _("Map bonus")


# The breakdown table's columns: (key, width); headings by key in ``_heading``.
EXTRAS = "extras"


def _heading(column: str, m: MapData) -> str:
    headings = {"routes": N_("Routes"), "won": N_("Tickets done"),
                "failed": N_("Tickets failed"), "path": N_("Longest path"),
                "most": N_("Most tickets"), "stations": N_("Stations"), "total": N_("Total")}
    return _extras_title(m) if column == EXTRAS else _(headings[column])


def _columns(final: FinalScores, m: MapData) -> list[tuple[str, int]]:
    cols = [("routes", 110), ("won", 160), ("failed", 160)]
    if m.rules.longest_path_bonus or any(p.longest_path_bonus for p in final.players):
        cols.append(("path", 160))
    if any(p.most_tickets_bonus for p in final.players):
        cols.append(("most", 140))
    if any(p.unused_stations_bonus or p.stations_used for p in final.players):
        cols.append(("stations", 140))
    if any(p.extras for p in final.players):
        cols.append((EXTRAS, 170))
    cols.append(("total", 120))
    return cols


def _cells(p: PlayerScore, cols: list[tuple[str, int]], m: MapData) -> list[tuple[str, str, RGB]]:
    """(main text, small text, colour) per column."""
    won = [t.points for t in p.tickets if t.points > 0]
    lost = [t.points for t in p.tickets if t.points < 0]
    extra = sum(e.points for e in p.extras)
    values: dict[str, tuple[str, str, RGB]] = {
        "routes": (str(p.routes), "", PANEL_FG),
        "won": (f"+{sum(won)}", f"{len(won)}", GOOD),
        "failed": (
            f"{sum(lost)}" if lost else "0",
            f"{len(lost)}",
            BAD if lost else PANEL_DIM,
        ),
        "path": (
            f"+{p.longest_path_bonus}" if p.longest_path_bonus else "0",
            _("{n} long", n=p.longest_path),
            ACCENT if p.longest_path_bonus else PANEL_DIM,
        ),
        "most": (
            f"+{p.most_tickets_bonus}" if p.most_tickets_bonus else "0",
            "",
            ACCENT if p.most_tickets_bonus else PANEL_DIM,
        ),
        "stations": (f"+{p.unused_stations_bonus}", _("{n} used", n=p.stations_used), PANEL_FG),
        EXTRAS: (
            f"{extra:+d}" if extra else "0",
            extras_note(p.extras, m),
            SHARES if extra > 0 else (BAD if extra < 0 else PANEL_DIM),
        ),
        "total": (str(p.total), "", ACCENT if p.rank == 1 else PANEL_FG),
    }
    return [values[name] for name, _ in cols]


def _bar_parts(p: PlayerScore) -> tuple[int, int, int, int, int]:
    """Routes, tickets won, bonuses, positive map points, and everything lost (as > 0)."""
    won = sum(max(0, t.points) for t in p.tickets)
    lost = -sum(min(0, t.points) for t in p.tickets) - sum(min(0, e.points) for e in p.extras)
    bonus = p.longest_path_bonus + p.most_tickets_bonus + max(0, p.unused_stations_bonus)
    extra = sum(max(0, e.points) for e in p.extras)
    return max(0, p.routes), won, bonus, extra, lost


class ShareCell(NamedTuple):
    """One player's (or the neutral investor's) part in one company's majority."""

    shares: str  # shares held ('3×'; revealed ones for the neutral investor), or ''
    points: str  # what they scored ('+20'), or ''
    place: str  # the place in the majority ('1st'), or ''


def share_rows(view: PublicView, order: list[PlayerScore], m: MapData
               ) -> list[tuple[str, list[ShareCell]]]:
    """Pennsylvania's share grid, a row per player (then the neutral investor's revealed
    shares) and a cell per company: the shares held, the points and the place they got."""
    if not companies(m) or not (view.shares_held or any(p.extras for p in order)):
        return []
    held = view.shares_held
    rows = []
    for p in order:
        scored = {str(e.fields["company"]): (f"+{e.points}", place_text(int(e.fields["place"])))
                  for e in p.extras if e.kind == "shares"}
        counts = held[p.seat] if p.seat < len(held) else {}
        rows.append((p.name, [ShareCell(_shares(counts.get(c.id, 0)), *scored.get(c.id, ("", "")))
                              for c in companies(m)]))
    if view.neutral_revealed:
        rows.append((_("Neutral investor"),
                     [ShareCell(_shares(view.neutral_revealed.get(c.id, 0)), "", "")
                      for c in companies(m)]))
    return rows


def _shares(n: int) -> str:
    return f"{n}×" if n else ""


def _share_grid_height(rows: list[tuple[str, list[ShareCell]]]) -> int:
    return 30 + 44 + 34 + len(rows) * GRID_ROW if rows else 0


def _share_grid(img: Image.Image, y: int, rows: list[tuple[str, list[ShareCell]]],
                m: MapData) -> int:
    """Pennsylvania: each company's tag over a column of each player's shares there, with
    what they scored (points and place); the neutral investor's revealed shares last."""
    if not rows:
        return y
    d = ImageDraw.Draw(img)
    y += 30
    section_heading(d, PAD, y, _("Share majorities"),
                    _("shares held by company, the points they scored and the place in the "
                      "majority"))
    y += 44
    comps = companies(m)
    col_w = (WIDTH - 2 * PAD - 260) // len(comps)
    x0 = PAD + 260
    for i, c in enumerate(comps):
        cx = x0 + i * col_w + col_w // 2
        w = int(font(14, "bold").getlength(c.id)) + 14
        draw_tag(d, cx - w / 2, y, c.id, company_fill(m, c.id))
    y += 34
    mid = GRID_ROW // 2
    for name, cells in rows:
        d.text((PAD, y + mid), fit_text(name, 17, "bold", 240), font=font(17, "bold"),
               fill=PANEL_FG, anchor="lm")
        for i, cell in enumerate(cells):
            cx = x0 + i * col_w + col_w // 2
            if not (cell.shares or cell.points):
                d.text((cx, y + mid), "–", font=font(17), fill=PANEL_DIM, anchor="mm")
                continue
            # Left to right: shares held, points, place; centred in the column.
            parts = [(cell.shares, font(16, "bold"), PANEL_FG, 0),
                     (cell.points, font(18, "bold"), SHARES, 0),
                     (cell.place, font(13), PANEL_DIM, 1)]
            parts = [part for part in parts if part[0]]
            left = cx - (sum(f.getlength(t) for t, f, _c, _dy in parts) + 6 * len(parts) - 6) / 2
            for text, f, fill, dy in parts:
                d.text((left, y + mid + dy), text, font=f, fill=fill, anchor="lm")
                left += f.getlength(text) + 6
        y += GRID_ROW
    return y


CHIPS_X = 260  # where the chips start, right of the player names


def _chip_maps(m: MapData) -> bool:
    return m.rules.festivals is not None or m.rules.rails_and_sails is not None


def _extra_chips_height(order: list[PlayerScore], m: MapData) -> int:
    if not _chip_maps(m) or not any(p.extras for p in order):
        return 0
    width = WIDTH - 2 * PAD - CHIPS_X
    rows = sum(rows_needed(chips_of(p.extras), width) for p in order)
    return 30 + 40 + rows * (CHIP_H + ROW_GAP) + len(order) * 6


def _extra_chips(img: Image.Image, y: int, order: list[PlayerScore], m: MapData) -> int:
    """Iberia and Rails & Sails: each player's map points, one chip per label."""
    if not _chip_maps(m) or not any(p.extras for p in order):
        return y
    d = ImageDraw.Draw(img)
    y += 30
    if m.rules.festivals is not None:
        title = _("Festival sets")
        note = _("cards held per festival city and what each set scored")
    else:
        title = _("Harbors and pieces")
        note = _("harbors by the completed tickets naming their city; unbuilt harbors and "
                 "exchanged pieces cost points")
    section_heading(d, PAD, y, title, note)
    y += 40
    width = WIDTH - 2 * PAD - CHIPS_X
    for p in order:
        d.text(
            (PAD, y + CHIP_H // 2),
            fit_text(p.name, 17, "bold", CHIPS_X - 20),
            font=font(17, "bold"),
            fill=PANEL_FG,
            anchor="lm",
        )
        chips = chips_of(p.extras)
        if chips:
            y = draw_chips(img, PAD + CHIPS_X, y, width, chips, p.seat) + 6
        else:
            d.text(
                (PAD + CHIPS_X, y + CHIP_H // 2), "–", font=font(17), fill=PANEL_DIM, anchor="lm"
            )
            y += CHIP_H + ROW_GAP + 6
    return y


def _medal(d: ImageDraw.ImageDraw, cx: int, cy: int, rank: int) -> None:
    fill = MEDALS.get(rank, shade(PANEL_BG, 1.4))
    d.ellipse((cx - 15, cy - 15, cx + 15, cy + 15), fill=fill, outline=INK, width=2)
    d.text((cx, cy), str(rank), font=font(17, "bold"), fill=INK, anchor="mm")


def _ticket_lines(p: PlayerScore, city: dict[str, str]) -> list[str]:
    """A player's tickets, each whole, wrapped under the score bar."""
    tickets = TICKET_SEP.join(
        ("✓ " if t.points > 0 else "✗ ") + "–".join(city.get(c, c) for c in t.cities)
        + f" {t.points:+d}" for t in p.tickets)
    return wrap(tickets, TICKET_SIZE, TICKETS_W, sep=TICKET_SEP) if tickets else []


def _bar_row_h(lines: int) -> int:
    return BAR_H + 8 + lines * TICKET_LINE + 12


def draw_scores(view: PublicView) -> Image.Image:
    """The final image but its map (RGB, ``WIDTH`` wide): title and winner, the
    breakdown table, the map's points and the score bars with each player's tickets."""
    final = view.final
    assert final is not None
    base = base_for(view.map_id)
    order = sorted(final.players, key=lambda p: (p.rank, p.seat))
    cols = _columns(final, base.map)
    city = {c.id: c.name for c in base.map.cities}
    tickets = {p.seat: _ticket_lines(p, city) for p in order}
    bars_h = sum(_bar_row_h(len(tickets[p.seat])) for p in order) + 40
    table_h = 40 + len(order) * ROW_H
    shares = share_rows(view, order, base.map)
    grid_h = _share_grid_height(shares) + _extra_chips_height(order, base.map)
    note = estimate_note(base.map)  # Iberia: what its data only estimates, as a footnote
    above = PAD + 110 + table_h + grid_h + 30 + bars_h + (FOOTNOTE_H if note else 0)
    img = Image.new("RGB", (WIDTH, above), PANEL_BG)
    d = ImageDraw.Draw(img)

    # Title and winner.
    d.text((PAD, PAD - 4), _("Game over — {map}", map=base.map.name), font=font(34, "title"),
           fill=PANEL_FG)
    names = [p.name for p in order if p.seat in final.winners]
    x = PAD
    for seat in final.winners:
        blend(img, mark_sprite(player_shape(seat), player_fill(seat), 32), x, PAD + 52)
        x += 38
    if len(names) == 1:
        line = _n("{name} wins with {n} point", "{name} wins with {n} points", order[0].total,
                  name=names[0])
    else:
        line = _n("{names} share the win with {n} point", "{names} share the win with {n} points",
                  order[0].total, names=_(" and ").join(names))
    d.text((x + 6, PAD + 52), line, font=font(26, "bold"), fill=ACCENT)
    d.text(
        (x + 6 + font(26, "bold").getlength(line) + 16, PAD + 60),
        _("(the game ended: {reason})",
          reason=end_reason(final.reason, base.map.rules.rails_and_sails is not None)),
        font=font(16),
        fill=PANEL_DIM,
    )

    # Breakdown table.
    y = PAD + 110
    name_w = WIDTH - 2 * PAD - 60 - sum(w for _column, w in cols)
    cx0 = PAD + 60 + name_w
    d.text((PAD + 60, y), _("Player"), font=font(15, "bold"), fill=PANEL_DIM)
    cx = cx0
    for column, w in cols:
        heading = _heading(column, base.map)
        d.text((cx + w // 2, y), heading, font=fit_font(heading, 15, "bold", w - 8),
               fill=PANEL_DIM, anchor="ma")
        cx += w
    y += 30
    for p in order:
        if p.rank == 1:
            d.rounded_rectangle(
                (PAD - 8, y, WIDTH - PAD + 8, y + ROW_H - 4),
                radius=10,
                fill=shade(PANEL_BG, 1.15),
                outline=ACCENT,
                width=2,
            )
        _medal(d, PAD + 16, y + ROW_H // 2 - 2, p.rank)
        blend(
            img,
            mark_sprite(player_shape(p.seat), player_fill(p.seat), 28),
            PAD + 60,
            y + (ROW_H - 32) // 2,
        )
        d.text(
            (PAD + 98, y + ROW_H // 2 - 2),
            fit_text(p.name, 20, "bold", name_w - 50),
            font=font(20, "bold"),
            fill=PANEL_FG,
            anchor="lm",
        )
        cx = cx0
        for (main, small, col), (name, w) in zip(_cells(p, cols, base.map), cols, strict=True):
            big = font(22 if name == "total" else 19, "bold")
            if small:
                tw = big.getlength(main) + 8 + font(13).getlength(small)
                left = cx + (w - tw) / 2
                d.text((left, y + ROW_H // 2 - 2), main, font=big, fill=col, anchor="lm")
                d.text(
                    (left + big.getlength(main) + 8, y + ROW_H // 2),
                    small,
                    font=font(13),
                    fill=PANEL_DIM,
                    anchor="lm",
                )
            else:
                d.text((cx + w // 2, y + ROW_H // 2 - 2), main, font=big, fill=col, anchor="mm")
            cx += w
        y += ROW_H

    y = _share_grid(img, y, shares, base.map)
    y = _extra_chips(img, y, order, base.map)

    # Score bars: what each total is made of (failed tickets go left of zero). The routes'
    # part is in each player's colour: its legend swatch shows them all.
    y += 30
    parts_legend: list[tuple[str, list[RGB]]] = [
        (_("routes"), [player_fill(p.seat) for p in sorted(order, key=lambda p: p.seat)]),
        (_("tickets"), [GOOD]),
        (_("bonuses"), [ACCENT]),
        (_("failed"), [BAD]),
    ]
    if any(p.extras for p in order):
        parts_legend.insert(3, (_extras_title(base.map), [SHARES]))
    lx = PAD
    for label, swatch in parts_legend:
        sw = max(16, SWATCH_STRIPE * len(swatch))
        for i, colour in enumerate(swatch):
            d.rectangle((lx + i * sw // len(swatch), y + 2,
                         lx + (i + 1) * sw // len(swatch) - 1, y + 16), fill=colour)
        d.text((lx + sw + 6, y), label, font=font(15), fill=PANEL_DIM)
        lx += sw + 24 + int(font(15).getlength(label))
    y += 32
    parts = {p.seat: _bar_parts(p) for p in order}
    most = max([1] + [sum(parts[p.seat][:4]) for p in order])
    least = max([0] + [parts[p.seat][4] for p in order])
    bar_w = WIDTH - 2 * PAD - 260 - 60  # room for the total after the bar
    k = bar_w / (most + least)
    zero = PAD + 260 + least * k
    for p in order:
        d.text(
            (PAD, y + BAR_H // 2),
            fit_text(p.name, 17, "bold", 240),
            font=font(17, "bold"),
            fill=PANEL_FG,
            anchor="lm",
        )
        routes, won, bonus, extra, lost = parts[p.seat]
        x0 = zero
        for value, col in (
            (routes, player_fill(p.seat)),
            (won, GOOD),
            (bonus, ACCENT),
            (extra, SHARES),
        ):
            if value > 0:
                d.rectangle((x0, y, x0 + value * k, y + BAR_H), fill=col)
                x0 += value * k
        if lost:
            d.rectangle((zero - lost * k, y, zero, y + BAR_H), fill=BAD)
        d.text((x0 + 8, y + BAR_H // 2), str(p.total), font=font(17, "bold"), fill=PANEL_FG,
               anchor="lm")
        for i, text in enumerate(tickets[p.seat]):
            d.text((PAD + TICKETS_X, y + BAR_H + 8 + i * TICKET_LINE), text,
                   font=font(TICKET_SIZE), fill=PANEL_DIM)
        d.line((zero, y - 4, zero, y + BAR_H + 4), fill=PANEL_DIM, width=1)
        y += _bar_row_h(len(tickets[p.seat]))
    if note:  # the last line of the scores, right above the map
        d.text((PAD, above - FOOTNOTE_H // 2), fit_text(f"* {note}", 15, "regular",
                                                        WIDTH - 2 * PAD),
               font=font(15), fill=PANEL_DIM, anchor="lm")
    return img
