"""What a game's search gives the shared search kernels (:mod:`cya_sim.search.kernels`): one stub per hook, each
game's implementation registered with :func:`cya_sim.engine.hooks.implement` and bound in place of the stub when a
kernel is compiled for the game (:class:`cya_sim.engine.hooks.per_game`, whose module says why the kernels take no
function as an argument).

``K`` the constants record, ``G`` a (W,) int64 row of the game, ``I`` the game's information set of the observer
(its own named tuple), ``round0`` what :func:`tree_round` gave at the start of the simulation:

* :func:`sample` — fill ``G`` with a determinization of the template ``G0`` (the observation), exactly uniform over
  the positions consistent with ``I`` (the game's determinizer); ``samp`` is the sampler's scratch, ``pcode`` the
  rollout policy (a policy that reads its seat's view may need more of the row rebuilt);
* :func:`tree_round` — the value that bounds a simulation (the classic search plays to the end of the round: the
  round; the theft game's to the end of the game: 0);
* :func:`in_tree` — whether the descent of the tree goes on in ``G``;
* :func:`edge_key` — the observer's tree edge of action ``a`` by the seat to act (moves the observer cannot tell
  apart share one);
* :func:`rollout_on` — whether a rollout goes on in ``G`` under ``utility_kind``;
* :func:`utility` — each seat's utility in [0, 1] of the finished simulation, into ``u`` ((P,) float64).
"""

from __future__ import annotations

from cya_sim.engine.hooks import hook

#: Utilities every game's search offers: the seat's share of the score, or its share of the win.
UTIL_SHARE, UTIL_WIN = 0, 1


@hook
def sample(K, G0, G, I, rng, samp, pcode):
    """Fill row ``G`` with a determinization of template ``G0`` for information set ``I`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def tree_round(K, G):
    """The value that bounds the simulation starting at ``G`` (int64; compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def in_tree(K, G, round0):
    """Whether the descent of the tree goes on in ``G`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def edge_key(K, G, a, observer):
    """The observer's tree edge (int64 in ``0..A-1``) of action ``a`` by the seat to act (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def rollout_on(K, G, round0, utility_kind):
    """Whether a rollout goes on in ``G`` (compiled code only)."""
    raise NotImplementedError("a hook runs in compiled code only")


@hook
def utility(K, G, I, utility_kind, u):
    """Each seat's utility in [0, 1] of the finished simulation ``G``, into ``u`` ((P,) float64; compiled code
    only)."""
    raise NotImplementedError("a hook runs in compiled code only")
