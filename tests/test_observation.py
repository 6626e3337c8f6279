"""RULES.md §10 information (and R-HIDDEN-WILD): what an observation holds, and that nothing hidden leaks."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
from conftest import (
    AUTO,
    BANK,
    GOLD,
    HOME,
    JEWELS,
    PIGGY,
    SILVER,
    STOCKS,
    act,
    cset,
    position,
    state_of,
)

from agents.classic.registry import make_agent
from cya_sim.engine.classic.reference import apply_action, new_game
from cya_sim.engine.classic.reference.observation import Observation, observe
from cya_sim.game.classic.position import state_from_dict
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import get_rules


def obs_equal(a, b) -> bool:
    """Deep equality of observations (numpy arrays compared by value, shape and dtype)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype
                and np.array_equal(a, b))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(obs_equal(getattr(a, f.name), getattr(b, f.name))
                                          for f in dataclasses.fields(a))
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(obs_equal(x, y) for x, y in zip(a, b))
    return a == b


def _table(seat1_hidden=GOLD, seat2_hand=(JEWELS, PIGGY, PIGGY), draw=(AUTO, HOME, AUTO)):
    """Three players; seat 1's top set is Jewels over a hidden card; seat 2's hand and the draw pile vary."""
    return state_of(
        players=3,
        hands=[[JEWELS, SILVER, STOCKS], [BANK, BANK], list(seat2_hand)],
        stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, seat1_hidden, JEWELS)], []],
        draw_pile=list(draw), totals=[120_000, 80_000, 0], round=2, dealer=2, current_player=0,
    )


def test_observation_contents_exact():
    """§10: the observation holds the observer's hand, every stack, the discard pile, the draw pile size,
    every hand size, the totals, the round, the dealer and the phase; the mask is the seat's legal mask."""
    s = _table()
    o = observe(s, 0)
    names = s.rules.deck.names
    assert isinstance(o, Observation) and (o.seat, o.n_players) == (0, 3)
    assert [names[t] for t, n in enumerate(o.hand) for _ in range(n)] == [STOCKS, JEWELS, SILVER]
    assert o.hand.dtype == np.int16 and o.hand.shape == (12,)
    assert o.draw_size == 3 and list(o.hand_sizes) == [3, 2, 3] and o.hand_sizes.dtype == np.int16
    assert list(o.totals) == [120_000, 80_000, 0] and o.totals.dtype == np.int64
    assert (o.round, o.dealer, o.current_player, o.phase, o.challenge) == (2, 2, 0, "turn", None)
    assert o.discard_pile == tuple(s.discard_pile) and o.top_discard == s.discard_pile[-1]
    assert [[(v.owner, names[v.asset], v.size) for v in st] for st in o.stacks] == [
        [(0, BANK, 2)], [(1, HOME, 2), (1, JEWELS, 2)], []]
    assert o.legal_action_mask.dtype == bool and o.legal_action_mask.any()
    assert not observe(s, 1).legal_action_mask.any()  # only the seat to act gets a mask


def test_observation_hidden_set_card_not_shown_to_others():
    """R-HIDDEN-WILD, §10: another player's hidden set card is not shown: the set shows its type, size and
    public cards; its value is a range. The owner sees every card."""
    s = _table()
    v = observe(s, 0).stacks[1][1]
    names = s.rules.deck.names
    assert {names[t]: int(n) for t, n in enumerate(v.known) if n} == {JEWELS: 1}
    assert (v.size, v.n_hidden, v.value_seen, v.value_low, v.value_high) == (2, 1, 30_000, 30_000, 65_000)
    own = observe(s, 1).stacks[1][1]
    assert {names[t]: int(n) for t, n in enumerate(own.known) if n} == {JEWELS: 1, GOLD: 1}
    assert (own.n_hidden, own.value_seen, own.value_low, own.value_high) == (0, 65_000, 65_000, 65_000)


def test_observation_unseen_counts_exact():
    """§10: unseen = deck - own hand - every card seen (discard pile, known stack cards, challenge cards);
    a hidden set card counts as unseen."""
    s = _table()
    o = observe(s, 0)
    names = s.rules.deck.names
    unseen = {names[t]: int(n) for t, n in enumerate(o.unseen)}
    # seat 0 has seen: own hand Stocks, Jewels, Silver; own set Bank x2; Home x2 and one Jewels (seat 1);
    # the discard pile (everything not in a hand, a stack or the draw pile)
    # unseen: the hidden cards of seat 1's two sets (Home, Gold), seat 1's hand, seat 2's hand, the draw pile
    hidden = {HOME: 1 + 1, GOLD: 1, BANK: 2, JEWELS: 1, PIGGY: 2, AUTO: 2}
    assert unseen == {n: hidden.get(n, 0) for n in names}
    assert int(o.unseen.sum()) == 2 + 2 + 3 + 3 and o.unseen.dtype == np.int16


def test_observation_states_differing_only_in_hidden_cards_are_equal():
    """§10: two states that differ only in cards hidden from a seat (another hand, the draw pile order, the
    hidden card of another's set) give that seat equal observations."""
    a = _table(seat1_hidden=GOLD, seat2_hand=(JEWELS, PIGGY, PIGGY), draw=(AUTO, HOME, AUTO))
    b = _table(seat1_hidden=JEWELS, seat2_hand=(GOLD, PIGGY, PIGGY), draw=(AUTO, AUTO, HOME))
    assert obs_equal(observe(a, 0), observe(b, 0))
    assert not obs_equal(observe(a, 1), observe(b, 1))  # seat 1 knows its own hidden card
    assert not obs_equal(observe(a, 2), observe(b, 2))  # seat 2 knows its own hand
    # the observation does not even reveal it through the legal mask: seat 0 is to act in both
    assert np.array_equal(observe(a, 0).legal_action_mask, observe(b, 0).legal_action_mask)


def test_observation_challenge_view_is_public():
    """§10, R-CH-EXCHANGE: every seat sees an ongoing challenge: who, against whom, cards shown, who acts."""
    s = _table()
    act(s, "challenge:+1:match")
    for seat in range(3):
        c = observe(s, seat).challenge
        assert (c.challenger, c.defender, c.cards, c.players, c.to_act) == (0, 1, (7,), (0,), 1)
        assert s.rules.deck.names[c.asset] == JEWELS
    assert observe(s, 2).phase == "challenge"
    # the Jewels shown is seen by everyone now
    before = state_of(players=3, hands=[[JEWELS, SILVER, STOCKS], [BANK, BANK], [JEWELS, PIGGY, PIGGY]],
                      stacks=[[cset(BANK, BANK, BANK)], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS)], []],
                      draw_pile=[AUTO, HOME, AUTO], current_player=0)
    jewels = s.rules.deck.names.index(JEWELS)
    assert observe(s, 2).unseen[jewels] == observe(before, 2).unseen[jewels] - 1


def test_observation_holds_copies():
    """§10: an observation holds copies; changing the state afterwards does not change it."""
    s = _table()
    o = observe(s, 0)
    hand, totals = o.hand.copy(), o.totals.copy()
    act(s, "discard:Silver")
    s.totals[0] = 999
    assert np.array_equal(o.hand, hand) and np.array_equal(o.totals, totals)


def test_observation_seat_out_of_range_refused():
    """observe: a seat outside 0..P-1 is refused, naming the range."""
    with pytest.raises(ValueError, match=r"seat 3 is outside 0..2"):
        observe(_table(), 3)


def _resample_hidden(state, seat, rng):
    """A copy of ``state`` with every card hidden from ``seat`` dealt again at random: other hands and the
    draw pile are re-dealt among themselves (sizes kept); each hidden set card is swapped with a random
    compatible card from that pool when possible (its set's asset or a wild)."""
    s = copy.deepcopy(state)
    n_assets = s.rules.deck.n_assets
    others = [q for q in range(s.n_players) if q != seat]
    pool = [c for q in others for c, n in enumerate(s.hands[q]) for _ in range(n)] + list(s.draw_pile)
    bit = 1 << seat
    for stack in s.stacks:
        for st in stack:
            for i, (c, who) in enumerate(zip(st.cards, st.known_by)):
                if who & bit:
                    continue
                ok = [j for j, x in enumerate(pool) if x == st.asset or x >= n_assets]
                if ok:
                    j = ok[int(rng.integers(len(ok)))]
                    st.cards[i], pool[j] = pool[j], st.cards[i]
    rng.shuffle(pool)
    k = 0
    for q in others:
        size = sum(s.hands[q])
        h = [0] * len(s.hands[q])
        for c in pool[k:k + size]:
            h[c] += 1
        s.hands[q] = h
        k += size
    s.draw_pile = pool[k:]
    return s


@pytest.mark.parametrize("preset, players", [("classic", 3), ("guide", 5), ("basic", 4)])
def test_observation_nothing_hidden_leaks_over_a_game(preset, players):
    """§10: at decisions throughout a random game, re-dealing every card hidden from a seat (other hands,
    draw pile order, hidden set cards) leaves that seat's observation unchanged."""
    rules = get_rules(preset)
    key = root_key(99)
    s = new_game(rules, players, key)
    rngs = [stream_generator(key, 0, 1 + i) for i in range(players)]
    agent = make_agent("random")
    rs = np.random.default_rng(0)
    n = 0
    while s.to_act >= 0 and n < 600:
        if n % 3 == 0:
            for seat in range(players):
                t = _resample_hidden(s, seat, rs)
                assert list(t.card_counts()) == list(s.card_counts())
                assert obs_equal(observe(s, seat), observe(t, seat))
        apply_action(s, agent.act(observe(s, s.to_act), rngs[s.to_act]))
        n += 1


def test_observation_from_position_known_by_respected():
    """R-HIDDEN-WILD: a position's known_by decides who sees a set card: seat 2 was told the hidden Gold."""
    d = position(players=3, hands=[[JEWELS], [BANK], [PIGGY]],
                 stacks=[[], [cset(HOME, HOME, HOME), cset(JEWELS, GOLD, JEWELS, known_by=[[1, 2], [0, 1, 2]])], []])
    s = state_from_dict(d)
    assert observe(s, 2).stacks[1][1].n_hidden == 0
    assert observe(s, 0).stacks[1][1].n_hidden == 1
