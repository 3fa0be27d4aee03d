"""Who is told what: the two pure decisions of ``bot.game.telling``, without storage."""

from bot.game.telling import SeatFacts, after_action, audience
from engine.phases import Phase


def test_a_first_card_only_refreshes_the_table():
    """Mid-turn (the second card to draw) only the actor hears back; their reminders go on."""
    got = after_action(0, phase_before=Phase.TURN, phase=Phase.SECOND_DRAW, current=0,
                       waiting_before=[0], waiting_after=[0], decision=False, new_offer=False)
    assert (got.publish, got.carry, got.fresh, got.hands) == (False, (0,), (), (0,))


def test_a_turns_end_is_published_and_the_next_player_is_fresh():
    got = after_action(0, phase_before=Phase.SECOND_DRAW, phase=Phase.TURN, current=1,
                       waiting_before=[0], waiting_after=[1], decision=False, new_offer=False)
    assert (got.publish, got.carry, got.fresh, got.hands) == (True, (), (1,), (0, 1))


def test_in_a_simultaneous_phase_the_others_keep_their_reminders():
    """One player keeps their initial tickets: published; the others still decide the same."""
    got = after_action(1, phase_before=Phase.CHOOSE_INITIAL_TICKETS,
                       phase=Phase.CHOOSE_INITIAL_TICKETS, current=0, waiting_before=[0, 1, 2],
                       waiting_after=[0, 2], decision=False, new_offer=False)
    assert (got.publish, got.carry, got.fresh) == (True, (0, 2), ())


def test_a_new_module_decision_of_the_actor_goes_to_them_too():
    """A claim that opens a decision of the actor (a share to take, say) is published and
    the actor is told privately, with its controls."""
    got = after_action(0, phase_before=Phase.TURN, phase=Phase.CHOOSE_SHARE, current=0,
                       waiting_before=[0], waiting_after=[0], decision=True, new_offer=False)
    assert (got.publish, got.fresh, got.hands) == (True, (0,), (0, 0))


def test_the_next_step_of_the_actors_own_decision_is_not_published():
    got = after_action(0, phase_before=Phase.CHOOSE_SHARE, phase=Phase.CHOOSE_SHARE, current=0,
                       waiting_before=[0], waiting_after=[0], decision=True, new_offer=False)
    assert (got.publish, got.carry) == (False, (0,))


def test_drawn_tickets_are_not_news_but_a_drafts_offer_is():
    """Tickets drawn mid-turn wait for the turn's end; tickets offered in a new phase (a
    draft's keep) also go by DM."""
    drawn = after_action(0, phase_before=Phase.TURN, phase=Phase.CHOOSE_TICKETS, current=0,
                         waiting_before=[0], waiting_after=[0], decision=False, new_offer=True)
    assert not drawn.publish
    drafted = after_action(0, phase_before=Phase.DRAFT, phase=Phase.DRAFT_KEEP, current=1,
                           waiting_before=[0], waiting_after=[0, 1], decision=False,
                           new_offer=True)
    assert drafted.publish and drafted.fresh == (1, 0)


def _facts(**by_seat):
    return [SeatFacts(seat=i, user_id=100 + i, human=True, **by_seat.get(f"s{i}", {}))
            for i in range(3)]


def test_who_gets_a_dm():
    """A new decision comes by DM; a plain turn only to who asked for one every turn."""
    facts = _facts(s0={"decision": True}, s1={"every_turn": True}, s2={})
    got = audience(facts, told=[0, 1, 2], hands=[0], threads_on=False)
    assert got.dms == (0, 1) and got.threads == () and got.closed == ()


def test_computers_and_standing_orders_are_not_told_and_an_order_is_not_pinged():
    facts = [SeatFacts(0, -1, human=False, decision=True),
             SeatFacts(1, 101, human=True, ready=True, decision=True),
             SeatFacts(2, 102, human=True, decision=True)]
    got = audience(facts, told=[0, 1, 2], hands=[], threads_on=False)
    assert got.dms == (2,) and got.quiet == frozenset({1})


def test_a_player_refusing_dms_is_named_in_the_channel_instead():
    facts = _facts(s1={"refused": True, "decision": True})
    got = audience(facts, told=[1], hands=[1], threads_on=False)
    assert got.dms == () and got.closed == (101,)


def test_private_threads_replace_the_plain_turns_dm():
    """With a thread per player, a plain turn's hand goes to the thread, not by DM; a new
    decision still comes by DM."""
    facts = _facts(s0={"every_turn": True}, s1={"decision": True})
    got = audience(facts, told=[0, 1], hands=[2, 0, 1], threads_on=True)
    assert got.dms == (1,) and got.threads == (0, 1, 2)
