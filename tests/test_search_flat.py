"""The search's flat engine plays exactly the batched engine's rules (issue 6; RULES.md §3–5).

Lockstep differential test: the same actions applied to a batched-engine row
and to its flat copy (:mod:`cya_sim.search.flat`) give the same state after
every action (hands, draw position, discard pile, stacks and their values,
totals, the seat to act, the challenge), the same legal actions and the same
``greedy`` choice. A new round is dealt by each engine from its own stream, so
at each round end the totals are compared and the flat game is re-packed.

The ``card_counter`` rollout policy (:mod:`cya_sim.search.policies`) is
checked the same way: on every position of the lockstep games, the agent
view it builds from the flat game equals the batched engine's view of the
seat to act, and its decision equals the real ``card_counter``'s.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.compiled import greedy_act
from agents.compiled_strategy import card_counter_act, view_row
from cya_sim.engine.batched import init
from cya_sim.engine.batched import kernels as kn
from cya_sim.rules import get_rules
from cya_sim.search import flat as fl
from cya_sim.search import policies as po
from cya_sim.search.determinize import rng_state


def _compare(K, S, L, G, where):
    p, t = int(K.cfg[kn.C_P]), int(K.cfg[kn.C_T])
    assert G[fl.G_TO_ACT] == S.to_act[0], where
    assert G[fl.G_CUR] == S.current_player[0], where
    assert np.array_equal(G[L[fl.B_HANDS]:L[fl.B_HANDS] + p * t].reshape(p, t), S.hands[0]), where
    assert np.array_equal(G[L[fl.B_HCOUNT]:L[fl.B_HCOUNT] + p], S.hand_count[0]), where
    assert G[fl.G_DRAW_POS] == S.draw_pos[0], where
    nd = int(S.discard_len[0])
    assert G[fl.G_DISC_LEN] == nd and np.array_equal(G[L[fl.B_DISC]:L[fl.B_DISC] + nd], S.discard[0, :nd]), where
    assert np.array_equal(G[L[fl.B_SLEN]:L[fl.B_SLEN] + p], S.stack_len[0]), where
    assert np.array_equal(G[L[fl.B_STOP]:L[fl.B_STOP] + p], S.stack_top[0]), where
    assert np.array_equal(G[L[fl.B_SVAL]:L[fl.B_SVAL] + p], S.stack_value[0]), where
    assert np.array_equal(G[L[fl.B_TOTAL]:L[fl.B_TOTAL] + p], S.totals[0]), where
    ns = int(S.n_sets[0])
    assert G[fl.G_N_SETS] == ns, where
    for blk, arr in ((fl.B_SVALUE, S.set_value), (fl.B_SCARD0, S.set_card0), (fl.B_SKNOWN0, S.set_known0),
                     (fl.B_SASSET, S.set_asset), (fl.B_SBELOW, S.set_below)):
        assert np.array_equal(G[L[blk]:L[blk] + ns], arr[0, :ns]), (where, blk)
    assert np.array_equal(G[L[fl.B_SSIZE]:L[fl.B_SSIZE] + ns], S.set_size[0, :ns]), where
    gave_up = (G[L[fl.B_GAVEUP]:L[fl.B_GAVEUP] + p, None] >> np.arange(t)) & 1
    assert np.array_equal(gave_up.astype(bool), S.gave_up[0]), where
    assert bool(G[fl.G_CH_ACTIVE]) == bool(S.ch_active[0]), where
    assert G[fl.G_DONE] == int(S.done[0]), where


@pytest.mark.parametrize("preset, players", [("classic", 4), ("classic", 2), ("guide", 3), ("basic", 5)])
def test_flat_engine_matches_batched_engine_action_by_action(preset, players):
    _lockstep(preset, players, games=6)


@pytest.mark.slow
@pytest.mark.parametrize("preset, players", [("classic", p) for p in range(2, 13)] + [("guide", 4), ("basic", 6)])
def test_flat_engine_matches_batched_engine_many_games(preset, players):
    _lockstep(preset, players, games=150)


def _lockstep(preset, players, games):
    rules = get_rules(preset)
    state = init(rules, players, 1, 4242, game_indices=np.arange(games), agents=("random",))
    K, S = state.consts, state.arrays
    L = fl.layout(K.cfg)
    G = np.zeros(int(L[fl.B_SIZE]), np.int64)
    fl.pack_row(K, S, 0, L, G)
    cfg, values, deck0 = K.cfg, K.values, K.deck0.astype(np.int64)
    rng = np.random.default_rng(7)
    frng = rng_state(1)
    mask = np.zeros(int(cfg[kn.C_A]), bool)
    acts = np.zeros(int(cfg[kn.C_A]), np.int64)
    view = po.new_view(cfg)
    steps = 0
    finished = 0
    while finished < games and steps < 5_000 * games:
        game = int(S.game_index[0])
        kn.legal_mask_row(K, S, 0, mask)
        n = fl.legal_flat(cfg, L, G, acts)
        assert np.array_equal(np.flatnonzero(mask), acts[:n]), (game, steps)
        seat = int(S.to_act[0])
        assert fl.greedy_flat(cfg, values, K.wild_order, K.discard_order, L, G) == greedy_act(K, S, 0, seat)
        cc = _check_card_counter(K, S, L, G, view, seat, (game, steps))
        # mostly greedy or card_counter actions (long, realistic games), sometimes a random legal one (every rule)
        u = rng.random()
        a = int(greedy_act(K, S, 0, seat)) if u < 0.35 else cc if u < 0.7 else int(rng.choice(acts[:n]))
        rnd = int(S.round[0])
        kn.apply_action(K, S, 0, a)
        assert fl.play_flat(cfg, values, deck0, K.wild_order, K.discard_order, L, G, frng,
                            np.array([a], np.int64), 1) == -1
        steps += 1
        if S.done[0] or S.round[0] != rnd:
            t0 = L[fl.B_TOTAL]
            assert np.array_equal(G[t0:t0 + players], S.totals[0]), (game, steps)
            assert G[fl.G_DONE] == int(S.done[0]) and G[fl.G_WINNERS] == S.winners[0]
            if S.done[0]:
                finished += 1
                kn.finish_and_refill(K, S, 0)
                if S.queue_pos[0] < 0:
                    break
            fl.pack_row(K, S, 0, L, G)
        else:
            _compare(K, S, L, G, (game, steps, a))
    assert finished == games


def _check_card_counter(K, S, L, G, view, seat, where):
    """The flat view of the seat to act equals the batched one, and so does the ``card_counter`` decision."""
    hdr, hand, unseen, seats, gave_up, mask, params = view
    po.view_flat(K.cfg, K.values, L, G, seat, hdr, hand, unseen, seats, gave_up, mask)
    want = (np.zeros_like(hdr), np.zeros_like(hand), np.zeros_like(unseen), np.zeros_like(seats))
    view_row(K, S, 0, seat, *want)
    for got, exp in zip((hdr, hand, unseen, seats), want):
        assert np.array_equal(got, exp), where
    assert np.array_equal(gave_up, S.gave_up[0]), where
    want_mask = np.zeros_like(mask)
    kn.legal_mask_row(K, S, 0, want_mask)
    assert np.array_equal(mask, want_mask), where
    a = po.card_counter_flat(K.cfg, K.values, L, G, view)
    assert a == card_counter_act(K, S, 0, seat, params), where
    assert mask[a], where
    return int(a)
