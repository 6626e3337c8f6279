"""``heuristic`` (and ``wild_hoarder``) read from the game row: the same decisions as the view form, no view built.

:func:`agents.classic.heuristic.heuristic_decide` decides from the seat's agent view (:mod:`agents.classic.view`),
which the compiled loops build at every decision. Under the classic rules without the advanced cards (§6) and
without draft piles (§7) they call :func:`heuristic_row` instead: the same switches (TIPS.md, through
:class:`~agents.classic.heuristic.HeuristicConfig`'s parameter vector) and the same choices, game by game
(``tests/test_agents_compiled_row.py`` checks every decision of thousands of games against the view form, for
several switch settings; ``tests/test_action_log_hashes.py`` holds the logs), read from the row through
:mod:`agents.classic.row_reading`. Under §6 or §7 the loops build the view and call the view form.
"""

from __future__ import annotations

from numba import njit

from agents.classic.heuristic import (
    P_BACKUP,
    P_COVER,
    P_COVER_MIN,
    P_LET_GO,
    P_LET_GO_MAX,
    P_PAIR_FIRST,
    P_SAVE_WILD,
    P_WILD_CHALLENGES,
    P_WILD_DEFENCE,
    P_WILD_FIRST,
    _wilds_in_hand,
)
from agents.classic.row_reading import best_set, cheapest_discard, cheapest_wild, hand_masks, unseen_totals
from cya_sim.engine.classic.kernel import value_seen
from cya_sim.engine.classic.layout import (
    B_CHCARDS,
    B_HANDS,
    B_SASSET,
    B_SLEN,
    B_STOP,
    C_CH,
    C_GU,
    C_N,
    C_NA,
    C_NW,
    C_P,
    C_RE,
    C_T,
    C_W,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_CH_DEF,
    G_CH_LEN,
    G_DRAW_POS,
)
from cya_sim.engine.classic.seen import unseen_bases
from cya_sim.engine.jit import JIT
from cya_sim.engine.seats import seat_add


@njit(inline="always", **JIT)
def _top_value_seen(K, G, s, seat):
    """Dollars of seat ``s``'s top set as ``seat`` sees it (R-HIDDEN-WILD); 0 without a set (the view's
    ``S_TOP_VALUE_SEEN``)."""
    top = G[K.lay[B_STOP] + s]
    return value_seen(K, G, top, seat) if top >= 0 else 0


@njit(**JIT)
def heuristic_row(K, G, seat, params):
    """The ``heuristic`` action id (int) for ``seat`` in row ``G``, classic rules without §6 and §7.

    Args:
        K: the rule constants (:data:`~cya_sim.engine.classic.layout.Consts`; ``C_ADV_ON`` and ``C_DRAFT`` 0).
        G: (W,) int64 the game row, ``seat`` to act.
        params: (N_AGENT_PARAMS,) float64 whose first ``N_PARAMS`` are the switches
            (:meth:`agents.classic.heuristic.HeuristicConfig.to_array`).

    Returns the same id as :func:`agents.classic.heuristic.heuristic_decide` on the seat's view, in its order
    (TIP-LET-GO, TIP-WILD-USE, TIP-SAVE-WILD in a challenge, R-CH-EXCHANGE; TIP-WILD-FIRST, TIP-FAST-FIRST,
    TIP-COUNT for the sets, R-PAIR-HAND, R-PAIR-DISCARD; TIP-BACKUP for the targets, R-CHALLENGE with
    R-CH-ALLOWED; ``pair_first``, TIP-COVER; R-DISCARD).
    """
    cfg = K.cfg
    L = K.lay
    values = K.values
    na, nw, t, p, w = cfg[C_NA], cfg[C_NW], cfg[C_T], cfg[C_P], cfg[C_W]
    b_slen, b_stop, b_sasset = L[B_SLEN], L[B_STOP], L[B_SASSET]
    h0 = L[B_HANDS] + seat * t
    n_wild = _wilds_in_hand(G[h0:h0 + t], na, nw)
    draw = cfg[C_N] - G[G_DRAW_POS]
    keep_one = 1 if (params[P_SAVE_WILD] > 0 and draw > 0) else 0

    if G[G_CH_ACTIVE]:  # R-CH-EXCHANGE
        asset = G[G_CH_ASSET]
        defender = seat == G[G_CH_DEF]
        pot = 0
        for i in range(G[G_CH_LEN]):
            pot += values[G[L[B_CHCARDS] + i]]
        contested = _top_value_seen(K, G, seat, seat) + pot
        if defender and params[P_LET_GO] > 0 and contested < params[P_LET_GO_MAX]:
            return cfg[C_GU]  # TIP-LET-GO
        allow = params[P_WILD_DEFENCE] if defender else params[P_WILD_CHALLENGES]
        if G[h0 + asset] > 0:
            return cfg[C_RE]
        if allow > 0 and n_wild - keep_one > 0:
            return cfg[C_RE] + 1 + cheapest_wild(K, G, h0) - na
        return cfg[C_GU]

    own_sets = G[b_slen + seat]
    bases = unseen_bases(K, seat)
    n_unseen, unseen_wilds = unseen_totals(K, G, bases) if own_sets >= 1 else (0, 0)
    masks = hand_masks(K, G, h0)
    held, _held2, wilds = masks
    best_pair, best_score = -1, -1.0
    if params[P_WILD_FIRST] > 0 and own_sets == 0 and n_wild - keep_one > 0:  # TIP-WILD-FIRST
        best_pair, best_score = best_set(K, G, seat, params, bases, masks, True, n_wild - keep_one, draw, own_sets,
                                         n_unseen, unseen_wilds)
    if best_pair < 0:
        best_pair, best_score = best_set(K, G, seat, params, bases, masks, False, n_wild - keep_one, draw, own_sets,
                                         n_unseen, unseen_wilds)

    usable_wilds = n_wild - keep_one if params[P_WILD_CHALLENGES] > 0 else 0
    best_off, best_tv = 0, -1
    if own_sets >= 1:  # R-CHALLENGE with R-CH-ALLOWED
        for off in range(1, p):
            tg = seat_add(seat, off, p)
            if G[b_slen + tg] < 2:
                continue
            asset = G[b_sasset + G[b_stop + tg]]
            if (held >> asset) & 1 == 0 and wilds == 0:
                continue
            n_play = G[h0 + asset] + max(usable_wilds, 0)
            if n_play == 0:
                continue
            if params[P_BACKUP] > 0 and n_play < 2:
                continue  # TIP-BACKUP
            v = _top_value_seen(K, G, tg, seat)
            if v > best_tv:
                best_off, best_tv = off, v

    cover_now = params[P_COVER] > 0 and own_sets >= 1 and _top_value_seen(K, G, seat, seat) >= params[P_COVER_MIN]
    if best_pair >= 0 and (params[P_PAIR_FIRST] > 0 or cover_now or best_off == 0 or best_score >= best_tv):
        return best_pair
    if best_off > 0:
        row = cfg[C_CH] + (best_off - 1) * w
        if G[h0 + G[b_sasset + G[b_stop + seat_add(seat, best_off, p)]]] > 0:
            return row
        return row + 1 + cheapest_wild(K, G, h0) - na
    return cheapest_discard(K, G, h0)
