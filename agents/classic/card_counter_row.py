"""``card_counter`` read from the game row: the same decisions as the view form, without building a view.

:func:`agents.classic.card_counter.card_counter_decide` decides from the seat's agent view
(:mod:`agents.classic.view`), which the compiled loops build at every decision: about 130 ns of a
``card_counter`` decision went to the view (the legal action mask, the unseen cards, the seat table, the
give-up record, the header; ``docs/benchmark.md``). :func:`card_counter_row` makes the very same choice
reading the game row (:mod:`cya_sim.engine.classic.layout`) as ``greedy_act`` does: only what the seat may
see (RULES.md §10), only the parts the decision needs, and each probability computed only when it can
change the choice.

Scope: the classic rules without the advanced cards (§6) and without draft piles (§7): there the loops
call this form (:func:`agents.classic.compiled.policy_act`); under §6 or §7 they build the view and call the
view form. Same choices, game by game: every float is the same call of :mod:`agents.classic.probability`
on the same numbers in the same order (``tests/test_agents_compiled_row.py`` checks it at every decision of
thousands of games, against the view form; ``tests/test_action_log_hashes.py`` holds the logs).

How the work is cut while the choice stays identical (each exact, not an approximation):

* the hand becomes bitmasks (asset types held, held twice, wilds held) and only the types held are visited,
  in the ascending id order of :func:`cya_sim.engine.classic.kernel.legal_list` (the view form reads every id
  of the legal action mask; those unpredictable branches were most of its time);
* a set's TIP-COUNT score is its value times a probability at most 1, so a set worth no more than the best
  score so far cannot win (the view form keeps a strictly greater score) and its probability is not computed;
* a challenge's expected gain ``p * V - (1 - p) * C`` is at most ``V`` (``0 <= p <= 1``, ``C >= 0``, and so in
  floating point too), so a target whose ``V`` is at most the larger of ``min_gain``, the best set's score and
  the best gain so far cannot change the choice, and its hypergeometric terms are not computed;
* the unseen-card totals are counted only when a probability may be needed (a set of one's own, or an answer
  in a challenge against a seat that has not given up that asset type).
"""

from __future__ import annotations

from numba import njit

from agents.classic.card_counter import CC_MIN_GAIN, CC_NAIVE_HIDDEN, COUNT_PAIRS, playable_cost
from agents.classic.heuristic import _wilds_in_hand
from agents.classic.probability import p_at_most
from agents.classic.row_reading import (
    best_set,
    cheapest_discard,
    cheapest_wild,
    hand_masks,
    target_value,
    unseen_totals,
)
from cya_sim.engine.classic.kernel import value_seen
from cya_sim.engine.classic.layout import (
    B_CHCARDS,
    B_GAVEUP,
    B_HANDS,
    B_HCOUNT,
    B_SASSET,
    B_SLEN,
    B_STOP,
    C_CH,
    C_GU,
    C_NA,
    C_NW,
    C_P,
    C_RE,
    C_T,
    C_W,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_CH_CHAL,
    G_CH_DEF,
    G_CH_LEN,
)
from cya_sim.engine.classic.seen import unseen_bases, unseen_one
from cya_sim.engine.jit import JIT
from cya_sim.engine.seats import seat_add


@njit(**JIT)
def card_counter_row(K, G, seat, params):
    """The ``card_counter`` action id (int) for ``seat`` in row ``G``, classic rules without §6 and §7.

    Args:
        K: the rule constants (:data:`~cya_sim.engine.classic.layout.Consts`; ``C_ADV_ON`` and ``C_DRAFT`` 0).
        G: (W,) int64 the game row, ``seat`` to act.
        params: (N_AGENT_PARAMS,) float64, ``params[CC_MIN_GAIN]`` dollars and ``params[CC_NAIVE_HIDDEN]``
            (:mod:`agents.classic.card_counter`).

    Returns the same id as :func:`agents.classic.card_counter.card_counter_decide` on the seat's view
    (TIP-COUNT; R-PAIR-HAND, R-PAIR-DISCARD with R-NO-WILD-PAIR, R-CHALLENGE with R-CH-ALLOWED, R-CH-EXCHANGE,
    R-DISCARD, R-HIDDEN-WILD). The legal ids are those of :func:`cya_sim.engine.classic.kernel.legal_list`,
    visited in the same ascending order.
    """
    cfg = K.cfg
    L = K.lay
    values = K.values
    na, nw, t, p, w = cfg[C_NA], cfg[C_NW], cfg[C_T], cfg[C_P], cfg[C_W]
    b_slen, b_hcount, b_stop, b_sasset, b_gaveup = L[B_SLEN], L[B_HCOUNT], L[B_STOP], L[B_SASSET], L[B_GAVEUP]
    h0 = L[B_HANDS] + seat * t
    bases = unseen_bases(K, seat)
    min_gain = params[CC_MIN_GAIN]
    naive = params.shape[0] > CC_NAIVE_HIDDEN and params[CC_NAIVE_HIDDEN] > 0.5

    if G[G_CH_ACTIVE]:  # R-CH-EXCHANGE
        asset = G[G_CH_ASSET]
        defender = G[G_CH_DEF]
        other = G[G_CH_CHAL] if seat == defender else defender
        k, cost = playable_cost(G[h0:h0 + t], values, asset, na, nw)
        if k == 0:
            return cfg[C_GU]  # nothing to answer with (about a quarter of the decisions): no count needed
        if (G[b_gaveup + other] >> asset) & 1:
            p_ok = 1.0
        else:
            n_unseen, unseen_wilds = unseen_totals(K, G, bases)
            p_ok = p_at_most(k - 1, n_unseen, unseen_one(K, G, bases, asset) + unseen_wilds, G[b_hcount + other])
        pot = 0
        for i in range(G[G_CH_LEN]):
            pot += values[G[L[B_CHCARDS] + i]]
        d_top = G[b_stop + defender]
        contested = (value_seen(K, G, d_top, seat) if d_top >= 0 else 0) + pot
        if p_ok * contested - (1.0 - p_ok) * cost <= min_gain:
            return cfg[C_GU]
        if G[h0 + asset] > 0:
            return cfg[C_RE]
        return cfg[C_RE] + 1 + cheapest_wild(K, G, h0) - na

    # The sets to lay, ranked by TIP-COUNT safety (the view form's heuristic._best_pair with COUNT_PAIRS).
    own_sets = G[b_slen + seat]
    count = own_sets >= 1  # TIP-COUNT odds, and challenges (R-CH-ALLOWED), only with a set of one's own
    n_unseen, unseen_wilds = unseen_totals(K, G, bases) if count else (0, 0)
    masks = hand_masks(K, G, h0)
    held, _held2, wilds = masks
    n_wild = _wilds_in_hand(G[h0:h0 + t], na, nw)
    best_pair, best_score = best_set(K, G, seat, COUNT_PAIRS, bases, masks, False, n_wild, 0, own_sets, n_unseen,
                                     unseen_wilds)

    # R-CHALLENGE with R-CH-ALLOWED. A target whose V is at most ``floor`` cannot change the choice: its gain is at
    # most V, and the choice is the set (when its score is at least the best gain), a challenge of a gain above
    # min_gain (the first strictly greatest), or a discard.
    best_off, best_gain = 0, -1.0
    floor = min_gain
    if best_pair >= 0 and best_score > floor:
        floor = best_score
    if own_sets >= 1:
        for off in range(1, p):
            tg = seat_add(seat, off, p)
            if G[b_slen + tg] < 2:
                continue
            top_set = G[b_stop + tg]
            asset = G[b_sasset + top_set]
            if (held >> asset) & 1 == 0 and wilds == 0:
                continue
            v = target_value(K, G, top_set, seat, asset, bases, naive)
            if v <= floor:
                continue
            k, cost = playable_cost(G[h0:h0 + t], values, asset, na, nw)
            if (G[b_gaveup + tg] >> asset) & 1:
                p_win = 1.0
            else:
                p_win = p_at_most(k - 1, n_unseen, unseen_one(K, G, bases, asset) + unseen_wilds, G[b_hcount + tg])
            gain = p_win * v - (1.0 - p_win) * cost
            if gain > best_gain:
                best_off, best_gain = off, gain
                floor = max(floor, gain)
    if best_pair >= 0 and (best_off == 0 or best_gain <= min_gain or best_score >= best_gain):
        return best_pair
    if best_off > 0 and best_gain > min_gain:
        row = cfg[C_CH] + (best_off - 1) * w
        if G[h0 + G[b_sasset + G[b_stop + seat_add(seat, best_off, p)]]] > 0:
            return row
        return row + 1 + cheapest_wild(K, G, h0) - na
    return cheapest_discard(K, G, h0)
