"""``oracle`` — CHEATS: sees every hand and every hidden set card.

A labelled upper-bound baseline: what perfect knowledge of the other hands is
worth against honest policies. It is not a legal player, so it cannot be used
by accident: it must be written ``oracle(cheats=true)``, and that spec is its
label in every output (tables, plots, reports); plain ``oracle`` is refused.

Decision rules (exact, given every hand):

* **Challenge** (R-CHALLENGE) the target whose top set (true value) is
  largest among those it is sure to win: the defender holds fewer answering
  cards (matching assets and wilds) than the oracle can play, so it wins if
  both sides play while they can (R-CH-EXCHANGE).
* **Lay sets** first when a safe one exists (no opponent able to challenge
  holds a matching card or wild), most valuable first; otherwise challenge a
  sure win; otherwise lay the most valuable set.
* **In a challenge**, answer (matching asset first, else the cheapest wild)
  only when it holds more playable cards than the other side; otherwise give
  up at once and keep its cards.
* Otherwise discard the cheapest asset, else the cheapest wild.

Like every policy it only ever returns legal actions; it does not use the
draw order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.classic.advanced import advanced_first, advanced_last
from agents.classic.heuristic import _answer, _challenge_allowed, _cheapest_discard, _opening, _pair_info
from agents.classic.view import (
    H_ADV,
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_DRAFT_MOVER,
    H_DRAFT_OFFER,
    H_NA,
    H_NW,
    H_P,
    H_SEAT,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_VALUE_SEEN,
    action_starts,
    build_view,
    draft_starts,
)
from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.game.classic.state import GameState

CHEAT_LABEL = "oracle[CHEATS: sees hidden cards]"
_SAFE_BONUS = 1 << 40  # ranks every safe set above every unsafe one


@njit(cache=True)
def _playable(hands_all, s, asset, na, nw):
    n = hands_all[s, asset]
    for k in range(nw):
        n += hands_all[s, na + k]
    return n


@njit(cache=True)
def oracle_decide(hdr, hand, values, seats, hands_all, mask):
    """The ``oracle`` action id (int).

    Args:
        hdr, hand, values, mask: the agent view (:mod:`agents.classic.view`).
        seats: (P, N_SEATCOL) int64 with **true** top-set values in
            ``S_TOP_VALUE_SEEN``.
        hands_all: (P, T) int64 every seat's hand (hidden information).
    """
    ph, pd, ch, di, re, gu, w = action_starts(hdr)
    na, nw = hdr[H_NA], hdr[H_NW]
    seat, p = hdr[H_SEAT], hdr[H_P]
    if hdr[H_CH_ACTIVE] > 0:
        asset = hdr[H_CH_ASSET]
        other = hdr[H_CH_CHALLENGER] if seat == hdr[H_CH_DEFENDER] else hdr[H_CH_DEFENDER]
        if _playable(hands_all, seat, asset, na, nw) <= _playable(hands_all, other, asset, na, nw):
            return gu
        return _answer(mask, re, hand, values, na, nw)
    if hdr[H_DRAFT_OFFER] > 0:  # §7: open the immediate challenge of a drafted set only when it would win it
        _dt, _dw, dc, dd = draft_starts(hdr)
        mover = hdr[H_DRAFT_MOVER]
        asset = seats[mover, S_TOP_ASSET]
        if _playable(hands_all, seat, asset, na, nw) <= _playable(hands_all, mover, asset, na, nw):
            return dd
        return _opening(mask, dc, hand, values, na, nw)

    best_pair, best_score = -1, -1
    for a in range(ph, ch):
        if not mask[a]:
            continue
        v, asset, _uses_wild = _pair_info(a, hdr, values, pd, w)
        safe = True
        if seats[seat, S_STACK_LEN] >= 1:
            for o in range(p):
                if o != seat and seats[o, S_STACK_LEN] >= 1 and _playable(hands_all, o, asset, na, nw) > 0:
                    safe = False
        score = v + (_SAFE_BONUS if safe else 0)
        if score > best_score:
            best_pair, best_score = a, score
    if best_pair >= 0 and best_score >= _SAFE_BONUS:
        return best_pair
    best_off, best_v = 0, -1
    for off in range(1, p):
        row = ch + (off - 1) * w
        if not _challenge_allowed(mask, row, w):
            continue
        tg = (seat + off) % p
        asset = seats[tg, S_TOP_ASSET]
        sure_win = _playable(hands_all, seat, asset, na, nw) > _playable(hands_all, tg, asset, na, nw)
        if sure_win and seats[tg, S_TOP_VALUE_SEEN] > best_v:
            best_off, best_v = off, seats[tg, S_TOP_VALUE_SEEN]
    if best_off > 0:
        return _opening(mask, ch + (best_off - 1) * w, hand, values, na, nw)
    if best_pair >= 0:
        return best_pair
    return _cheapest_discard(hand, values, na, nw, di)


class OracleAgent:
    """Single-game form of ``oracle`` — CHEATS (see the module docstring).

    ``sees_hidden = True`` tells the reference engine to pass the full game
    state as a third argument; it reads the hands and the stacks' true
    values from it and changes nothing.
    """

    name = CHEAT_LABEL
    sees_hidden = True

    def __init__(self, cheats: bool = False) -> None:
        if cheats is not True:
            raise ValueError("agent 'oracle' sees every hand and hidden card; write it as oracle(cheats=true) "
                             "so that every output labels it as cheating")

    def act(self, obs: Observation, rng: np.random.Generator, state: GameState | None = None) -> int:
        """The oracle's action id.

        Raises:
            ValueError: called without the game state (it cannot cheat blind).
        """
        if state is None:
            raise ValueError("agent 'oracle' needs the full game state; it only runs where cheating is enabled")
        hdr, hand, values, _unseen, seats, mask = build_view(obs)
        hands_all = np.array(state.hands, np.int64)
        for s in range(obs.n_players):
            if state.stacks[s]:
                seats[s, S_TOP_VALUE_SEEN] = state.stacks[s][-1].value(state.rules.deck.values)
        if hdr[H_ADV]:  # the advanced rules (RULES.md §6): agents/classic/advanced.py
            a = advanced_first(hdr, hand, values, seats, mask)
            if a < 0:
                a = oracle_decide(hdr, hand, values, seats, hands_all, mask)
            return int(advanced_last(hdr, hand, values, mask, a))
        return int(oracle_decide(hdr, hand, values, seats, hands_all, mask))
