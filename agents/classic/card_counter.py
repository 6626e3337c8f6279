"""``card_counter``: counts the unseen cards and plays by expected value (TIP-COUNT).

It keeps exact counts of the cards it has not seen (RULES.md §10
``unseen``) and the public record of who gave up a challenge (``gave_up``),
and uses the hypergeometric model of :mod:`agents.classic.probability`:

* **Challenge** (R-CHALLENGE) the target with the largest expected gain
  ``p_win * V - (1 - p_win) * C`` when it exceeds ``min_gain`` dollars. ``V``
  is the target's top set with each hidden card at its expected value
  (R-HIDDEN-WILD, RULES.md §10: a hidden set card is one of the unseen cards,
  an asset of the set's type or a wild, so its expected value is the mean
  over those unseen cards — the inference of hidden wilds from the public
  record; with ``infer_hidden=false`` each hidden card counts at the asset's
  face value, as ``greedy`` counts it, and nothing is inferred; TIP-HIDE-WILD),
  ``C`` the value of every card it could play, and ``p_win`` the chance the
  defender holds fewer answering cards than it can play: ``P(X <= k - 1)``,
  X ~ hypergeometric(unseen, unseen matching, defender's hand size), k = own
  playable cards. A defender who gave up a challenge of that asset type and
  has drawn nothing since is taken to hold none (``p_win = 1``).
* **Lay sets** (R-PAIR-HAND, R-PAIR-DISCARD) ranked by value times the chance
  that no opponent able to challenge holds a matching card or wild (TIP-COUNT),
  before a challenge whose expected gain is smaller.
* **Answer in a challenge** (R-CH-EXCHANGE) when ``p_ok * (set + cards shown)
  - (1 - p_ok) * C`` exceeds ``min_gain``, p_ok being the chance the other side
  holds fewer cards than this seat can still play.
* Otherwise discard the cheapest asset, else the cheapest wild (R-DISCARD).
* Draft piles (R-2P-DRAFT, R-3P-DRAFT): draft takes are ranked with the sets
  (their value: the hand card plus the face-up cards taken). Asked about the
  immediate challenge of a drafted set, it opens it when the expected gain of
  that challenge (computed as for a challenge of the drafter's top set)
  exceeds ``min_gain``, else declines.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.classic.advanced import advanced_first, advanced_last
from agents.classic.heuristic import _answer, _best_pair, _challenge_allowed, _cheapest_discard, _opening
from agents.classic.probability import expected_hidden_value, p_at_most
from agents.classic.view import (
    H_ADV,
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_CH_POT_VALUE,
    H_DRAFT_MOVER,
    H_DRAFT_OFFER,
    H_NA,
    H_NW,
    H_P,
    H_SEAT,
    S_HAND_SIZE,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_KNOWN_VALUE,
    S_TOP_VALUE_SEEN,
    action_starts,
    build_view,
    draft_starts,
)
from cya_sim.engine.classic.reference.observation import Observation

CC_MIN_GAIN = 0
#: 1.0: count each hidden set card at the asset's face value (``infer_hidden=false``); 0.0 (default) infers.
CC_NAIVE_HIDDEN = 1
N_CC_PARAMS = 2
#: ``heuristic`` parameters that make :func:`_best_pair` rank sets by TIP-COUNT safety.
COUNT_PAIRS = np.array([1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1], np.float64)


@njit(cache=True, _nrt=False)
def playable_cost(hand, values, asset, na, nw):
    """(cards, dollars): how many cards the hand can play over ``asset`` and their face value."""
    n = hand[asset]
    cost = hand[asset] * values[asset]
    for k in range(nw):
        n += hand[na + k]
        cost += hand[na + k] * values[na + k]
    return n, cost


@njit(cache=True, _nrt=False)
def card_counter_decide(params, hdr, hand, values, unseen, seats, gave_up, mask):
    """The ``card_counter`` action id (int) for one seat's view.

    Args:
        params: (N_CC_PARAMS,) float64; ``params[CC_MIN_GAIN]`` in dollars; ``params[CC_NAIVE_HIDDEN]``
            1.0 counts hidden set cards at face value instead of inferring them (0.0, the default, infers).
        hdr, hand, values, unseen, seats, mask: the agent view (:mod:`agents.classic.view`).
        gave_up: (P, T) bool, public: seat gave up a challenge over that asset
            type and has drawn no card since.
    """
    _ph, _pd, ch, di, re, gu, w = action_starts(hdr)
    na, nw = hdr[H_NA], hdr[H_NW]
    seat, p = hdr[H_SEAT], hdr[H_P]
    n_unseen = 0
    for t in range(na + nw):
        n_unseen += unseen[t]
    unseen_wilds = 0
    for k in range(nw):
        unseen_wilds += unseen[na + k]
    min_gain = params[CC_MIN_GAIN]
    naive = params.shape[0] > CC_NAIVE_HIDDEN and params[CC_NAIVE_HIDDEN] > 0.5

    if hdr[H_CH_ACTIVE] > 0:
        asset = hdr[H_CH_ASSET]
        defender = hdr[H_CH_DEFENDER]
        other = hdr[H_CH_CHALLENGER] if seat == defender else defender
        k, cost = playable_cost(hand, values, asset, na, nw)
        if k == 0:
            return gu
        if gave_up[other, asset]:
            p_ok = 1.0
        else:
            p_ok = p_at_most(k - 1, n_unseen, unseen[asset] + unseen_wilds, seats[other, S_HAND_SIZE])
        contested = seats[defender, S_TOP_VALUE_SEEN] + hdr[H_CH_POT_VALUE]
        if p_ok * contested - (1.0 - p_ok) * cost <= min_gain:
            return gu
        return _answer(mask, re, hand, values, na, nw)

    if hdr[H_DRAFT_OFFER] > 0:  # R-2P-DRAFT, R-3P-DRAFT: the immediate challenge of a drafted set
        _dt, _dw, dc, dd = draft_starts(hdr)
        mover = hdr[H_DRAFT_MOVER]
        asset = seats[mover, S_TOP_ASSET]
        k, cost = playable_cost(hand, values, asset, na, nw)
        hidden_v = expected_hidden_value(unseen[asset], values[asset], unseen[na:na + nw], values[na:na + nw])
        v = seats[mover, S_TOP_KNOWN_VALUE] + seats[mover, S_TOP_HIDDEN] * hidden_v
        if gave_up[mover, asset]:
            p_win = 1.0
        else:
            p_win = p_at_most(k - 1, n_unseen, unseen[asset] + unseen_wilds, seats[mover, S_HAND_SIZE])
        if k == 0 or p_win * v - (1.0 - p_win) * cost <= min_gain:
            return dd
        return _opening(mask, dc, hand, values, na, nw)

    best_pair, best_score = _best_pair(COUNT_PAIRS, hdr, hand, values, unseen, seats, mask, False)
    best_off, best_gain = 0, -1.0
    for off in range(1, p):
        row = ch + (off - 1) * w
        if not _challenge_allowed(mask, row, w):
            continue
        tg = (seat + off) % p
        asset = seats[tg, S_TOP_ASSET]
        k, cost = playable_cost(hand, values, asset, na, nw)
        if naive:
            v = float(seats[tg, S_TOP_VALUE_SEEN])
        else:
            hidden_v = expected_hidden_value(unseen[asset], values[asset], unseen[na:na + nw], values[na:na + nw])
            v = seats[tg, S_TOP_KNOWN_VALUE] + seats[tg, S_TOP_HIDDEN] * hidden_v
        if gave_up[tg, asset]:
            p_win = 1.0
        else:
            p_win = p_at_most(k - 1, n_unseen, unseen[asset] + unseen_wilds, seats[tg, S_HAND_SIZE])
        gain = p_win * v - (1.0 - p_win) * cost
        if gain > best_gain:
            best_off, best_gain = off, gain
    if best_pair >= 0 and (best_off == 0 or best_gain <= min_gain or best_score >= best_gain):
        return best_pair
    if best_off > 0 and best_gain > min_gain:
        return _opening(mask, ch + (best_off - 1) * w, hand, values, na, nw)
    return _cheapest_discard(hand, values, na, nw, di)


class CardCounterAgent:
    """Single-game form of ``card_counter`` (see the module docstring).

    Args:
        min_gain: dollars; challenge or answer only when the expected gain
            exceeds it (default 0).
        infer_hidden: True (default) values each hidden set card of a target
            at its expected value over the unseen cards it can be (the set's
            asset or a wild; R-HIDDEN-WILD, RULES.md §10); False counts it at
            the asset's face value (the opponent switch of TIP-HIDE-WILD).

    Raises:
        TypeError: ``min_gain`` not an integer or ``infer_hidden`` not a bool (named).

    Deterministic: it never draws from ``rng``.
    """

    name = "card_counter"

    def __init__(self, min_gain: int = 0, infer_hidden: bool = True) -> None:
        if not isinstance(min_gain, int) or isinstance(min_gain, bool):
            raise TypeError(f"card_counter parameter 'min_gain' is {min_gain!r}; it must be an integer (dollars)")
        if not isinstance(infer_hidden, bool):
            raise TypeError(f"card_counter parameter 'infer_hidden' is {infer_hidden!r}; it must be true or false")
        self._params = np.array([float(min_gain), 0.0 if infer_hidden else 1.0], np.float64)

    def act(self, obs: Observation, rng: np.random.Generator) -> int:
        """The card-counting action id for this observation."""
        hdr, hand, values, unseen, seats, mask = build_view(obs)
        gave_up = np.asarray(obs.gave_up, bool)
        if hdr[H_ADV]:  # the advanced rules (RULES.md §6): agents/classic/advanced.py
            a = advanced_first(hdr, hand, values, seats, mask)
            if a < 0:
                a = card_counter_decide(self._params, hdr, hand, values, unseen, seats, gave_up, mask)
            return int(advanced_last(hdr, hand, values, mask, a))
        return int(card_counter_decide(self._params, hdr, hand, values, unseen, seats, gave_up, mask))
