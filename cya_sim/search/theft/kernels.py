"""numba kernels of the theft game's search: edge keys, rollouts, utilities, ISMCTS and PIMC (RULES.md §9).

Everything here runs on rows of the one compiled theft layout (:mod:`cya_sim.engine.theft.layout`) with the
one theft rules kernel (:mod:`cya_sim.engine.theft.kernel`) the batched theft engine runs: ``G0`` holds the
observation (:mod:`cya_sim.search.theft.determinize`), ``GD`` a determinization, ``GW`` the game a
simulation plays; ``K`` the theft constants. Rollout seats play a compiled theft policy of ``agents/``
(:func:`agents.theft.compiled.policy_act`, the same function the batched theft engine's play loop
calls), chosen by its code ``pcode``, C address ``paddr`` (a compiled theft plug-in,
:mod:`agents.theft.view`) and parameters ``params``; the kernels are compiled once, for every rollout
policy. A rollout plays to the end of the game (R-T-END; the ``max_turns`` safeguard stops it too).

**The tree** is single-observer ISMCTS (SO-ISMCTS: Cowling, Powley & Whitehouse, IEEE TCIAIG
4(2):120–143, 2012, Algorithm 3), its game-independent part shared with the classic search
(:mod:`cya_sim.search.tree`): each iteration samples a determinization, descends choosing at every node
the child of highest UCB1 for the seat to act there (availability counts in place of the parent's
visits) among the moves legal in this determinization, expands one untried move, plays a rollout and
adds each node's mover's utility along the path. Defence decisions (R-T-TURN) and end-of-turn discards
are nodes like any other.

**One edge per observed move.** Every move of the theft game shows its cards (builds, thefts and their
targets, cancels, assets given up, discards) except a first asset's face-down card (R-T-SETUP): an
opponent's ``first_asset`` moves that lay the same face-up card share one edge (:func:`edge_key`, the
key being the id of ``first_asset`` with face-down card 0 and that face-up card). The observer's own
moves are never merged. When a merged edge is chosen, the concrete move is uniform among the legal moves
with that key.
"""

from __future__ import annotations

from numba import njit

from agents.theft.compiled import POLICY_GREEDY, greedy_act, policy_act
from cya_sim.engine.theft.kernel import apply_action, is_legal, legal_list
from cya_sim.engine.theft.layout import B_POINTS, C_A_BUILD, C_N, C_P, G_DONE, G_TO_ACT, G_WINNERS
from cya_sim.search.theft.determinize import sample_row
from cya_sim.search.tree import ROLLOUT_REFUSED, add_node, backup, choose_edge, move_of_key, next_mark

#: Utilities (both in [0, 1]): ``UTIL_SHARE`` the seat's share of all points, ``UTIL_WIN`` its share of the win.
UTIL_SHARE, UTIL_WIN = 0, 1

_JIT = {"cache": True, "_nrt": False, "error_model": "numpy"}


@njit(**_JIT)
def edge_key(K, G, a, observer):
    """The observer's tree edge of action ``a`` by the seat to act in ``G`` (int in ``0..A-1``; module docstring).

    R-T-SETUP: an opponent's ``first_asset`` (id ``down * (N + 1) + up``) -> ``up``, the face-up card alone.
    Everything else, and every move of the observer, is its own key.
    """
    if G[G_TO_ACT] == observer or a >= K.cfg[C_A_BUILD]:
        return a
    return a % (K.cfg[C_N] + 1)


@njit(**_JIT)
def rollout(K, G, rng, sc, pcode, paddr, params):
    """Play ``G`` to the end of the game with rollout policy ``pcode`` at every seat; the number of actions played.

    ``pcode``, ``paddr``, ``params``: as :func:`agents.theft.compiled.policy_act` (``random`` draws from
    ``rng``, which also shuffles a reshuffled discard pile, R-T-TURN); ``sc``: its
    :class:`agents.theft.compiled.TheftScratch`.

    A decision of any policy but ``greedy`` is checked (:func:`~cya_sim.engine.theft.kernel.is_legal`): at the
    first id that is not legal (out of range, illegal, or a plug-in that raised, :data:`agents.view_abi.PLUGIN_RAISED`)
    nothing is applied, ``sc.ids[0]`` gets the id, ``sc.ids[1]`` the seat, and :data:`ROLLOUT_REFUSED` is returned.
    """
    n = 0
    while G[G_DONE] == 0:
        seat = G[G_TO_ACT]
        if pcode == POLICY_GREEDY:  # the common rollout policy called directly
            a = greedy_act(K, G, seat, sc)
        else:
            a = policy_act(pcode, paddr, K, G, seat, params, rng, sc)
            if not is_legal(K, G, a):  # a bad id would index outside the row, or never end the game
                sc.ids[0] = a
                sc.ids[1] = seat
                return ROLLOUT_REFUSED
        apply_action(K, G, rng, a)
        n += 1
    return n


@njit(**_JIT)
def utility(K, G, utility_kind, u):
    """Each seat's utility in [0, 1] of the finished game ``G``, into ``u`` ((P,) float64).

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


@njit(**_JIT)
def ismcts_run(K, G0, GW, I, n_iter, c_ucb, pcode, paddr, params, utility_kind, rng, child, nvis, wsum, avail, mover,
               n_nodes, scratch):
    """Run ``n_iter`` SO-ISMCTS iterations for observer ``I.observer`` on the tree (module docstring).

    Args:
        K: the theft constants. G0: the template row (the observation); GW: a row to play in.
        I: the :class:`~cya_sim.search.theft.determinize.TheftInfoSet` of the observation.
        n_iter: iterations (int >= 0). c_ucb: the UCB1 constant C (float >= 0).
        pcode, paddr, params: the rollout policy (:func:`rollout`). utility_kind: ``UTIL_SHARE`` | ``UTIL_WIN``.
        rng: (4,) uint64 PCG64 stream, advanced in place.
        child, nvis, wsum, avail, mover: the tree arrays (:mod:`cya_sim.search.tree`); n_nodes: (1,) int64 nodes
            in use (1 for a fresh tree whose root row of ``child`` is -1).
        scratch: tuple (rem (T,) int64, cards (NC,) int64, acts (A,) int64, keys (A,) int64, stamp (A,) int64,
            kcount (A,) int64, distinct (A,) int64, path (depth cap,) int64, u (P,) float64, sc: the rollout
            policy's :class:`agents.theft.compiled.TheftScratch`).

    Returns:
        actions simulated in rollouts (int), for speed reports; :data:`ROLLOUT_REFUSED` when a rollout
        decision was not legal (:func:`rollout`).
    """
    rem, cards, acts, keys, stamp, kcount, distinct, path, u, sc = scratch
    observer = I.observer
    max_depth = path.shape[0] - 1
    total_steps = 0
    mark = next_mark(stamp)
    for _ in range(n_iter):
        sample_row(K, G0, GW, I, rng, rem, cards)
        node = 0
        depth = 0
        path[0] = 0
        while GW[G_DONE] == 0 and depth < max_depth:
            seat = GW[G_TO_ACT]
            nl = legal_list(K, GW, acts)
            for i in range(nl):
                keys[i] = edge_key(K, GW, acts[i], observer)
            mark += 1
            k, expand = choose_edge(child, nvis, wsum, avail, node, keys, nl, stamp, kcount, distinct, mark, c_ucb,
                                    rng)
            apply_action(K, GW, rng, move_of_key(acts, keys, nl, k, kcount[k], rng))
            if expand:
                c = add_node(child, nvis, wsum, avail, mover, n_nodes, node, k, seat)
                if c >= 0:
                    depth += 1
                    path[depth] = c
                break
            node = child[node, k]
            depth += 1
            path[depth] = node
        n = rollout(K, GW, rng, sc, pcode, paddr, params)
        if n < 0:
            return n
        total_steps += n
        utility(K, GW, utility_kind, u)
        backup(nvis, wsum, mover, path, depth, u)
    return total_steps


@njit(**_JIT)
def pimc_run(K, G0, GD, GW, I, n_iter, pcode, paddr, params, utility_kind, rng, root_acts, n_root, sums, counts,
             scratch):
    """Determinized flat Monte Carlo (PIMC): ``n_iter`` rollouts spread over the root's legal actions.

    Each determinization (sampled into ``GD``) is used for every root action in turn (common random
    numbers): copied to ``GW``, the action applied, a rollout played to the end of the game; the observer's
    utility is added to ``sums[i]`` ((n_root,) float64) and ``counts[i]`` ((n_root,) int64) is incremented.
    Stops after ``n_iter`` rollouts in all.

    Args: as :func:`ismcts_run`; root_acts: (A,) int64 legal ids of the root, the first ``n_root`` used.
    Returns: actions simulated in rollouts (int), or :data:`ROLLOUT_REFUSED` (:func:`rollout`).
    """
    rem, cards = scratch[0], scratch[1]
    u = scratch[8]
    sc = scratch[9]
    total = 0
    it = 0
    while it < n_iter:
        sample_row(K, G0, GD, I, rng, rem, cards)
        for i in range(n_root):
            if it >= n_iter:
                break
            for j in range(GW.shape[0]):
                GW[j] = GD[j]
            apply_action(K, GW, rng, root_acts[i])
            n = rollout(K, GW, rng, sc, pcode, paddr, params)
            if n < 0:
                return n
            total += n + 1
            utility(K, GW, utility_kind, u)
            sums[i] += u[I.observer]
            counts[i] += 1
            it += 1
    return total
