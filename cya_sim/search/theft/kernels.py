"""The theft game's part of the search kernels: edge keys, determinizations, simulation bounds, utilities
(RULES.md §9).

The shared kernels (:mod:`cya_sim.search.kernels`: rollouts, ISMCTS, PIMC) run on rows of the theft layout
(:mod:`cya_sim.engine.theft.layout`) with the theft rules kernel the batched theft engine runs; this module gives them
the theft game's hooks (:mod:`cya_sim.search.hooks`): a determinization (:mod:`cya_sim.search.theft.determinize`), the
bounds of a simulation (a rollout plays to the end of the game, R-T-END; the ``max_turns`` safeguard stops it too),
the observer's edge keys and the utilities. Defence decisions (R-T-TURN) and end-of-turn discards are tree nodes like
any other.

**One edge per observed move.** Every move of the theft game shows its cards (builds, thefts and their
targets, cancels, assets given up, discards) except a first asset's face-down card (R-T-SETUP): an
opponent's ``first_asset`` moves that lay the same face-up card share one edge (:func:`edge_key`, the
key being the id of ``first_asset`` with face-down card 0 and that face-up card). The observer's own
moves are never merged. When a merged edge is chosen, the concrete move is uniform among the legal moves
with that key.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.hooks import implement_all
from cya_sim.engine.jit import JIT
from cya_sim.engine.theft.layout import B_POINTS, C_A_BUILD, C_N, C_P, CONSTS_DTYPE, G_DONE, G_TO_ACT, G_WINNERS
from cya_sim.search import hooks
from cya_sim.search.hooks import UTIL_SHARE, UTIL_WIN
from cya_sim.search.kernels import ismcts_run, pimc_run, rollout
from cya_sim.search.theft.determinize import sample_row


@njit(**JIT)
def edge_key(K, G, a, observer):
    """The observer's tree edge of action ``a`` by the seat to act in ``G`` (int in ``0..A-1``; module docstring).

    R-T-SETUP: an opponent's ``first_asset`` (id ``down * (N + 1) + up``) -> ``up``, the face-up card alone.
    Everything else, and every move of the observer, is its own key.
    """
    if G[G_TO_ACT] == observer or a >= K.cfg[C_A_BUILD]:
        return a
    return a % (K.cfg[C_N] + 1)


@njit(**JIT)
def utility(K, G, I, utility_kind, u):
    """Each seat's utility in [0, 1] of the finished game ``G``, into ``u`` ((P,) float64); ``I`` is not read.

    ``UTIL_WIN``: the seat's share of the win (R-T-END: 1/k for each of k winners, 0 for the others).
    ``UTIL_SHARE``: the seat's points over all seats' points (R-T-END; 1/P each when nobody has any).
    """
    p = K.cfg[C_P]
    if utility_kind == UTIL_SHARE:
        p0 = K.lay[B_POINTS]
        tot = 0.0
        for s in range(p):
            tot += G[p0 + s]
        for s in range(p):
            u[s] = G[p0 + s] / tot if tot > 0 else 1.0 / p
        return
    wb = G[G_WINNERS]
    k = 0
    for s in range(p):
        k += (wb >> s) & 1
    for s in range(p):
        u[s] = 1.0 / k if (wb >> s) & 1 else 0.0


@njit(**JIT)
def sample(K, G0, G, I, rng, samp, pcode):
    """A determinization of ``G0`` into ``G`` (:func:`~cya_sim.search.theft.determinize.sample_row`; ``samp`` =
    (rem, cards)); every theft policy reads the row itself, so nothing else is rebuilt."""
    sample_row(K, G0, G, I, rng, samp[0], samp[1])


@njit(**JIT)
def tree_round(K, G):
    """0: a theft simulation is bounded by the end of the game only."""
    return 0


@njit(**JIT)
def in_tree(K, G, round0):
    """The descent goes on while the game goes on."""
    return G[G_DONE] == 0


@njit(**JIT)
def rollout_on(K, G, round0, utility_kind):
    """A rollout goes on to the end of the game (R-T-END, or the ``max_turns`` safeguard), whatever the utility."""
    return G[G_DONE] == 0


# The theft game's implementation of the search hooks (cya_sim.search.hooks), chosen by its constants record.
implement_all(hooks, CONSTS_DTYPE.names, sample=sample, tree_round=tree_round, in_tree=in_tree, edge_key=edge_key,
              rollout_on=rollout_on, utility=utility)

#: The shared kernels (:mod:`cya_sim.search.kernels`), named here with the theft hooks registered.
__all__ = ["UTIL_SHARE", "UTIL_WIN", "edge_key", "in_tree", "ismcts_run", "pimc_run", "rollout", "rollout_on", "sample",
           "tree_round", "utility"]
