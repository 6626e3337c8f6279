"""The classic family's part of the search kernels: edge keys, determinizations, simulation bounds, utilities.

The shared kernels (:mod:`cya_sim.search.kernels`: rollouts, ISMCTS, PIMC) run on rows of the classic layout
(:mod:`cya_sim.engine.classic.layout`) with the classic rules kernel the batched engine runs; this module gives them
the classic family's hooks (:mod:`cya_sim.search.hooks`): a determinization (:mod:`cya_sim.search.classic.determinize`;
a rollout policy that reads its seat's view, ``card_counter``, ``heuristic``, a plug-in, gets the cards each seat has
seen recounted), the round that bounds a simulation, the observer's edge keys and the utilities. A simulation plays
to the end of the current round (``UTIL_SHARE``) or of the game (``UTIL_WIN``, at most :data:`MAX_EXTRA_ROUNDS` more
rounds).

Decisions inside a challenge (R-CH-EXCHANGE) are tree nodes like any other.

**One edge per observed move.** An opponent's moves that the observer cannot
tell apart share one edge, through :func:`edge_key` (with R-HIDDEN-WILD on):
R-PAIR-HAND of asset ``a`` with any partner has key ``pair_hand(a, match)``
(the partner lies hidden beneath), and R-PAIR-DISCARD of an asset on the
discard pile with any hand card has key ``pair_discard(top)`` (the hand card
lies hidden beneath). Every other move shows its card (discards, challenge
cards, a hand asset laid on a discarded wild) and is its own edge; the
observer's own moves are never merged. When a merged edge is chosen, the
concrete move played in the determinization is uniform among the legal moves
with that key.

"""

from __future__ import annotations

from numba import njit

from agents.hooks import POLICY_GREEDY, POLICY_RANDOM
from cya_sim.engine.classic.layout import (
    B_DISC,
    B_TOTAL,
    C_CH,
    C_HIDDEN,
    C_NA,
    C_P,
    C_PD,
    C_W,
    CONSTS_DTYPE,
    G_CH_ACTIVE,
    G_DISC_LEN,
    G_DONE,
    G_ROUND,
    G_TO_ACT,
    G_WINNERS,
)
from cya_sim.engine.classic.seen import recount_seen
from cya_sim.engine.hooks import implement_all
from cya_sim.engine.jit import JIT
from cya_sim.search import hooks
from cya_sim.search.classic.determinize import sample_flat
from cya_sim.search.hooks import UTIL_SHARE, UTIL_WIN
from cya_sim.search.kernels import ismcts_run, pimc_run, rollout

#: Rounds a ``win`` rollout may play past the current one before it is scored by totals (a guard).
MAX_EXTRA_ROUNDS = 40


@njit(**JIT)
def edge_key(K, G, a, observer):
    """The observer's tree edge of action ``a`` by the seat to act in ``G`` (int; module docstring).

    R-HIDDEN-WILD: an opponent's R-PAIR-HAND of asset ``a`` -> ``pair_hand(a,
    match)``; its R-PAIR-DISCARD onto a discarded asset -> ``pair_discard(top)``.
    Everything else, and every move of the observer, is its own key.
    """
    cfg = K.cfg
    if G[G_TO_ACT] == observer or cfg[C_HIDDEN] == 0 or G[G_CH_ACTIVE]:
        return a
    if a < cfg[C_PD]:
        return K.act_hi[a] * cfg[C_W]
    if a < cfg[C_CH]:
        top = G[K.lay[B_DISC] + G[G_DISC_LEN] - 1]
        if top < cfg[C_NA]:
            return cfg[C_PD] + top
    return a


@njit(**JIT)
def utility(K, G, I, utility_kind, u):
    """Each seat's utility in [0, 1] of the finished simulation ``G``, into ``u`` ((P,) float64).

    ``UTIL_SHARE``: the seat's share of the dollars scored since ``I.totals0``
    ((P,) int64, the totals before the current round; R-SCORE), i.e. its
    round score over all round scores (1/P each if nothing was scored).
    ``UTIL_WIN``: the seat's share of the win (R-GAME-END, R-TIE ``share``:
    1/k for each of k winners); a game the guard stopped counts as a win for
    the highest totals.
    """
    p = K.cfg[C_P]
    totals0 = I.totals0
    t0 = K.lay[B_TOTAL]
    if utility_kind == UTIL_SHARE:
        tot = 0.0
        for s in range(p):
            tot += G[t0 + s] - totals0[s]
        for s in range(p):
            u[s] = (G[t0 + s] - totals0[s]) / tot if tot > 0 else 1.0 / p
        return
    wb = G[G_WINNERS]
    if G[G_DONE] == 0:
        best = G[t0]
        for s in range(1, p):
            best = max(best, G[t0 + s])
        wb = 0
        for s in range(p):
            if G[t0 + s] == best:
                wb |= 1 << s
    k = 0
    for s in range(p):
        k += (wb >> s) & 1
    for s in range(p):
        u[s] = 1.0 / k if (wb >> s) & 1 else 0.0


@njit(**JIT)
def sample(K, G0, G, I, rng, samp, pcode):
    """A determinization of ``G0`` into ``G`` (:func:`~cya_sim.search.classic.determinize.sample_flat`; ``samp`` =
    (rem, cards, slot_card, wts)); for a rollout policy that reads its seat's view (any but ``greedy`` and ``random``)
    the cards each seat has seen are recounted (:func:`~cya_sim.engine.classic.seen.recount_seen`)."""
    sample_flat(K, G0, G, I, rng, samp[0], samp[1], samp[2], samp[3])
    if pcode != POLICY_GREEDY and pcode != POLICY_RANDOM:
        recount_seen(K, G)


@njit(**JIT)
def tree_round(K, G):
    """The round a simulation starting at ``G`` plays (R-NEW-ROUND)."""
    return G[G_ROUND]


@njit(**JIT)
def in_tree(K, G, round0):
    """The descent goes on while the game and round ``round0`` go on."""
    return G[G_DONE] == 0 and G[G_ROUND] == round0


@njit(**JIT)
def rollout_on(K, G, round0, utility_kind):
    """A rollout goes on to the end of round ``round0`` (``UTIL_SHARE``) or of the game (``UTIL_WIN``, at most
    :data:`MAX_EXTRA_ROUNDS` more rounds)."""
    last = round0 if utility_kind == UTIL_SHARE else round0 + MAX_EXTRA_ROUNDS
    return G[G_DONE] == 0 and G[G_ROUND] <= last


# The classic family's implementation of the search hooks (cya_sim.search.hooks), chosen by its constants record.
implement_all(hooks, CONSTS_DTYPE.names, sample=sample, tree_round=tree_round, in_tree=in_tree, edge_key=edge_key,
              rollout_on=rollout_on, utility=utility)

#: The shared kernels (:mod:`cya_sim.search.kernels`), named here with the classic hooks registered.
__all__ = ["MAX_EXTRA_ROUNDS", "UTIL_SHARE", "UTIL_WIN", "edge_key", "in_tree", "ismcts_run", "pimc_run", "rollout",
           "rollout_on", "sample", "tree_round", "utility"]
