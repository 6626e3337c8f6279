"""The agent view: one seat's observation as a few flat arrays (RULES.md §10).

Policies of ``agents/`` decide from this view, so that one decision function,
plain Python that numba can compile, serves both the single-game form (built
here from an :class:`~cya_sim.engine.classic.reference.observation.Observation`) and the batched
engine (built there from the batch state, inside compiled code).

Arrays:

* ``hdr``: (N_HDR,) int64 scalars, indexed by the ``H_*`` constants.
* ``hand``: (T,) int64 cards of each type in the seat's hand.
* ``values``: (T,) int64 face values in dollars.
* ``unseen``: (T,) int64 cards of each type the seat has not seen.
* ``seats``: (P, N_SEATCOL) int64, per seat, indexed by the ``S_*`` constants
  (top set = the seat's most recent set; 0 / -1 when it has none).
* ``mask``: (A,) bool legal action mask.
* ``legal``: (n_legal,) int64 the legal action ids, ascending (``np.flatnonzero(mask)``); a compiled plug-in
  gets it when it takes a tenth argument (:mod:`agents.classic.plugin`). Reading the legal ids instead of
  every id of the mask is the fast way through the action space: a turn has about 10 legal ids of 60–100.

Action ids follow :mod:`cya_sim.game.classic.actions`; :func:`action_starts` gives the
first id of each classic block from ``hdr``, :func:`draft_starts` those of the
draft blocks (RULES.md §7).

Draft fields of ``hdr`` (R-2P-DRAFT, R-3P-DRAFT; all 0 without a draft):
``H_DRAFT`` 1 when the rules have draft piles; ``H_DRAFT_OFFER`` 1 when the
seat is asked whether it opens the immediate challenge of a freshly drafted
set; ``H_DRAFT_MOVER`` the seat that drafted it (-1 otherwise);
``hdr[H_DRAFT_TOPS + c]`` the face-up draft-pile tops of card type ``c``
within the seat's reach (the face-down cards are hidden, §10). With the §6
cards: ``H_DRAFT_MOVE_TARGET`` the seat whose stack a Move turned up on a
draft pile moves, while the seat chooses how (-1 otherwise), and ``H_DRAFT_MV``
the first id of the ``draft_move`` block (A when there is none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cya_sim.engine.classic.layout import MAX_BATCHED_CARD_TYPES
from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.engine.pcg import next_double

# hdr ------------------------------------------------------------------------------------------
H_SEAT, H_P, H_NA, H_NW, H_M, H_DRAW, H_TOP_DISCARD, H_CH_ACTIVE = 0, 1, 2, 3, 4, 5, 6, 7
H_CH_ASSET, H_CH_CHALLENGER, H_CH_DEFENDER, H_CH_POT_VALUE, H_CH_LEN, H_ROUND = 8, 9, 10, 11, 12, 13
# The advanced rules (RULES.md §6; all 0 without them): action card types; §6 blocks on; cards owed
# in the challenge (R-ADV-PENNY/R-ADV-DEEP); actions left and actions per turn (R-ADV-TWO); Swap,
# Move, Penny Jar ids (-1: none); first ids of the end_turn, improve, swap, move, deep_challenge,
# respond_two blocks and the end of the §6 blocks
# (the first draft id, or A); Q pay-two pairs (cya_sim.game.classic.actions).
(H_NACT, H_ADV, H_OWED, H_LEFT, H_APT, H_SWAP, H_MOVE, H_PENNY, H_ET, H_IM, H_SW, H_MV, H_DC, H_R2,
 H_END, H_Q) = range(14, 30)
# The drafts (RULES.md §7; module docstring).
H_DRAFT_OFFER, H_DRAFT_MOVER, H_DRAFT = 30, 31, 32
H_DRAFT_TOPS = 33  # hdr[H_DRAFT_TOPS + c], c < MAX_BATCHED_CARD_TYPES
# The drafts with the §6 cards (module docstring), after the tops.
H_DRAFT_MOVE_TARGET = H_DRAFT_TOPS + MAX_BATCHED_CARD_TYPES
H_DRAFT_MV = H_DRAFT_MOVE_TARGET + 1
N_HDR = H_DRAFT_MV + 1
# seats columns --------------------------------------------------------------------------------
S_STACK_LEN, S_TOP_ASSET, S_TOP_VALUE_SEEN, S_TOP_HIDDEN, S_HAND_SIZE, S_TOP_SIZE, S_TOP_KNOWN_VALUE = range(7)
# the set second from the top (asset -1: none) and the bottom set, as the seat sees them (R-ADV-DEEP, R-ADV-MOVE)
S_SECOND_ASSET, S_SECOND_VALUE_SEEN, S_BOTTOM_VALUE_SEEN = 7, 8, 9
N_SEATCOL = 10
# parts of the view ----------------------------------------------------------------------------
#: Bits naming the parts of the view a policy never reads, which the compiled loops then leave unbuilt
#: (:func:`agents.classic.compiled_strategy.view_parts`): ``hand``, ``unseen``, ``seats``, ``gave_up``, ``mask``,
#: ``legal``. ``hdr`` is always built. A part left unbuilt holds whatever an earlier decision left there (``legal``
#: unbuilt is empty).
VIEW_HAND, VIEW_UNSEEN, VIEW_SEATS, VIEW_GAVE_UP, VIEW_MASK, VIEW_LEGAL = 1, 2, 4, 8, 16, 32


@njit(cache=True, _nrt=False)
def action_starts(hdr):
    """First ids of the blocks: (pair_hand, pair_discard, challenge, discard, respond, give_up, width).

    ``width`` = 1 + number of wild types (a matching asset, then each wild).
    """
    na, nw, m = hdr[H_NA], hdr[H_NW], hdr[H_M]
    w = 1 + nw
    t = na + nw + hdr[H_NACT]
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
    dt = hdr[H_END] if hdr[H_ADV] else gu + 1  # after the §6 blocks (RULES.md §6), when there are any
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
    sp = obs.action_space
    ids = obs.rules.advanced_ids
    hdr[H_NACT] = ids.n_action_cards
    if sp.advanced_on:  # the §6 header (all 0 without the advanced rules)
        hdr[H_ADV] = 1
        hdr[H_OWED] = obs.challenge.owed if obs.challenge is not None else 0
        hdr[H_LEFT], hdr[H_APT] = obs.actions_left, obs.rules.actions_per_turn
        hdr[H_SWAP], hdr[H_MOVE], hdr[H_PENNY] = ids.swap, ids.move, ids.penny
        for h, kind in ((H_ET, "end_turn"), (H_IM, "improve"), (H_SW, "swap"), (H_MV, "move"),
                        (H_DC, "deep_challenge"), (H_R2, "respond_two")):
            hdr[h] = sp.start[kind]
        hdr[H_END], hdr[H_Q] = sp.start["draft_take"], len(sp.pay_two_pairs)
    if obs.challenge is not None:
        ch = obs.challenge
        hdr[H_CH_ACTIVE], hdr[H_CH_ASSET] = 1, ch.asset
        hdr[H_CH_CHALLENGER], hdr[H_CH_DEFENDER] = ch.challenger, ch.defender
        hdr[H_CH_POT_VALUE] = sum(int(values[c]) for c in ch.cards)
        hdr[H_CH_LEN] = len(ch.cards)
    else:
        hdr[H_CH_CHALLENGER] = hdr[H_CH_DEFENDER] = hdr[H_CH_ASSET] = -1
    hdr[H_DRAFT_MOVER] = -1
    hdr[H_DRAFT_MOVE_TARGET] = obs.draft_move[1] if obs.draft_move else -1
    hdr[H_DRAFT_MV] = sp.start["draft_move"]
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
        if hdr[H_ADV]:  # the §6 columns (0 without the advanced rules, as in the compiled view)
            seats[s, S_SECOND_ASSET] = stack[-2].asset if len(stack) >= 2 else -1
            seats[s, S_SECOND_VALUE_SEEN] = stack[-2].value_seen if len(stack) >= 2 else 0
            seats[s, S_BOTTOM_VALUE_SEEN] = stack[0].value_seen if stack else 0
        if stack:
            top = stack[-1]
            seats[s, S_TOP_ASSET] = top.asset
            seats[s, S_TOP_VALUE_SEEN] = top.value_seen
            seats[s, S_TOP_HIDDEN] = top.n_hidden
            seats[s, S_TOP_SIZE] = top.size
            seats[s, S_TOP_KNOWN_VALUE] = top.value_seen - top.n_hidden * int(values[top.asset])
    return (hdr, obs.hand.astype(np.int64), values, obs.unseen.astype(np.int64), seats,
            np.array(obs.legal_action_mask, bool))


@njit(cache=True, _nrt=False)
def uniform(rng):
    """The next double in [0, 1) of a (4,) uint64 PCG64 stream (a plug-in's ``rng``), advancing it."""
    return next_double(rng)
