"""The game-independent part of single-observer ISMCTS: the tree arrays and one node's choice (numba).

Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2):120–143,
2012, Algorithm 3. A game's search kernels (:mod:`cya_sim.search.classic.kernels` for the classic family,
:mod:`cya_sim.search.theft.kernels` for the theft game) step their own rules kernel and compute their
own edge keys; what is the same for every game lives here:

* :func:`choose_edge` — at a node, among the edge keys of the moves legal in this determinization:
  every tried key's availability count goes up by one; an untried key (uniform among them) is expanded,
  else the key of highest UCB1 for the seat to act,
  ``UCB(c) = W_c / N_c + C * sqrt(ln(avail_c) / N_c)``;
* :func:`move_of_key` — the concrete move of a chosen key (uniform among the legal moves sharing it);
* :func:`add_node` and :func:`backup`.

Tree arrays (``cap`` nodes, node 0 = root): ``child`` (cap, A) int32 (-1 = no child for that key),
``nvis`` (cap,) int64 visits, ``wsum`` (cap,) float64 summed utility of the node's mover, ``avail``
(cap,) int64 availability counts, ``mover`` (cap,) int8 the seat whose move leads to the node.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from cya_sim.engine.jit import JIT
from cya_sim.engine.pcg import next_double, seed_stream, shuffle

#: What a game's rollout and its ``ismcts_run``/``pimc_run`` return when a rollout decision was not legal: the
#: rollout policy's scratch then holds the id (``sc.ids[0]``) and the seat (``sc.ids[1]``); :func:`refuse_rollout`.
ROLLOUT_REFUSED = -1


class RolloutError(RuntimeError):
    """A search's rollout policy (a compiled plug-in, or another compiled policy) chose an action that is not
    legal in the simulated game, or raised; the message names the policy, its use as a rollout, the seat and
    the action."""


def refuse_rollout(rollout, ids: np.ndarray, n_actions: int) -> None:
    """Raise the :class:`RolloutError` of a search kernel that returned :data:`ROLLOUT_REFUSED`.

    Args:
        rollout: the rollout spec (``str``, e.g. ``"my_pkg.policies:decide"``). ids: the rollout scratch's ``ids``
            ((A,) int64: ``[action, seat, ...]``). n_actions: A, the size of the game's action space.

    Raises:
        RolloutError: always.
    """
    from agents.view_abi import PLUGIN_RAISED, describe_action

    action, seat = int(ids[0]), int(ids[1])
    what = describe_action(action) if action == PLUGIN_RAISED else (
        f"returned illegal action {action} ("
        + ("outside the action space" if not 0 <= action < n_actions else "not legal in that position")
        + f"); allowed: an integer from 0 to {n_actions - 1} that is legal there")
    raise RolloutError(f"rollout policy {rollout!r} (used as the search's rollout) at seat {seat} of a simulated "
                       f"game {what}")


@njit(**JIT)
def choose_edge(child, nvis, wsum, avail, node, keys, nl, stamp, kcount, distinct, mark, c_ucb, rng):
    """The edge key chosen at ``node`` and whether it is new: ``(key, expand)``.

    Args:
        child, nvis, wsum, avail: the tree arrays (module docstring).
        node: the node (int). keys: (A,) int64, the first ``nl`` the keys of the legal moves (repeats allowed).
        stamp, kcount, distinct: (A,) int64 scratch; ``mark``: a stamp value not used before
            (``kcount[k]`` holds, after the call, how many legal moves have key ``k``).
        c_ucb: the UCB1 constant C (float >= 0). rng: (4,) uint64 PCG64 stream (one draw when expanding).
    """
    nd = 0
    for i in range(nl):
        k = keys[i]
        if stamp[k] != mark:
            stamp[k] = mark
            kcount[k] = 0
            distinct[nd] = k
            nd += 1
        kcount[k] += 1
    n_new = 0
    best_k = -1
    best_v = -1e300
    for i in range(nd):
        k = distinct[i]
        c = child[node, k]
        if c < 0:
            distinct[n_new] = k  # untried keys gather at the front (n_new <= i)
            n_new += 1
        else:
            avail[c] += 1
            v = wsum[c] / nvis[c] + c_ucb * np.sqrt(np.log(avail[c]) / nvis[c])
            if v > best_v:
                best_v = v
                best_k = k
    if n_new > 0:
        return distinct[int(next_double(rng) * n_new)], True
    return best_k, False


@njit(**JIT)
def move_of_key(acts, keys, nl, k, count, rng):
    """A legal move with key ``k``, uniform among the ``count`` of them (one draw); -1 if none."""
    r = int(next_double(rng) * count)
    for i in range(nl):
        if keys[i] == k:
            if r == 0:
                return acts[i]
            r -= 1
    return -1


@njit(**JIT)
def add_node(child, nvis, wsum, avail, mover, n_nodes, node, k, seat):
    """A new child of ``node`` by key ``k`` for the move of ``seat``; its index, or -1 when the tree is full."""
    if n_nodes[0] >= child.shape[0]:
        return -1
    c = n_nodes[0]
    n_nodes[0] = c + 1
    child[c, :] = -1
    nvis[c] = 0
    wsum[c] = 0.0
    avail[c] = 1
    mover[c] = seat
    child[node, k] = c
    return c


@njit(**JIT)
def backup(nvis, wsum, mover, path, depth, u):
    """One more visit of the root and of ``path[1..depth]``, each adding its mover's utility ``u[mover]``."""
    nvis[0] += 1
    for d in range(1, depth + 1):
        c = path[d]
        nvis[c] += 1
        wsum[c] += u[mover[c]]


@njit(**JIT)
def next_mark(stamp):
    """A stamp value above every one in ``stamp`` ((A,) int64)."""
    mark = 0
    for i in range(stamp.shape[0]):
        mark = max(mark, stamp[i])
    return mark + 1


def rng_state(seed: int, stream: int = 0) -> np.ndarray:
    """(4,) uint64 PCG64 stream for the search, from a 64-bit ``seed`` and a ``stream`` number."""
    st = np.zeros(4, np.uint64)
    seed_stream(st, np.uint64(seed & ((1 << 64) - 1)), int(stream) & ((1 << 62) - 1), 7)
    return st


@njit(**JIT)
def shuffled_rest(rem, t, cards, rng):
    """The cards a determinization deals without constraint (RULES.md §10: the other hands, the draw pile), shuffled:
    ``rem[c]`` cards of each type ``c < t`` laid out in type order into ``cards`` ((N,) int64) and shuffled uniformly
    in place (Fisher–Yates, :func:`cya_sim.engine.pcg.shuffle`, drawing from ``rng``); their number. Shared by every
    game's determinizer."""
    k = 0
    for c in range(t):
        for _ in range(rem[c]):
            cards[k] = c
            k += 1
    shuffle(cards[:k], rng)
    return k
