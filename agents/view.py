"""The agent view: one seat's observation as a few flat arrays (RULES.md §10).

Policies of ``agents/`` decide from this view, so that one decision function,
plain Python that numba can compile, serves both the single-game form (built
here from an :class:`~cya_sim.engine.reference.observation.Observation`) and the batched
engine (built there from the batch state, inside compiled code).

Arrays:

* ``hdr``: (N_HDR,) int64 scalars, indexed by the ``H_*`` constants.
* ``hand``: (T,) int64 cards of each type in the seat's hand.
* ``values``: (T,) int64 face values in dollars.
* ``unseen``: (T,) int64 cards of each type the seat has not seen.
* ``seats``: (P, N_SEATCOL) int64, per seat, indexed by the ``S_*`` constants
  (top set = the seat's most recent set; 0 / -1 when it has none).
* ``mask``: (A,) bool legal action mask.

Action ids follow :mod:`cya_sim.game.actions`; :func:`action_starts` gives the
first id of each classic block from ``hdr``, :func:`draft_starts` those of the
draft blocks (RULES.md §7).

Draft fields of ``hdr`` (R-2P-DRAFT, R-3P-DRAFT; all 0 without a draft):
``H_DRAFT`` 1 when the rules have draft piles; ``H_DRAFT_OFFER`` 1 when the
seat is asked whether it opens the immediate challenge of a freshly drafted
set; ``H_DRAFT_MOVER`` the seat that drafted it (-1 otherwise);
``hdr[H_DRAFT_TOPS + c]`` the face-up draft-pile tops of card type ``c``
within the seat's reach (the face-down cards are hidden, §10).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cya_sim.engine import MAX_BATCHED_CARD_TYPES
from cya_sim.engine.compiled.pcg import next_double
from cya_sim.engine.reference.observation import Observation

# hdr ------------------------------------------------------------------------------------------
H_SEAT, H_P, H_NA, H_NW, H_M, H_DRAW, H_TOP_DISCARD, H_CH_ACTIVE = 0, 1, 2, 3, 4, 5, 6, 7
H_CH_ASSET, H_CH_CHALLENGER, H_CH_DEFENDER, H_CH_POT_VALUE, H_CH_LEN, H_ROUND = 8, 9, 10, 11, 12, 13
H_DRAFT_OFFER, H_DRAFT_MOVER, H_DRAFT = 14, 15, 16
H_DRAFT_TOPS = 17  # hdr[H_DRAFT_TOPS + c], c < MAX_BATCHED_CARD_TYPES
N_HDR = H_DRAFT_TOPS + MAX_BATCHED_CARD_TYPES
# seats columns --------------------------------------------------------------------------------
S_STACK_LEN, S_TOP_ASSET, S_TOP_VALUE_SEEN, S_TOP_HIDDEN, S_HAND_SIZE, S_TOP_SIZE, S_TOP_KNOWN_VALUE = range(7)
N_SEATCOL = 7


@njit(cache=True, _nrt=False)
def action_starts(hdr):
    """First ids of the blocks: (pair_hand, pair_discard, challenge, discard, respond, give_up, width).

    ``width`` = 1 + number of wild types (a matching asset, then each wild).
    """
    na, nw, m = hdr[H_NA], hdr[H_NW], hdr[H_M]
    w = 1 + nw
    t = na + nw
    pd = na * w
    ch = pd + t
    di = ch + (m - 1) * w
    re = di + t
    gu = re + w
    return 0, pd, ch, di, re, gu, w


@njit(cache=True, _nrt=False)
def draft_starts(hdr):
    """First ids of the draft blocks: (draft_take, draft_wild, draft_challenge, draft_decline).

    Without a draft (``hdr[H_DRAFT] == 0``) every one equals A, the action-space size (empty blocks).
    """
    _ph, _pd, _ch, _di, _re, gu, w = action_starts(hdr)
    na, nw = hdr[H_NA], hdr[H_NW]
    d = hdr[H_DRAFT]
    dt = gu + 1
    dw = dt + d * na * w
    dc = dw + d * nw * na
    dd = dc + d * w
    return dt, dw, dc, dd


def build_view(obs: Observation) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(hdr, hand, values, unseen, seats, mask) of an observation; copies, nothing hidden."""
    deck = obs.rules.deck
    p = obs.n_players
    hdr = np.zeros(N_HDR, np.int64)
    hdr[H_SEAT], hdr[H_P] = obs.seat, p
    hdr[H_NA], hdr[H_NW], hdr[H_M] = deck.n_assets, deck.n_wilds, obs.rules.max_players
    hdr[H_DRAW], hdr[H_TOP_DISCARD], hdr[H_ROUND] = obs.draw_size, obs.top_discard, obs.round
    values = np.asarray(deck.values, np.int64)
    if obs.challenge is not None:
        ch = obs.challenge
        hdr[H_CH_ACTIVE], hdr[H_CH_ASSET] = 1, ch.asset
        hdr[H_CH_CHALLENGER], hdr[H_CH_DEFENDER] = ch.challenger, ch.defender
        hdr[H_CH_POT_VALUE] = sum(int(values[c]) for c in ch.cards)
        hdr[H_CH_LEN] = len(ch.cards)
    else:
        hdr[H_CH_CHALLENGER] = hdr[H_CH_DEFENDER] = hdr[H_CH_ASSET] = -1
    hdr[H_DRAFT_MOVER] = -1
    if obs.action_space.draft:
        hdr[H_DRAFT] = 1
        if obs.phase == "draft_offer":
            hdr[H_DRAFT_OFFER], hdr[H_DRAFT_MOVER] = 1, obs.current_player
        for j in obs.draft_reach:
            if obs.draft_tops[j] >= 0:
                hdr[H_DRAFT_TOPS + obs.draft_tops[j]] += 1
    seats = np.zeros((p, N_SEATCOL), np.int64)
    for s in range(p):
        seats[s, S_HAND_SIZE] = obs.hand_sizes[s]
        stack = obs.stacks[s]
        seats[s, S_STACK_LEN] = len(stack)
        seats[s, S_TOP_ASSET] = -1
        if stack:
            top = stack[-1]
            seats[s, S_TOP_ASSET] = top.asset
            seats[s, S_TOP_VALUE_SEEN] = top.value_seen
            seats[s, S_TOP_HIDDEN] = top.n_hidden
            seats[s, S_TOP_SIZE] = top.size
            seats[s, S_TOP_KNOWN_VALUE] = top.value_seen - top.n_hidden * int(values[top.asset])
    return (hdr, obs.hand.astype(np.int64), values, obs.unseen.astype(np.int64), seats,
            np.asarray(obs.legal_action_mask, bool))


@njit(cache=True, _nrt=False)
def uniform(rng):
    """The next double in [0, 1) of a (4,) uint64 PCG64 stream (a plug-in's ``rng``), advancing it."""
    return next_double(rng)
