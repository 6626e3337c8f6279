"""numba kernels of the search, for every game: rollouts, single-observer ISMCTS and PIMC.

Everything here runs on rows of a game's compiled layout with the game's rules kernel, the one its batched engine
runs, reached through the hooks of :mod:`cya_sim.engine.hooks` (rules), :mod:`agents.hooks` (the rollout policy) and
:mod:`cya_sim.search.hooks` (the game's determinizer, edge keys, simulation bounds and utilities); compiled once per
game and cached. ``G0`` holds the observation (the template row), ``GD`` a determinization, ``GW`` the game a
simulation plays; ``K`` the game's constants. Rollout seats play a compiled policy of the game (the same function
the batched engine's play loop calls), chosen by its code ``pcode``, C address ``paddr`` (a view policy,
:mod:`agents.view_abi`) and parameters ``params``; the kernels are compiled once, for every rollout policy.

**The tree** (single-observer ISMCTS, SO-ISMCTS: Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree
Search", IEEE TCIAIG 4(2):120–143, 2012, Algorithm 3; the tree arrays and one node's choice are
:mod:`cya_sim.search.tree`). Nodes are sequences of moves seen from the observer's side; each iteration samples a
determinization, descends choosing at every node the child of highest UCB1 *for the seat to act there*, with the
availability count in place of the parent's visit count,

    UCB(c) = W_c / N_c + C * sqrt(ln(avail_c) / N_c),

among the moves legal in this determinization, expands one untried legal move, plays a rollout with the rollout
policy, and adds each node's mover's utility along the path. An opponent's moves that the observer cannot tell apart
share one edge (the game's ``edge_key``); when a merged edge is chosen, the concrete move played in the
determinization is uniform among the legal moves with that key.

**PIMC** (Long, Sturtevant, Buro & Furtak, AAAI 2010): each determinization is played out after every root action.
"""

from __future__ import annotations

from collections import namedtuple

from agents.hooks import POLICY_GREEDY, act
from cya_sim.engine.hooks import apply_action, is_legal, legal_list, per_game, row_slots
from cya_sim.search.hooks import UTIL_SHARE, UTIL_WIN, edge_key, in_tree, rollout_on, sample, tree_round, utility
from cya_sim.search.tree import ROLLOUT_REFUSED, add_node, backup, choose_edge, move_of_key, next_mark

__all__ = ["ROLLOUT_REFUSED", "UTIL_SHARE", "UTIL_WIN", "SearchScratch", "ismcts_run", "pimc_run", "rollout"]

SearchScratch = namedtuple("SearchScratch", ["acts", "keys", "stamp", "kcount", "distinct", "path", "u", "sc", "samp"])
SearchScratch.__doc__ = """The kernels' work arrays (nothing is allocated per iteration).

acts, keys, stamp, kcount, distinct: (A,) int64 — legal ids, their edge keys, and the scratch of
:func:`cya_sim.search.tree.choose_edge`. path: (depth cap,) int64 — the nodes of a descent. u: (P,) float64 — the
utilities of a simulation. sc: the rollout policy's scratch (the game's). samp: the game's sampler scratch (a tuple
of its own arrays, :func:`cya_sim.search.hooks.sample`).
"""


@per_game
def rollout(K, G, rng, sc, round0, pcode, paddr, params, utility_kind):
    """Play ``G`` with the rollout policy while the game's ``rollout_on`` holds (the classic family: to the end of
    round ``round0``, or of the game under ``UTIL_WIN``; the theft game: to the end of the game). Returns the number
    of actions played.

    Every seat plays compiled policy ``pcode`` (:func:`agents.hooks.act`) with ``params`` ((N_AGENT_PARAMS,)
    float64), drawing from ``rng``; ``sc`` is its scratch. A decision of any policy but ``greedy`` is checked with the
    game's ``is_legal``: at the first id that is not legal in ``G`` (out of range, illegal, or a plug-in that raised,
    :data:`agents.view_abi.PLUGIN_RAISED`) nothing is applied, ``sc.ids[0]`` gets the id, ``sc.ids[1]`` the seat,
    and :data:`ROLLOUT_REFUSED` is returned (:func:`cya_sim.search.tree.refuse_rollout` names them).
    """
    to_act = row_slots(K)[1]
    n = 0
    while rollout_on(K, G, round0, utility_kind):
        seat = G[to_act]
        a = act(pcode, paddr, K, G, seat, params, rng, sc)
        if pcode != POLICY_GREEDY and not is_legal(K, G, a):  # a bad id would index outside the row, or never end
            sc.ids[0] = a
            sc.ids[1] = seat
            return ROLLOUT_REFUSED
        apply_action(K, G, rng, a)
        n += 1
    return n


@per_game
def ismcts_run(K, G0, GW, I, n_iter, c_ucb, pcode, paddr, params, utility_kind, rng, child, nvis, wsum, avail, mover,
               n_nodes, scratch):
    """Run ``n_iter`` SO-ISMCTS iterations for observer ``I.observer`` on the tree (module docstring).

    Args:
        K: the constants. G0: the template row (the observation); GW: a row to play in.
        I: the game's information set of the observation.
        n_iter: iterations (int >= 0). c_ucb: the UCB1 constant C (float >= 0).
        pcode, paddr, params: the rollout policy's code, C address and parameters (:func:`rollout`).
        utility_kind: ``UTIL_SHARE`` | ``UTIL_WIN``. rng: (4,) uint64 PCG64 stream, advanced in place.
        child, nvis, wsum, avail, mover: the tree arrays (:mod:`cya_sim.search.tree`); n_nodes: (1,) int64 nodes in
            use (1 for a fresh tree whose root row of ``child`` is -1).
        scratch: a :class:`SearchScratch`.

    Returns:
        actions simulated in rollouts (int), for speed reports; :data:`ROLLOUT_REFUSED` when a rollout
        decision was not legal (:func:`rollout`).
    """
    to_act = row_slots(K)[1]
    acts, keys, stamp, kcount, distinct, path, u = (scratch.acts, scratch.keys, scratch.stamp, scratch.kcount,
                                                    scratch.distinct, scratch.path, scratch.u)
    observer = I.observer
    max_depth = path.shape[0] - 1
    total_steps = 0
    mark = next_mark(stamp)  # a running stamp above every one in use
    for _ in range(n_iter):
        sample(K, G0, GW, I, rng, scratch.samp, pcode)
        round0 = tree_round(K, GW)
        node = 0
        depth = 0
        path[0] = 0
        while in_tree(K, GW, round0) and depth < max_depth:
            seat = GW[to_act]
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
        n = rollout(K, GW, rng, scratch.sc, round0, pcode, paddr, params, utility_kind)
        if n < 0:
            return n
        total_steps += n
        utility(K, GW, I, utility_kind, u)
        backup(nvis, wsum, mover, path, depth, u)
    return total_steps


@per_game
def pimc_run(K, G0, GD, GW, I, n_iter, pcode, paddr, params, utility_kind, rng, root_acts, n_root, sums, counts,
             scratch):
    """Determinized flat Monte Carlo (PIMC): ``n_iter`` rollouts spread over the root's legal actions.

    Each determinization (sampled into ``GD``) is used for every root action in turn (common random numbers): copied
    to ``GW``, the action applied, a rollout played with the rollout policy; the observer's utility is added to
    ``sums[i]`` ((n_root,) float64) and ``counts[i]`` ((n_root,) int64) is incremented. Stops after ``n_iter``
    rollouts in all.

    Args: as :func:`ismcts_run`; root_acts: (A,) int64 legal ids of the root, the first ``n_root`` used.
    Returns: actions simulated in rollouts (int), or :data:`ROLLOUT_REFUSED` (:func:`rollout`).
    """
    u = scratch.u
    total = 0
    it = 0
    while it < n_iter:
        sample(K, G0, GD, I, rng, scratch.samp, pcode)
        round0 = tree_round(K, GD)
        for i in range(n_root):
            if it >= n_iter:
                break
            for j in range(GW.shape[0]):
                GW[j] = GD[j]
            apply_action(K, GW, rng, root_acts[i])
            n = rollout(K, GW, rng, scratch.sc, round0, pcode, paddr, params, utility_kind)
            if n < 0:
                return n
            total += n + 1
            utility(K, GW, I, utility_kind, u)
            sums[i] += u[I.observer]
            counts[i] += 1
            it += 1
    return total
