"""numba kernels of the search: edge keys, rollouts, utilities, ISMCTS and PIMC.

Everything here runs on game rows of the one compiled representation
(:mod:`cya_sim.engine.classic.layout`) with the one rules kernel
(:mod:`cya_sim.engine.classic.kernel`) the batched engine runs: ``G0`` holds
the observation (:mod:`cya_sim.search.classic.determinize`), ``GD`` a
determinization, ``GW`` the game a simulation plays; ``K`` the rule constants.
Rollout seats play a compiled policy of ``agents/`` (:mod:`agents.classic.compiled`,
the same function the batched engine calls), chosen by its code ``pcode``, C address
``paddr`` (a view policy, :mod:`agents.view_abi`: ``card_counter``, ``heuristic``, a
compiled plug-in) and parameters ``params``; the kernels are compiled once, for every
rollout policy.

**The tree** (single-observer ISMCTS, SO-ISMCTS: Cowling, Powley & Whitehouse,
"Information Set Monte Carlo Tree Search", IEEE TCIAIG 4(2):120–143, 2012,
Algorithm 3; its game-independent part, shared with the theft game's search, is
:mod:`cya_sim.search.tree`). Nodes are sequences of moves seen from the observer's side;
each iteration samples a determinization, descends choosing at every node the
child of highest UCB1 *for the seat to act there*, with the availability count
in place of the parent's visit count,

    UCB(c) = W_c / N_c + C * sqrt(ln(avail_c) / N_c),

among the moves legal in this determinization, expands one untried legal
move, plays a rollout to the end of the round (or the game) with the rollout
policy, and adds each node's mover's utility along the path. Decisions inside
a challenge (R-CH-EXCHANGE) are nodes like any other.

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

Tree arrays (``cap`` nodes, node 0 = root): ``child`` (cap, A) int32 (-1 = no
child for that key), ``nvis`` (cap,) int64 visits, ``wsum`` (cap,) float64
summed utility of the node's mover, ``avail`` (cap,) int64 availability
counts, ``mover`` (cap,) int8 seat whose move leads to the node. When the tree
is full, iterations go on without expanding.
"""

from __future__ import annotations

from numba import njit

from agents.classic.compiled import POLICY_GREEDY, POLICY_RANDOM, greedy_act, policy_act
from cya_sim.engine.classic.kernel import apply_action, is_legal_inline, legal_list
from cya_sim.engine.classic.layout import (
    B_DISC,
    B_TOTAL,
    C_CH,
    C_HIDDEN,
    C_NA,
    C_P,
    C_PD,
    C_W,
    G_CH_ACTIVE,
    G_DISC_LEN,
    G_DONE,
    G_ROUND,
    G_TO_ACT,
    G_WINNERS,
)
from cya_sim.engine.classic.seen import recount_seen
from cya_sim.search.classic.determinize import sample_flat
from cya_sim.search.tree import ROLLOUT_REFUSED, add_node, backup, choose_edge, move_of_key, next_mark

UTIL_SHARE, UTIL_WIN = 0, 1
#: Rounds a ``win`` rollout may play past the current one before it is scored by totals (a guard).
MAX_EXTRA_ROUNDS = 40


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def rollout(K, G, rng, sc, round0, pcode, paddr, params, utility_kind):
    """Play ``G`` with the rollout policy to the end of round ``round0`` (``UTIL_SHARE``) or of the game
    (``UTIL_WIN``, at most :data:`MAX_EXTRA_ROUNDS` more rounds). Returns the number of actions played.

    Every seat plays compiled policy ``pcode`` (``agents.classic.compiled.POLICY_*``: ``greedy``,
    ``random`` drawing from ``rng``, ``card_counter`` from each seat's own view, ...; a view policy at
    C address ``paddr``) with ``params`` ((N_AGENT_PARAMS,) float64); ``sc`` is its
    :class:`agents.classic.compiled.Scratch`.

    A decision of any policy but ``greedy`` is checked (:func:`~cya_sim.engine.classic.kernel.is_legal_inline`):
    at the first id that is not legal in ``G`` (out of range, illegal, or a plug-in that raised,
    :data:`agents.view_abi.PLUGIN_RAISED`) nothing is applied, ``sc.ids[0]`` gets the id, ``sc.ids[1]`` the seat,
    and :data:`ROLLOUT_REFUSED` is returned (:func:`cya_sim.search.errors.refuse_rollout` names them).
    """
    n = 0
    last = round0 if utility_kind == UTIL_SHARE else round0 + MAX_EXTRA_ROUNDS
    while G[G_DONE] == 0 and G[G_ROUND] <= last:
        if pcode == POLICY_GREEDY:  # the common rollout policy inlined here (no call with the constants' arrays)
            a = greedy_act(K, G, G[G_TO_ACT], params, rng, sc)
        else:
            a = policy_act(pcode, paddr, K, G, G[G_TO_ACT], params, rng, sc)
            if not is_legal_inline(K, G, a):  # a bad id would index outside the row, or never end the round
                sc.ids[0] = a
                sc.ids[1] = G[G_TO_ACT]
                return ROLLOUT_REFUSED
        apply_action(K, G, rng, a)
        n += 1
    return n


@njit(cache=True, _nrt=False)
def utility(K, G, totals0, utility_kind, u):
    """Each seat's utility in [0, 1] of the finished simulation ``G``, into ``u`` ((P,) float64).

    ``UTIL_SHARE``: the seat's share of the dollars scored since ``totals0``
    ((P,) int64, the totals before the current round; R-SCORE), i.e. its
    round score over all round scores (1/P each if nothing was scored).
    ``UTIL_WIN``: the seat's share of the win (R-GAME-END, R-TIE ``share``:
    1/k for each of k winners); a game the guard stopped counts as a win for
    the highest totals.
    """
    p = K.cfg[C_P]
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


@njit(cache=True, _nrt=False)
def ismcts_run(K, G0, GW, I, n_iter, c_ucb, pcode, paddr, params, utility_kind, rng, child, nvis, wsum, avail, mover,
               n_nodes, scratch):
    """Run ``n_iter`` SO-ISMCTS iterations for observer ``I.observer`` on the tree (module docstring).

    Args:
        K: the rule constants. G0: the template row (the observation); GW: a row to play in.
        I: the :class:`~cya_sim.search.classic.determinize.InfoSet` of the observation.
        n_iter: iterations (int >= 0). c_ucb: the UCB1 constant C (float >= 0).
        pcode, paddr, params: the rollout policy's code, C address and parameters (:func:`rollout`). utility_kind: UTIL_SHARE | UTIL_WIN.
        rng: (4,) uint64 PCG64 stream, advanced in place.
        child, nvis, wsum, avail, mover: the tree arrays; n_nodes: (1,) int64 nodes in use
            (1 for a fresh tree whose root row of ``child`` is -1).
        scratch: tuple (rem (T,) int64, cards (N,) int64, slot_card (H,) int64, wts (H+2,) float64,
            acts (A,) int64, keys (A,) int64, stamp (A,) int64, kcount (A,) int64, distinct (A,) int64,
            path (depth cap,) int64, u (P,) float64, sc: the rollout policy's
            :class:`agents.classic.compiled.Scratch`).

    Returns:
        actions simulated in rollouts (int), for speed reports; :data:`ROLLOUT_REFUSED` when a rollout
        decision was not legal (:func:`rollout`).
    """
    rem, cards, slot_card, wts, acts, keys, stamp, kcount, distinct, path, u, sc = scratch
    reads_view = pcode != POLICY_GREEDY and pcode != POLICY_RANDOM  # what each seat has seen (the agent view)
    observer = I.observer
    max_depth = path.shape[0] - 1
    total_steps = 0
    mark = next_mark(stamp)  # a running stamp above every one in use
    for _ in range(n_iter):
        sample_flat(K, G0, GW, I, rng, rem, cards, slot_card, wts)
        if reads_view:
            recount_seen(K, GW)
        round0 = GW[G_ROUND]
        node = 0
        depth = 0
        path[0] = 0
        while GW[G_DONE] == 0 and GW[G_ROUND] == round0 and depth < max_depth:
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
        n = rollout(K, GW, rng, sc, round0, pcode, paddr, params, utility_kind)
        if n < 0:
            return n
        total_steps += n
        utility(K, GW, I.totals0, utility_kind, u)
        backup(nvis, wsum, mover, path, depth, u)
    return total_steps


@njit(cache=True, _nrt=False)
def pimc_run(K, G0, GD, GW, I, n_iter, pcode, paddr, params, utility_kind, rng, root_acts, n_root, sums, counts,
             scratch):
    """Determinized flat Monte Carlo (PIMC): ``n_iter`` rollouts spread over the root's legal actions.

    Each determinization (sampled into ``GD``) is used for every root action
    in turn (common random numbers): copied to ``GW``, the action applied, a
    rollout played with the rollout policy; the observer's utility is added
    to ``sums[i]`` ((n_root,) float64) and ``counts[i]`` ((n_root,) int64) is
    incremented. Stops after ``n_iter`` rollouts in all.

    Args: as :func:`ismcts_run`; root_acts: (A,) int64 legal ids of the root, the first ``n_root`` used.
    Returns: actions simulated in rollouts (int), or :data:`ROLLOUT_REFUSED` (:func:`rollout`).
    """
    rem, cards, slot_card, wts = scratch[0], scratch[1], scratch[2], scratch[3]
    u = scratch[10]
    sc = scratch[11]
    reads_view = pcode != POLICY_GREEDY and pcode != POLICY_RANDOM  # what each seat has seen (the agent view)
    total = 0
    it = 0
    while it < n_iter:
        sample_flat(K, G0, GD, I, rng, rem, cards, slot_card, wts)
        if reads_view:
            recount_seen(K, GD)
        round0 = GD[G_ROUND]
        for i in range(n_root):
            if it >= n_iter:
                break
            for j in range(GW.shape[0]):
                GW[j] = GD[j]
            apply_action(K, GW, rng, root_acts[i])
            n = rollout(K, GW, rng, sc, round0, pcode, paddr, params, utility_kind)
            if n < 0:
                return n
            total += n + 1
            utility(K, GW, I.totals0, utility_kind, u)
            sums[i] += u[I.observer]
            counts[i] += 1
            it += 1
    return total
