"""Pennsylvania (RULES.md §5): shares with claims, the neutral investor, share scoring."""

from __future__ import annotations

from engine import (
    Claim,
    DeclineShare,
    DrawTickets,
    GameConfig,
    GiveNeutralShare,
    KeepTickets,
    Position,
    TakeShare,
    apply,
    legal_actions,
    new_game,
    position_of,
    private_view,
    public_view,
    setup_position,
)
from engine.events import ShareTaken
from engine.scoring import PlayerScore, connected_tickets, final_scores


def labelled(row: PlayerScore) -> dict[str, int]:
    """A player's map points by their English label."""
    return {str(e): e.points for e in row.extras}


def claim(state, seat, route_id, cards):
    return apply(state, seat, Claim(route=route_id, cards=cards))


def shares(state, seat):
    return private_view(state, seat).shares


def test_setup_deals_five_keep_three_and_draw_four_keep_one(started):
    state = new_game(GameConfig(map_id="pennsylvania", players=["A", "B", "C"], seed=1))
    assert [len(o) for o in state.offered] == [5, 5, 5] and state.keep_min == [3, 3, 3]
    state = started("pennsylvania", 3)
    seat = state.current
    apply(state, seat, DrawTickets())
    assert len(state.offered[seat]) == 4 and state.keep_min[seat] == 1


def test_a_route_with_one_company_offers_its_top_share_or_none(started, set_hand, route):
    state = started("pennsylvania", 3)
    seat = state.current
    set_hand(state, seat, {"green": 2})
    claim(state, seat, route(state, "allentown", "reading"), {"green": 2})
    assert state.phase == "choose_share" and state.current == seat
    assert legal_actions(state, seat) == [TakeShare(company="RDG"), DeclineShare()]
    events = apply(state, seat, TakeShare(company="RDG"))
    assert "ShareTaken" in [type(e).__name__ for e in events]
    assert shares(state, seat) == {"RDG": [1]}
    assert state.current != seat


def test_several_companies_ask_for_a_choice(started, set_hand, route, illegal):
    state = started("pennsylvania", 3)
    seat = state.current
    set_hand(state, seat, {"orange": 2})
    claim(state, seat, route(state, "allentown", "stroudsburg"), {"orange": 2})
    assert state.phase == "choose_share" and state.current == seat
    assert private_view(state, seat).share_options == ["LV", "JCL", "RDG"]
    assert legal_actions(state, seat) == [
        *(TakeShare(company=c) for c in ("LV", "JCL", "RDG")),
        DeclineShare(),
    ]
    illegal(state, seat, TakeShare(company="PRR"), "Choose one of: LV, JCL, RDG")
    illegal(state, seat, DrawTickets(), "share")
    apply(state, seat, TakeShare(company="JCL"))
    assert shares(state, seat) == {"JCL": [1]}
    assert state.phase == "turn" and state.current != seat


def test_shares_are_taken_in_ascending_order(started, set_hand, route, pass_turn):
    state = started("pennsylvania", 4)
    first = state.current
    set_hand(state, first, {"green": 2})
    claim(state, first, route(state, "allentown", "reading"), {"green": 2})
    apply(state, first, TakeShare(company="RDG"))
    second = state.current
    set_hand(state, second, {"blue": 2})
    claim(state, second, route(state, "chambersburg", "harrisburg"), {"blue": 2})
    apply(state, second, TakeShare(company="RDG"))
    assert shares(state, first) == {"RDG": [1]} and shares(state, second) == {"RDG": [2]}
    assert public_view(state).share_stacks["RDG"] == 5


def test_an_empty_stack_falls_back_to_another_shown_company(started, set_hand, route):
    state = started("pennsylvania", 3)
    seat = state.current
    # Western Maryland's 4 shares are gone (to the next player).
    setup_position(state, Position(shares={(seat + 1) % 3: {"WM": [1, 2, 3, 4]}}))
    set_hand(state, seat, {"white": 2})
    claim(state, seat, route(state, "baltimore", "york"), {"white": 2})  # WM or PRR
    assert legal_actions(state, seat) == [TakeShare(company="PRR"), DeclineShare()]


def test_no_share_when_every_shown_stack_is_empty_or_no_logo(started, set_hand, route):
    state = started("pennsylvania", 3)
    seat = state.current
    set_hand(state, seat, {"green": 2})
    claim(state, seat, route(state, "altoona", "lewiston"), {"green": 2})
    assert shares(state, seat) == {} and state.current != seat


def test_two_players_feed_the_neutral_investor(started, set_hand, route):
    state = started("pennsylvania", 2)
    seat = state.current
    set_hand(state, seat, {"orange": 2})
    claim(state, seat, route(state, "allentown", "stroudsburg"), {"orange": 2})
    apply(state, seat, TakeShare(company="LV"))
    assert state.phase == "choose_neutral_share" and state.current == seat
    apply(state, seat, GiveNeutralShare(company="LV"))
    assert shares(state, seat) == {"LV": [1]}
    assert state.ext["shares"]["neutral"] == [["LV", 2]]
    assert public_view(state).neutral_shares == 1 and state.current != seat


def test_neutral_pick_is_automatic_with_a_single_company(started, set_hand, route):
    state = started("pennsylvania", 2)
    seat = state.current
    set_hand(state, seat, {"green": 2})
    claim(state, seat, route(state, "allentown", "reading"), {"green": 2})
    apply(state, seat, TakeShare(company="RDG"))
    assert shares(state, seat) == {"RDG": [1]}
    assert state.ext["shares"]["neutral"] == [["RDG", 2]]
    assert state.current != seat


def test_who_holds_which_share_is_not_public(started, set_hand, route):
    """Stacks are public, as on the table; holdings are not: swapping them changes nothing."""
    state = started("pennsylvania", 3)
    seat = state.current
    set_hand(state, seat, {"green": 2})
    claim(state, seat, route(state, "allentown", "reading"), {"green": 2})
    assert ShareTaken(seat, False) in apply(state, seat, TakeShare(company="RDG"))
    before = public_view(state)
    held = position_of(state).shares
    assert held is not None
    setup_position(state, Position(shares={0: held[2], 1: held[0], 2: held[1]}))
    assert public_view(state) == before


def hold_shares(state, seat, company, numbers):
    held = (position_of(state).shares or {})[seat]
    held[company] = held.get(company, []) + numbers
    setup_position(state, Position(shares={seat: held}))


def test_seed_example_neutral_investor_takes_second_place(started):
    """Mark 3 B&O, neutral 2 revealed, Erik 1: Mark scores B&O's 1st value, Erik the 3rd."""
    state = started("pennsylvania", 2)
    hold_shares(state, 0, "B&O", [1, 3, 5])
    hold_shares(state, 1, "B&O", [6])
    state.ext["shares"]["revealed"] = [["B&O", 2], ["B&O", 4]]
    points = final_scores(state).players
    assert labelled(points[0]) == {"B&O shares (1st)": 20}
    assert labelled(points[1]) == {"B&O shares (3rd)": 9}


def test_share_ties_go_to_the_earlier_investor(started):
    state = started("pennsylvania", 3)
    hold_shares(state, 0, "PRR", [2, 5])
    hold_shares(state, 1, "PRR", [1, 7])
    hold_shares(state, 2, "PRR", [3])
    points = final_scores(state).players
    assert labelled(points[1]) == {"PRR shares (1st)": 30}
    assert labelled(points[0]) == {"PRR shares (2nd)": 21}
    assert labelled(points[2]) == {"PRR shares (3rd)": 14}


def test_places_beyond_the_table_score_nothing(started):
    state = started("pennsylvania", 3)
    hold_shares(state, 0, "BR&P", [1])
    hold_shares(state, 1, "WM", [1, 2])
    hold_shares(state, 2, "WM", [3])
    hold_shares(state, 0, "WM", [4])
    points = final_scores(state).players
    assert labelled(points[1]) == {"WM shares (1st)": 9}
    assert labelled(points[2]) == {"WM shares (2nd)": 5}
    assert labelled(points[0]) == {"BR&P shares (1st)": 7}  # 3rd WM place: no value


def test_half_the_neutral_pile_is_revealed_rounded_up(started):
    state = started("pennsylvania", 2)
    setup_position(state, Position(neutral_shares={"PRR": [1, 2], "B&O": [1]}))
    from engine.hooks import rule_modules

    for module in rule_modules(state):
        module.on_game_over(state)
    revealed = state.ext["shares"]["revealed"]
    assert len(revealed) == 2 and all(s in state.ext["shares"]["neutral"] for s in revealed)


def test_share_points_are_in_the_total_and_globetrotter_is_15(started, own, hold):
    """One completed ticket against none: Globetrotter +15; shares add to the total."""
    state = started("pennsylvania", 3)
    own(state, 0, ("baltimore", "philadelphia", "purple"))
    hold(state, 0, ("baltimore", "philadelphia"))
    setup_position(state, Position(tickets={1: [], 2: []}))
    hold_shares(state, 0, "RDG", [1])
    row = final_scores(state).players[0]
    assert row.most_tickets_bonus == 15 and labelled(row) == {"RDG shares (1st)": 14}
    assert final_scores(state).players[1].most_tickets_bonus == 0
    assert row.total == row.routes + sum(t.points for t in row.tickets) + row.most_tickets_bonus \
        + sum(e.points for e in row.extras)
    assert row.longest_path_bonus == 0


def test_ontario_does_not_connect_its_two_ferries(started, hold):
    state = started("pennsylvania", 3)
    board = state.board
    buffalo_ferry = next(r for r in board.routes_at[board.city_index["buffalo"]]
                         if "ontario" in (board.map.routes[r].a, board.map.routes[r].b))
    erie_ferry = next(r for r in board.routes_at[board.city_index["erie"]]
                      if "ontario" in (board.map.routes[r].a, board.map.routes[r].b))
    ids = board.route_ids
    setup_position(state, Position(owners={ids[buffalo_ferry]: 0, ids[erie_ferry]: 0}))
    hold(state, 0, ("ontario", "warren"))
    assert connected_tickets(state, 0) == set()
    # A ticket naming Ontario is completed through either ferry.
    warren = next(r for r in board.routes_at[board.city_index["erie"]]
                  if "warren" in (board.map.routes[r].a, board.map.routes[r].b))
    setup_position(state, Position(owners={ids[warren]: 0}))
    assert connected_tickets(state, 0) == set(state.tickets[0])


def test_keep_tickets_after_drawing_four(started):
    state = started("pennsylvania", 2)
    seat = state.current
    apply(state, seat, DrawTickets())
    offered = [state.board.t_ids[t] for t in state.offered[seat]]
    apply(state, seat, KeepTickets(tickets=offered[:1]))
    assert len(state.tickets[seat]) >= 4


def test_the_final_view_shows_each_players_shares_and_the_neutral_revealed_ones(
        started, pass_turn):
    """Players can check the majorities at the end (issue 25): every share count by company,
    and the neutral investor's revealed shares; none of it before the end."""
    state = started("pennsylvania", 2)
    hold_shares(state, 0, "B&O", [1, 3, 5])
    hold_shares(state, 1, "B&O", [6])
    hold_shares(state, 1, "PRR", [1, 2])
    setup_position(state, Position(neutral_shares={"B&O": [2, 4]}, turns_left=1))
    view = public_view(state)
    assert view.shares_held == [] and view.neutral_revealed == {}
    pass_turn(state)
    assert state.phase == "game_over"
    view = public_view(state)
    assert view.shares_held == [{"B&O": 3}, {"PRR": 2, "B&O": 1}]  # in the companies' order
    assert view.neutral_revealed == {"B&O": 1}  # half of the pile of 2, rounded up
