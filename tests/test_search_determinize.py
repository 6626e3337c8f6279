"""The determinizer of the search agents (issue 6): leaks, exact counts, exact uniformity, seeds.

RULES.md §10 (what a seat may see), R-HIDDEN-WILD (a hidden set card is an
asset of the set's type or a wild).
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter

import numpy as np
from conftest import BANK, COINS, GOLD, JEWELS, PENNY, PIGGY, SILVER, STOCKS, SWAP, cset, state_of

from cya_sim.engine.classic.layout import B_DECK, B_HANDS, B_SCARD0, B_SVAL, B_SVALUE
from cya_sim.engine.classic.reference import apply_action, new_game
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.rules import get_rules
from cya_sim.search.classic.determinize import Determinizer
from cya_sim.search.tree import rng_state


def _mid_game(key=7, steps=40, players=4):
    """A classic game after ``steps`` greedy actions (hidden set cards, a real draw pile)."""
    from agents.classic.greedy import GreedyAgent

    state = new_game(get_rules("classic"), players, key, 0)
    g = GreedyAgent()
    for _ in range(steps):
        apply_action(state, g.act(observe(state, state.to_act), None))
    return state


def _swap_hidden(state, seat):
    """A copy of ``state`` whose hidden cards (opponents' hands, draw order) differ but ``seat`` sees the same."""
    other = copy.deepcopy(state)
    opp = next(s for s in range(state.n_players) if s != seat and sum(state.hands[s]) > 0)
    hand = other.hands[opp]
    # swap one card of the opponent's hand with a draw pile card of another type
    for i, c in enumerate(other.draw_pile):
        give = next((t for t in range(len(hand)) if hand[t] > 0 and t != c), None)
        if give is not None:
            hand[give] -= 1
            hand[c] += 1
            other.draw_pile[i] = give
            break
    other.draw_pile.reverse()
    return other


def test_leak_same_observation_gives_identical_samples():
    """RULES.md §10: two true states with equal observations give the same determinizations (same seed)."""
    state = _mid_game()
    seat = state.to_act
    other = _swap_hidden(state, seat)
    assert other.hands != state.hands or other.draw_pile != state.draw_pile
    o1, o2 = observe(state, seat), observe(other, seat)
    assert np.array_equal(o1.unseen, o2.unseen) and o1.stacks == o2.stacks
    s1 = Determinizer(o1).sample(rng_state(5), 20)
    s2 = Determinizer(o2).sample(rng_state(5), 20)
    for a, b in zip(s1, s2):
        assert np.array_equal(a["flat"], b["flat"])


def test_sampled_hands_match_unseen_counts_exactly():
    """Opponents' hands have their observed sizes; hands + hidden set cards + draw pile = unseen cards."""
    state = _mid_game(key=11, steps=60)
    seat = state.to_act
    obs = observe(state, seat)
    det = Determinizer(obs)
    t = len(obs.unseen)
    for smp in det.sample(rng_state(1), 50):
        hands = smp["hands"]
        assert np.array_equal(hands.sum(axis=1), obs.hand_sizes)
        assert np.array_equal(hands[seat], obs.hand)
        total = hands.sum(axis=0) - hands[seat] + np.bincount(smp["draw_pile"], minlength=t)
        total += np.bincount(smp["hidden"], minlength=t)
        assert np.array_equal(total, obs.unseen)
        assert len(smp["draw_pile"]) == obs.draw_size
        # R-HIDDEN-WILD: each hidden set card is its set's asset or a wild
        na = obs.rules.deck.n_assets
        for c, a in zip(smp["hidden"], det.info.slot_asset):
            assert c == a or c >= na


def test_flat_sample_values_include_hidden_cards():
    """A sampled set's value and its owner's stack value count the sampled hidden card at face value."""
    state = _mid_game(key=3, steps=50)
    seat = state.to_act
    obs = observe(state, seat)
    det = Determinizer(obs)
    values = obs.rules.deck.values
    L = det.layout
    for smp in det.sample(rng_state(2), 10):
        g = smp["flat"]
        for s in range(obs.n_players):
            want = sum(v.value_seen - v.n_hidden * int(values[v.asset]) for v in obs.stacks[s])
            want += sum(int(values[c]) for c, o in zip(smp["hidden"], det.info.slot_owner) if o == s)
            assert g[L[B_SVAL] + s] == want
        for i, st in enumerate(det.info.slot_set):
            assert g[L[B_SCARD0] + st] == smp["hidden"][i]
        assert g[L[B_SVALUE]:L[B_SVALUE] + 1].shape == (1,)
        assert g[L[B_HANDS]:L[B_DECK]].sum() == obs.hand_sizes.sum()


def test_same_seed_same_samples_different_seed_different():
    state = _mid_game(key=5)
    obs = observe(state, state.to_act)
    a = Determinizer(obs).sample(rng_state(9), 5)
    b = Determinizer(obs).sample(rng_state(9), 5)
    c = Determinizer(obs).sample(rng_state(10), 5)
    assert all(np.array_equal(x["flat"], y["flat"]) for x, y in zip(a, b))
    assert not all(np.array_equal(x["flat"], y["flat"]) for x, y in zip(a, c))


def _small_position():
    """Seat 0 sees: one opponent's hand of 1 card, two hidden set cards (Jewels, Stocks) and 1 draw card.

    Unseen: Jewels, Stocks, Silver, Gold (one each). Consistent deals of the 4
    physical cards (hidden Jewels slot ∈ {Jewels, Silver, Gold}, hidden Stocks
    slot ∈ {Stocks, Silver, Gold}, then the opponent's card and the draw card
    from the rest): counted by brute force in the test.
    """
    return state_of(
        players=2,
        hands=[[PIGGY, PIGGY], [JEWELS]],
        stacks=[[cset(BANK, BANK, BANK, known_by=[[0, 1], [0, 1]])],
                [cset(JEWELS, GOLD, JEWELS, known_by=[[1], [0, 1]]),
                 cset(STOCKS, SILVER, STOCKS, known_by=[[1], [0, 1]])]],
        draw_pile=[STOCKS],
        discard_pile=[COINS],
    )


def test_exactly_uniform_over_consistent_deals():
    """The sampler's law equals the uniform law over physical-card deals that satisfy R-HIDDEN-WILD."""
    state = _small_position()
    obs = observe(state, 0)
    na = obs.rules.deck.n_assets
    unseen = [t for t, n in enumerate(obs.unseen) for _ in range(int(n))]
    assert sorted(unseen) == sorted([obs.rules.deck.names.index(x) for x in (JEWELS, STOCKS, SILVER, GOLD)])
    det = Determinizer(obs)
    slots = list(det.info.slot_asset)
    # exact law: all permutations of the distinguishable unseen cards into (slots..., opp hand, draw)
    exact = Counter()
    for perm in itertools.permutations(range(len(unseen))):
        cards = [unseen[i] for i in perm]
        if all(c == a or c >= na for c, a in zip(cards, slots)):
            exact[tuple(cards)] += 1
    tot = sum(exact.values())
    n = 40_000
    got = Counter()
    for smp in det.sample(rng_state(123), n):
        opp = int(np.flatnonzero(smp["hands"][1])[0])
        got[tuple(int(x) for x in smp["hidden"]) + (opp, int(smp["draw_pile"][0]))] += 1
    assert set(got) == set(exact)
    chi2 = sum((got[k] - n * v / tot) ** 2 / (n * v / tot) for k, v in exact.items())
    # df = len(exact) - 1 (at most 11 here); 35 is far beyond the 0.999 quantile
    assert chi2 < 35, (chi2, exact, got)


def test_inconsistent_observation_is_refused():
    import dataclasses

    import pytest

    state = _mid_game(key=2)
    obs = observe(state, state.to_act)
    bad = dataclasses.replace(obs, unseen=obs.unseen + 1)
    with pytest.raises(ValueError, match="unseen"):
        Determinizer(bad)


def test_template_carries_the_public_give_up_record_and_samples_keep_it():
    """RULES.md §10: who gave up a challenge is public; the ``card_counter`` rollout reads it from the flat game."""
    from cya_sim.engine.classic.layout import B_GAVEUP

    state = _mid_game()
    state.gave_up[2][3] = True  # seat 2 gave up a challenge over asset type 3 (and drew nothing since)
    obs = observe(state, 0)
    d = Determinizer(obs)
    p = obs.n_players
    want = [sum(1 << c for c in range(len(row)) if row[c]) for row in obs.gave_up]
    assert want[2] == 1 << 3
    assert d.template[d.layout[B_GAVEUP]:d.layout[B_GAVEUP] + p].tolist() == want
    for s in d.sample(rng_state(3), 4):
        g = s["flat"]
        assert g[d.layout[B_GAVEUP]:d.layout[B_GAVEUP] + p].tolist() == want


def _draft_position(piles=None, draw=None):
    """Two-player draft (R-2P-DRAFT): seat 0 sees its hand, the face-up draft tops and the pile sizes; hidden:
    the opponent's one card, the face-down draft cards and the draw pile."""
    return state_of(players=2, preset="two_player_draft", hands=[[PIGGY, PIGGY], [JEWELS]], stacks=[[], []],
                    draft_piles=piles or [[STOCKS, BANK], [COINS], []], draw_pile=draw or [SILVER])


def test_draft_face_down_cards_exactly_uniform():
    """§10, R-2P-DRAFT: the face-down draft card is a hidden position like a hand or draw card; the sample is
    uniform over the 3! deals of the 3 unseen cards (opponent's card, face-down card, draw card)."""
    obs = observe(_draft_position(), 0)
    det = Determinizer(obs)
    assert det.info.draft_pos.tolist() == [0]  # pile 0's bottom card; its top (Bank Account) is face-up
    names = obs.rules.deck.names
    unseen = sorted(t for t, n in enumerate(obs.unseen) for _ in range(int(n)))
    assert unseen == sorted(names.index(x) for x in (JEWELS, STOCKS, SILVER))
    L = det.layout
    n = 30_000
    got = Counter()
    for smp in det.sample(rng_state(77), n):
        g = smp["flat"]
        assert g[L[B_DECK] + 1] == names.index(BANK)  # the face-up top is kept
        got[(int(np.flatnonzero(smp["hands"][1])[0]), int(g[L[B_DECK]]), int(smp["draw_pile"][0]))] += 1
    assert len(got) == 6
    chi2 = sum((v - n / 6) ** 2 / (n / 6) for v in got.values())
    assert chi2 < 20.5, got  # df 5: the 0.999 quantile


def test_draft_leak_face_down_cards_do_not_matter():
    """§10: two draft states differing only in a face-down draft card (swapped with the draw pile) give the
    same determinizations for the same seed."""
    a = observe(_draft_position(), 0)
    b = observe(_draft_position(piles=[[SILVER, BANK], [COINS], []], draw=[STOCKS]), 0)
    assert np.array_equal(a.unseen, b.unseen) and a.draft_tops == b.draft_tops
    for x, y in zip(Determinizer(a).sample(rng_state(4), 10), Determinizer(b).sample(rng_state(4), 10)):
        assert np.array_equal(x["flat"], y["flat"])


def test_exactly_uniform_with_advanced_cards_hidden():
    """RULES.md §6: under ``advanced`` a Swap and a Penny Jar among the unseen cards: a hidden set card is its
    asset or a wild (the Penny Jar included, never the Swap); the law over consistent physical-card deals stays
    exactly uniform."""
    state = state_of(
        players=2, preset="advanced",
        hands=[[PIGGY, PIGGY], [JEWELS, SWAP]],
        stacks=[[cset(BANK, BANK, BANK, known_by=[[0, 1], [0, 1]])],
                [cset(JEWELS, PENNY, JEWELS, known_by=[[1], [0, 1]]),
                 cset(STOCKS, GOLD, STOCKS, known_by=[[1], [0, 1]])]],
        draw_pile=[STOCKS],
        discard_pile=[COINS],
    )
    obs = observe(state, 0)
    deck = obs.rules.deck
    na, nw = deck.n_assets, deck.n_wilds
    unseen = [t for t, n in enumerate(obs.unseen) for _ in range(int(n))]
    assert sorted(unseen) == sorted(deck.names.index(x) for x in (JEWELS, SWAP, PENNY, STOCKS, GOLD))
    det = Determinizer(obs)
    slots = list(det.info.slot_asset)
    exact = Counter()
    for perm in itertools.permutations(range(len(unseen))):
        cards = [unseen[i] for i in perm]
        if all(c == a or na <= c < na + nw for c, a in zip(cards, slots)):
            exact[(*cards[:2], tuple(sorted(cards[2:4])), cards[4])] += 1
    tot = sum(exact.values())
    n = 40_000
    got = Counter()
    for smp in det.sample(rng_state(321), n):
        opp = tuple(int(t) for t in np.flatnonzero(smp["hands"][1]) for _ in range(int(smp["hands"][1][t])))
        got[(*(int(x) for x in smp["hidden"]), tuple(sorted(opp)), int(smp["draw_pile"][0]))] += 1
    assert set(got) == set(exact)
    assert all(deck.names[c] != SWAP for k in got for c in k[:2])
    chi2 = sum((got[k] - n * v / tot) ** 2 / (n * v / tot) for k, v in exact.items())
    assert chi2 < 3 * len(exact) + 30, (chi2, exact, got)  # far beyond the 0.999 quantile of chi2(len - 1)


def test_draft_move_choice_exactly_uniform_and_kept():
    """§10 with §7 and §6: while a Move turned up on a draft pile waits for seat 1's choice, the pile's next card
    is face down and hidden like the others; the determinizations keep the waiting choice (whose stack, the draw
    order) and are uniform over the 12 consistent deals of the 4 unseen cards (seat 0's hand card, the
    face-down draft card, the draw card, and the hand card hidden beneath the drafted Jewels: Jewels or a wild)."""
    from conftest import AUTO, MOVE, act

    from cya_sim.engine.classic.kernel import apply_action as kernel_apply
    from cya_sim.engine.classic.kernel import legal_list
    from cya_sim.engine.classic.layout import C_A, G_DRAFT_MOVE, G_DRAFT_THEN0, G_TO_ACT

    pub = [[0, 1], [0, 1]]
    s = state_of(players=2, preset="two_player_draft_advanced", hands=[[JEWELS, PIGGY], [AUTO]],
                 stacks=[[cset(AUTO, AUTO, AUTO, known_by=pub), cset(BANK, BANK, BANK, known_by=pub)], []],
                 draft_piles=[[STOCKS, MOVE, JEWELS], [BANK], [COINS]], draw_pile=[SILVER])
    act(s, "draft_take:Jewels+match")
    assert s.draft_move == [1, 0]
    obs = observe(s, 1)
    det = Determinizer(obs)
    names = obs.rules.deck.names
    unseen = sorted(t for t, n in enumerate(obs.unseen) for _ in range(int(n)))
    assert unseen == sorted(names.index(x) for x in (JEWELS, PIGGY, STOCKS, SILVER))
    assert det.info.draft_pos.tolist() == [0]
    L = det.layout
    n = 24_000
    got = Counter()
    for smp in det.sample(rng_state(5), n):
        g = smp["flat"]
        assert g[G_DRAFT_MOVE] == 1 and g[G_TO_ACT] == 1 and g[G_DRAFT_THEN0] == 1
        got[(int(smp["hidden"][0]), int(np.flatnonzero(smp["hands"][0])[0]), int(g[L[B_DECK]]),
             int(smp["draw_pile"][0]))] += 1
    assert len(got) == 12 and all(k[0] in (names.index(JEWELS), names.index(SILVER)) for k in got)
    chi2 = sum((v - n / 12) ** 2 / (n / 12) for v in got.values())
    assert chi2 < 31.3, got  # df 11: the 0.999 quantile
    k = det.state.consts
    g = det.sample(rng_state(6), 1)[0]["flat"]
    ids = np.zeros(int(k.cfg[C_A]), np.int64)
    assert legal_list(k, g, ids) == 2
    kernel_apply(k, g, np.zeros(4, np.uint64), int(ids[1]))  # bottom_to_top: the determinization plays on
    assert g[G_DRAFT_MOVE] == 0 and g[G_TO_ACT] == 0  # the mover's second action (R-ADV-TWO)
