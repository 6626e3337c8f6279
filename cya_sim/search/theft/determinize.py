"""Determinizations of the theft game: full game rows sampled from one seat's observation (RULES.md §9, §10).

What a seat of the theft game cannot see (:mod:`cya_sim.engine.theft.observation`): the other hands, the
order of the draw pile, and the face-down card of each first asset it does not know (R-T-SETUP: known
to its owner and to every thief who took the asset); while the seats lay their first assets, the
other seats' first assets altogether (both cards). A determinization fills exactly these positions
with the observer's *unseen* cards (``TheftObservation.unseen``: the deck minus its hand, the discard
pile, the pending theft card and every asset card it knows) and changes nothing else. It is built from
the :class:`~cya_sim.engine.theft.observation.TheftObservation` only, never from the true state, so two true
states with equal observations give identical samples for the same random stream
(``tests/test_search_theft_determinize.py``).

**Exactly uniform.** The unseen cards are distinguishable physical cards; every placement of them into
the hidden positions that respects the one constraint of the rules — a card of an asset is an asset
card, a number or gold, never a theft card (R-T-SETUP lays two asset cards) — is equally likely. All
the constrained positions (H asset cards) share that one constraint and the other positions (the
opponents' hands, the draw pile) have none, so the number of placements is
``(U_a)_H * (U - H)!`` with ``U_a`` the unseen asset cards, ``U`` all unseen cards and ``(x)_k`` the
falling factorial: a product of sequential choices. The sampler therefore (1) draws the H asset cards
one after the other without replacement from the unseen asset cards, and (2) shuffles the rest
uniformly (Fisher–Yates), deals them to the opponents' hands in seat order (each to its observed
size) and lays the rest as the draw pile. Marginals: a hidden asset card is type ``c`` with
probability ``U_c / U_a``; a hand or draw-pile card is number or gold ``c`` with probability
``U_c (1 - H / U_a) / (U - H)`` and a theft card ``c`` with ``U_c / (U - H)``.

What the observation does not carry, and is therefore not used:

* who besides the owner (and the observer) knows a hidden face-down card (the thieves of the asset
  before): the row marks the owner only. An asset whose two cards the observer knows is marked
  known to every seat when it is a pair (it may be a build, R-T-TURN) and to its owner and the
  observer otherwise (a first asset that is no pair). This only changes what the other seats'
  rollout policies see of an asset's points, never a card;
* the composition of a draw pile made by reshuffling the discard pile (R-T-TURN): the observation
  forgets those discards, so after a reshuffle the draw pile and the hands are sampled from the
  unseen cards alike (no reshuffle happened in 200 three-seat games of ``greedy``/``defender``, which
  last 7 turns on average);
* negative information: under ``compulsory_defence`` a target that lets a theft pass has no legal
  cancel, which the sampler does not condition on (as a seat that passes by choice proves nothing);
  in the setup phase a seat skipped for holding fewer than two asset cards is not recognised (its
  hand is sampled like any other);
* the first player (R-T-SETUP) during the setup phase: inferred from who has laid a first asset
  (a seat holding ``hand_size - 2`` cards), which is exact unless a seat was skipped;
* the turn count (only the ``max_turns`` safeguard reads it; the template counts from 0).

The template row (:func:`template_row`) is the observation written into a row of the one compiled
theft layout (:mod:`cya_sim.engine.theft.layout`) with the hidden cards missing; :func:`sample_row` fills them
into a copy. :class:`TheftDeterminizer` is the Python face for tests and analysis.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cya_sim.engine.jit import JIT
from cya_sim.engine.pcg import next_double
from cya_sim.engine.theft.layout import (
    A_C0,
    A_C1,
    A_KNOWN0,
    A_VALUE,
    A_WORDS,
    B_ASSETS,
    B_DCOUNT,
    B_DECK,
    B_DISC,
    B_HANDS,
    B_HCOUNT,
    B_NASSETS,
    C_NC,
    C_P,
    C_S,
    C_T,
    G_CUR,
    G_DISC_LEN,
    G_DRAW_END,
    G_DRAW_POS,
    G_FINAL_LEFT,
    G_FIRST,
    G_PHASE,
    G_TH_CARD,
    G_TH_SLOT,
    G_TH_TARGET,
    G_TH_THIEF,
    G_THEFTS_TURN,
    G_TO_ACT,
    G_TRIGGER,
    PHASE_NAMES,
    Consts,
    make_consts,
    row_width,
)
from cya_sim.engine.theft.observation import TheftObservation
from cya_sim.search.tree import shuffled_rest

TheftInfoSet = namedtuple("TheftInfoSet", [
    "observer", "unseen", "hand_sizes", "draw_size", "n_asset_types", "slot_pos", "slot_val", "points0",
])
TheftInfoSet.__doc__ = """What the sampler needs of one theft observation (numba-passable).

observer: int, the seat. unseen: (T,) int64 cards of each type the observer has not seen.
hand_sizes: (P,) int64 cards in each hand. draw_size: int, cards in the draw pile.
n_asset_types: int, the card types an asset may hold (numbers and gold: ids ``0..numbers``).
slot_pos: (H,) int64 — for each hidden asset card, the offset in the row of its card word;
slot_val: (H,) int64 — the offset of its asset's points word (the sampled card's points are added).
points0: (P,) int64 — points of each seat's assets as far as the observer sees them (hidden cards 0).
"""


def _is_pair(rules, c0: int, c1: int) -> bool:
    """Whether an asset of cards c0, c1 could be a build (R-T-TURN): equal numbers, a number with gold, or two
    gold cards under ``gold_gold_pair``."""
    g = rules.gold
    lo, hi = min(c0, c1), max(c0, c1)
    return (lo == hi and lo < g) or (lo < g and hi == g) or (lo == hi == g and rules.gold_gold_pair)


def _first_player_in_setup(obs: TheftObservation) -> int:
    """R-T-SETUP: the first player, from the seats that have laid a first asset before the seat laying now
    (module docstring)."""
    p, hs = obs.n_players, obs.rules.hand_size
    first = obs.current_player
    for d in range(1, p):
        s = (obs.current_player - d) % p
        laid = len(obs.assets[s]) if s == obs.seat else int(hs - int(obs.hand_sizes[s])) // 2
        if laid <= 0:
            break
        first = s
    return first


def template_row(obs: TheftObservation, k: Consts | None = None) -> tuple[Consts, np.ndarray, TheftInfoSet]:
    """``(K, G0, info)``: the constants, the template row ((W,) int64) and the :class:`TheftInfoSet` of ``obs``.

    The row holds the observer's hand, every hand size, every asset as the observer sees it (a hidden card
    left as card 0 worth no points), the discard pile and its counts, the draw pile's size
    (``deck[NC - d:NC]``, its cards missing), the phase, the seat to act and whose turn it is, the pending
    theft, the thefts of this turn and the last turns of R-T-END; the opponents' hands are empty.

    Raises:
        ValueError: the observation is inconsistent (negative unseen counts, unseen cards that do not add up
            to the hidden positions, fewer unseen asset cards than hidden asset cards, more assets than the
            layout holds) or the game is over.
    """
    r = obs.rules
    p = obs.n_players
    if obs.phase == "over":
        raise ValueError("observation field 'phase' is 'over': a finished game has nothing to determinize")
    k = make_consts(r, p) if k is None else k
    cfg, L = k.cfg, k.lay
    t, nc, s_max = int(cfg[C_T]), int(cfg[C_NC]), int(cfg[C_S])
    unseen = np.asarray(obs.unseen, np.int64)
    if (unseen < 0).any():
        raise ValueError(f"observation field 'unseen' has negative counts {unseen.tolist()}; each must be >= 0")
    g = np.zeros(row_width(k), np.int64)
    values = np.asarray(r.values, np.int64)
    public = (1 << p) - 1
    seat = obs.seat
    g[G_PHASE] = PHASE_NAMES.index(obs.phase)
    g[G_TO_ACT] = obs.to_act
    g[G_CUR] = obs.current_player
    setup = obs.phase == "setup"
    g[G_FIRST] = _first_player_in_setup(obs) if setup else 0
    if obs.theft is not None:
        th = obs.theft
        g[G_TH_THIEF], g[G_TH_TARGET], g[G_TH_SLOT], g[G_TH_CARD] = th.thief, th.target, th.slot, th.card
    g[G_THEFTS_TURN] = obs.thefts_this_turn
    g[G_FINAL_LEFT] = -1 if obs.final_turns_left is None else obs.final_turns_left
    g[G_TRIGGER] = -1
    d = int(obs.draw_size)
    g[G_DRAW_POS], g[G_DRAW_END] = nc - d, nc
    disc = np.asarray(obs.discard_pile, np.int64)
    g[G_DISC_LEN] = disc.size
    g[L[B_DISC]:L[B_DISC] + disc.size] = disc
    g[L[B_DCOUNT]:L[B_DCOUNT] + t] = np.bincount(disc, minlength=t)[:t]
    hand_sizes = np.asarray(obs.hand_sizes, np.int64)
    g[L[B_HCOUNT]:L[B_HCOUNT] + p] = hand_sizes
    g[L[B_HANDS] + seat * t:L[B_HANDS] + (seat + 1) * t] = np.asarray(obs.hand, np.int64)
    slot_pos, slot_val = [], []
    points0 = np.zeros(p, np.int64)
    for owner in range(p):
        if setup and owner != seat:  # R-T-SETUP: an asset laid by another seat is not seen at all yet
            n_laid = max(0, (r.hand_size - int(hand_sizes[owner])) // 2)
            views = [None] * n_laid
        else:
            views = list(obs.assets[owner])
        if len(views) > s_max:
            raise ValueError(f"observation field 'assets' gives seat {owner} {len(views)} assets; at most {s_max} fit")
        g[L[B_NASSETS] + owner] = len(views)
        for slot, v in enumerate(views):
            o = int(L[B_ASSETS]) + (owner * s_max + slot) * A_WORDS
            if v is None:  # both cards hidden
                g[o + A_KNOWN0] = 1 << owner
                slot_pos += [o + A_C0, o + A_C1]
                slot_val += [o + A_VALUE, o + A_VALUE]
                continue
            if v.n_hidden == 0:
                c0, c1 = int(v.cards[0]), int(v.cards[1])
                g[o + A_C0], g[o + A_C1] = c0, c1
                g[o + A_KNOWN0] = public if _is_pair(r, c0, c1) else (1 << owner) | (1 << seat)
                g[o + A_VALUE] = values[c0] + values[c1]
            else:  # the face-down first card is hidden; the face-up second card is public (R-T-SETUP)
                c1 = int(v.cards[0])
                g[o + A_C1] = c1
                g[o + A_KNOWN0] = 1 << owner
                g[o + A_VALUE] = values[c1]
                slot_pos.append(o + A_C0)
                slot_val.append(o + A_VALUE)
            points0[owner] += g[o + A_VALUE]
    h = len(slot_pos)
    need = int(hand_sizes.sum() - hand_sizes[seat]) + h + d
    if int(unseen.sum()) != need:
        raise ValueError(
            f"observation field 'unseen' holds {int(unseen.sum())} cards but the hidden positions need {need} "
            f"(opponents' hands {int(hand_sizes.sum() - hand_sizes[seat])}, hidden asset cards {h}, draw pile {d})")
    na = r.n_asset_types
    if int(unseen[:na].sum()) < h:
        raise ValueError(f"observation is inconsistent: {h} hidden asset cards but only {int(unseen[:na].sum())} "
                         "unseen number or gold cards (an asset holds asset cards only, R-T-SETUP)")
    info = TheftInfoSet(observer=int(seat), unseen=unseen, hand_sizes=hand_sizes, draw_size=d, n_asset_types=int(na),
                        slot_pos=np.array(slot_pos, np.int64), slot_val=np.array(slot_val, np.int64), points0=points0)
    return k, g, info


@njit(**JIT)
def sample_row(K, G0, G, I, rng, rem, cards):
    """Sample one determinization of the template ``G0`` into ``G`` (module docstring).

    Args:
        K: the theft constants. G0, G: (W,) int64 rows (:mod:`cya_sim.engine.theft.layout`).
        I: the :class:`TheftInfoSet` of the observation. rng: (4,) uint64 PCG64 stream, advanced in place.
        rem: (T,) int64 and cards: (NC,) int64 scratch.

    The random draws, in order: one double per hidden asset card (its card among the unseen asset cards
    left), then the Fisher–Yates shuffle of the other unseen cards (one double per card but one).
    """
    for i in range(G.shape[0]):
        G[i] = G0[i]
    cfg = K.cfg
    L = K.lay
    t = cfg[C_T]
    for c in range(t):
        rem[c] = I.unseen[c]
    na = I.n_asset_types
    a_left = 0
    for c in range(na):
        a_left += rem[c]
    for i in range(I.slot_pos.shape[0]):
        u = int(next_double(rng) * a_left)
        card = na - 1
        for c in range(na):
            if u < rem[c]:
                card = c
                break
            u -= rem[c]
        rem[card] -= 1
        a_left -= 1
        G[I.slot_pos[i]] = card
        G[I.slot_val[i]] += K.values[card]
    shuffled_rest(rem, t, cards, rng)
    pos = 0
    for s in range(cfg[C_P]):
        if s == I.observer:
            continue
        h0 = L[B_HANDS] + s * t
        for _ in range(I.hand_sizes[s]):
            G[h0 + cards[pos]] += 1
            pos += 1
    start = L[B_DECK] + cfg[C_NC] - I.draw_size
    for i in range(I.draw_size):
        G[start + i] = cards[pos]
        pos += 1


@njit(cache=True)
def sample_many(K, G0, I, rng, n, out):
    """``n`` determinizations of ``G0`` into the rows of ``out`` ((n, W) int64), drawn in order."""
    rem = np.zeros(K.cfg[C_T], np.int64)
    cards = np.zeros(K.cfg[C_NC], np.int64)
    for i in range(n):
        sample_row(K, G0, out[i], I, rng, rem, cards)


class TheftDeterminizer:
    """Samples determinizations of one theft observation (for tests and analysis; the search uses the kernels).

    Args:
        obs: the observer's :class:`~cya_sim.engine.theft.observation.TheftObservation`; only it is read.

    Attributes:
        consts: the theft constants ``K``. template: the template row ``G0`` ((W,) int64).
        info: the :class:`TheftInfoSet`.

    Raises:
        ValueError: an inconsistent observation or a finished game (:func:`template_row`).
    """

    def __init__(self, obs: TheftObservation) -> None:
        self.obs = obs
        self.consts, self.template, self.info = template_row(obs)

    def sample(self, rng: np.ndarray, n: int = 1) -> np.ndarray:
        """``n`` determinized rows ((n, W) int64), drawn in order with the (4,) uint64 stream ``rng`` (advanced)."""
        out = np.zeros((n, self.template.shape[0]), np.int64)
        sample_many(self.consts, self.template, self.info, rng, int(n), out)
        return out
