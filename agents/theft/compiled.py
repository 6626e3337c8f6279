"""Compiled (numba) forms of the theft game's agents ``random``, ``greedy`` and ``defender`` (RULES.md §9).

Each decides for the seat to act in one game row of the theft layout (:mod:`cya_sim.engine.theft.layout`),
exactly as its single-game class of :mod:`agents.theft.registry` decides on that seat's
:class:`~cya_sim.engine.theft.observation.TheftObservation`: the same action for every position, the same
floats (an asset's points with a hidden card counted at :func:`hidden_card_value`, computed from
integer sums as the reference's sums of small integers are exact), the same tie-breaks (the lowest
action id). They read only what their seat may see (RULES.md §10): its own hand, every asset card
the seat knows (a first asset's face-down card only when it is the seat's own or the seat stole it),
the discard pile, the pending theft; never another hand or the draw pile.

:func:`policy_act` is the one dispatch the theft play loop (:mod:`cya_sim.play.loop`) calls::

    policy_act(code, addr, K, G, seat, params, rng, sc) -> int

code: ``POLICY_*`` (:data:`THEFT_POLICIES` by name); addr: a view policy's C address
(:mod:`agents.theft.view`, 0 otherwise); K, G: the rule constants and the row; seat: the seat to
act; params: (N_AGENT_PARAMS,) float64; rng: (4,) uint64 the seat's PCG64 stream (stream 1 + seat);
sc: a :class:`TheftScratch`. ``random`` draws one double per decision and takes legal id number
``floor(u * n_legal)`` in ascending order; ``greedy`` and ``defender`` never draw.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from agents.hooks import POLICY_GREEDY, POLICY_RANDOM, act
from agents.spec import parse_agent_spec
from agents.theft.registry import THEFT_REGISTRY, make_theft_agent
from agents.theft.view import (
    N_THEFT_HDR,
    N_VIEW_COLS,
    TheftViewPolicyAgent,
    build_view_row,
    call_theft_view_policy,
    theft_plugin_address,
)
from agents.view_abi import N_AGENT_PARAMS
from cya_sim.engine import hooks
from cya_sim.engine.jit import JIT
from cya_sim.engine.pcg import next_double
from cya_sim.engine.seats import seat_add
from cya_sim.engine.theft.kernel import asset_at, legal_list, pair_cards
from cya_sim.engine.theft.layout import (
    A_C0,
    A_KNOWN0,
    A_VALUE,
    B_DCOUNT,
    B_HANDS,
    B_NASSETS,
    C_A,
    C_A_BUILD,
    C_A_CANCEL,
    C_A_DISC,
    C_A_END,
    C_A_GIVE,
    C_A_GOLD,
    C_A_PASS,
    C_A_THEFT,
    C_GOLD,
    C_GOLD_VALUE,
    C_GTHEFT,
    C_N,
    C_P,
    C_PER_CARD,
    C_S,
    C_SINGLE_GOLD,
    C_T,
    C_THEFT,
    CONSTS_DTYPE,
    G_PHASE,
    G_TH_SLOT,
    PH_DEFENCE,
    PH_DISCARD,
    PH_SETUP,
)

#: Policy codes of :func:`policy_act`: the three built-in theft agents, decided in the loop (``random`` and ``greedy``
#: with the codes every game gives them, :mod:`agents.hooks`), and a view policy
#: (a compiled plug-in over the theft agent view, called by its C address; :mod:`agents.theft.view`).
POLICY_DEFENDER, POLICY_VIEW = 2, 3
#: The built-in theft agents with a compiled form, by name.
THEFT_POLICIES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY, "defender": POLICY_DEFENDER}

TheftScratch = namedtuple("TheftScratch", ["ids", "hdr", "hand", "unseen", "assets", "mask"])
TheftScratch.__doc__ = """Work arrays of the compiled theft policies (nothing is allocated per decision).

ids: (A,) int64 legal ids. hdr: (N_THEFT_HDR,) int64; hand, unseen: (T,) int64; assets: (P, S, N_VIEW_COLS)
int64; mask: (A,) bool — the theft agent view a view policy gets (:mod:`agents.theft.view`).
"""



def new_theft_scratch(k) -> TheftScratch:
    """A :class:`TheftScratch` sized for the theft constants ``k`` (:func:`cya_sim.engine.theft.layout.make_consts`)."""
    cfg = k.cfg
    a, t, p, s = int(cfg[C_A]), int(cfg[C_T]), int(cfg[C_P]), int(cfg[C_S])
    return TheftScratch(np.zeros(a, np.int64), np.zeros(N_THEFT_HDR, np.int64), np.zeros(t, np.int64),
                        np.zeros(t, np.int64), np.zeros((p, s, N_VIEW_COLS), np.int64), np.zeros(a, np.bool_))


# -- what a seat sees --------------------------------------------------------------------------------------
@njit(**JIT)
def hidden_card_value(K, G, seat):
    """Expected points (float64) of an asset card ``seat`` cannot see: the mean value of the asset cards (numbers
    and gold) it has not seen, ``(numbers + 1) / 2`` when there is none (:func:`agents.theft.registry.hidden_card_value`).

    Unseen = the deck minus the seat's hand, the discard pile and every asset card the seat knows (in the
    setup phase only its own assets are in view; RULES.md §10).
    """
    cfg = K.cfg
    L = K.lay
    h0 = L[B_HANDS] + seat * cfg[C_T]
    num = 0
    den = 0
    for c in range(cfg[C_N] + 1):
        u = K.counts[c] - G[h0 + c] - G[L[B_DCOUNT] + c]
        num += u * K.values[c]
        den += u
    setup = G[G_PHASE] == PH_SETUP
    for owner in range(cfg[C_P]):
        if setup and owner != seat:
            continue
        for slot in range(G[L[B_NASSETS] + owner]):
            o = asset_at(K, owner, slot)
            num -= G[o + A_VALUE]
            den -= 2
            if (G[o + A_KNOWN0] >> seat) & 1 == 0:  # the face-down card is not seen: back into the unseen
                num += K.values[G[o + A_C0]]
                den += 1
    if den <= 0:
        return (cfg[C_N] + 1) / 2
    return num / den


@njit(**JIT)
def asset_points(K, G, seat, owner, slot, hv):
    """Points (float64) of ``owner``'s asset ``slot`` as ``seat`` estimates them: a hidden card at ``hv``
    (:func:`agents.theft.registry.asset_points`)."""
    o = asset_at(K, owner, slot)
    v = G[o + A_VALUE]
    if (G[o + A_KNOWN0] >> seat) & 1 == 0:
        return float(v - K.values[G[o + A_C0]]) + hv
    return float(v)


# -- the shared decision rules -----------------------------------------------------------------------------
@njit(**JIT)
def _pair_points(K, i):
    a, b = pair_cards(K, i)
    return K.values[a] + K.values[b]


@njit(**JIT)
def _uses_gold(K, i):
    a, b = pair_cards(K, i)
    g = K.cfg[C_GOLD]
    return a == g or b == g


@njit(**JIT)
def first_asset_choice(K, G, seat):
    """R-T-SETUP (:func:`agents.theft.registry.first_asset_choice`): the two highest numbers outside pairs, the higher one
    face-down; then paired numbers (highest first), then gold cards."""
    cfg = K.cfg
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    n = cfg[C_N]
    gold = cfg[C_GOLD]
    first = -1
    second = -1
    for stage in range(3):  # singles, then paired numbers, by points down; then gold
        for c in range(n - 1, -1, -1) if stage < 2 else range(gold, gold + 1):
            k = G[h0 + c]
            if stage == 0 and (k != 1 or c >= gold):
                continue
            if stage == 1 and k < 2:
                continue
            for _ in range(k):
                if first < 0:
                    first = c
                elif second < 0:
                    second = c
        if second >= 0:
            break
    down, up = first, second
    if K.values[up] > K.values[down]:
        down, up = up, down
    return down * (n + 1) + up


@njit(**JIT)
def least_useful_card(K, G, seat):
    """End-of-turn discard (:func:`agents.theft.registry.least_useful_card`): the lowest single number, then the lowest paired
    number, then gold, a plain theft, the gold theft."""
    cfg = K.cfg
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    d0 = cfg[C_A_DISC]
    for c in range(cfg[C_N]):
        if G[h0 + c] == 1:
            return d0 + c
    for c in range(cfg[C_N]):
        if G[h0 + c] >= 2:
            return d0 + c
    for c in (cfg[C_GOLD], cfg[C_THEFT], cfg[C_GTHEFT]):
        if G[h0 + c] > 0:
            return d0 + c
    return -1


@njit(**JIT)
def best_build(K, ids, n, skip):
    """The build among the legal ``ids[:n]`` (ascending) worth the most points, on equal points one without a gold
    card, then the lowest id (:func:`agents.theft.registry.best_build`); the id ``skip`` is left out. -1 if none."""
    b0 = K.cfg[C_A_BUILD]
    b1 = K.cfg[C_A_THEFT]
    best = -1
    best_v = -1
    best_ng = False
    for j in range(n):
        a = ids[j]
        if a < b0 or a >= b1 or a == skip:
            continue
        v = _pair_points(K, a - b0)
        ng = not _uses_gold(K, a - b0)
        if best < 0 or v > best_v or (v == best_v and ng and not best_ng):
            best = a
            best_v = v
            best_ng = ng
    return best


@njit(**JIT)
def richest_theft(K, G, seat, ids, n):
    """The legal theft on the asset worth the most points (as ``seat`` estimates them), a plain theft before the
    gold one, then the lowest id (:func:`agents.theft.registry.richest_theft`). -1 if none."""
    cfg = K.cfg
    t0 = cfg[C_A_THEFT]
    t1 = cfg[C_A_END]
    per = cfg[C_PER_CARD]
    s = cfg[C_S]
    p = cfg[C_P]
    best = -1
    best_v = 0.0
    best_plain = False
    hv = -1.0
    for j in range(n):
        a = ids[j]
        if a < t0 or a >= t1:
            continue
        if hv < 0:
            hv = hidden_card_value(K, G, seat)
        i = a - t0
        plain = i < per
        if not plain:
            i -= per
        off = i // s + 1
        v = asset_points(K, G, seat, seat_add(seat, off, p), i % s, hv)
        if best < 0 or v > best_v or (v == best_v and plain and not best_plain):
            best = a
            best_v = v
            best_plain = plain
    return best


@njit(**JIT)
def cheapest_cancel(K, G, seat, ids, n, pairs, assets):
    """``(action, cost)``: the cheapest legal cancel (:func:`agents.theft.registry.cheapest_cancel`) among the legal ``ids[:n]``.

    Candidates: the pairs from hand (when ``pairs``; cost their points), one gold card (``single_gold``; cost
    ``gold_value``) and the own assets given up (when ``assets``; cost their points). Equal costs: a gold card
    alone, then a pair, then the targeted asset, then another asset; then the lowest id. ``(-1, inf)`` if none.
    """
    cfg = K.cfg
    best = -1
    best_c = np.inf
    best_tb = 0
    hv = -1.0
    for j in range(n):
        a = ids[j]
        if a >= cfg[C_A_CANCEL] and a < cfg[C_A_GIVE]:
            if not pairs:
                continue
            cost = float(_pair_points(K, a - cfg[C_A_CANCEL]))
            tb = 0
        elif a == cfg[C_A_GOLD] and cfg[C_SINGLE_GOLD]:
            cost = float(cfg[C_GOLD_VALUE])
            tb = -1
        elif a >= cfg[C_A_GIVE] and a < cfg[C_A_PASS]:
            if not assets:
                continue
            if hv < 0:
                hv = hidden_card_value(K, G, seat)
            slot = a - cfg[C_A_GIVE]
            cost = asset_points(K, G, seat, seat, slot, hv)
            tb = 1 if slot == G[G_TH_SLOT] else 2
        else:
            continue
        if best < 0 or cost < best_c or (cost == best_c and tb < best_tb):
            best = a
            best_c = cost
            best_tb = tb
    return best, best_c


@njit(**JIT)
def _has(ids, n, a):
    for j in range(n):
        if ids[j] == a:
            return True
    return False


# -- the agents --------------------------------------------------------------------------------------------
@njit(**JIT)
def random_act(K, G, seat, rng, sc):
    """``random`` (:class:`agents.theft.registry.TheftRandomAgent`): legal ids ascending, index ``floor(u * n_legal)`` with
    ``u`` the next double of ``rng``. -1 if nothing is legal (the engine never asks then)."""
    n = legal_list(K, G, sc.ids)
    if n == 0:
        return -1
    return sc.ids[int(next_double(rng) * n)]


@njit(**JIT)
def greedy_act(K, G, seat, sc):
    """``greedy`` (:class:`agents.theft.registry.TheftGreedyAgent`): build the best pair, steal the most valuable asset,
    cancel when it costs less than losing the asset (twice its points), discard the least useful card."""
    ph = G[G_PHASE]
    if ph == PH_SETUP:
        return first_asset_choice(K, G, seat)
    if ph == PH_DISCARD:
        return least_useful_card(K, G, seat)
    ids = sc.ids
    n = legal_list(K, G, ids)
    cfg = K.cfg
    if ph == PH_DEFENCE:
        a, cost = cheapest_cancel(K, G, seat, ids, n, True, True)
        pass_ok = _has(ids, n, cfg[C_A_PASS])
        if a >= 0:
            target = asset_points(K, G, seat, seat, G[G_TH_SLOT], hidden_card_value(K, G, seat))
            if cost < 2 * target or not pass_ok:
                return a  # cheaper than losing the asset, or compulsory (compulsory_defence)
        return cfg[C_A_PASS]
    a = best_build(K, ids, n, -1)
    if a >= 0:
        return a
    a = richest_theft(K, G, seat, ids, n)
    if a >= 0:
        return a
    return cfg[C_A_END]


@njit(**JIT)
def _pairs_in_hand(K, G, seat):
    """Disjoint pairs the hand holds: pairs of equal numbers, then numbers left with gold cards."""
    cfg = K.cfg
    h0 = K.lay[B_HANDS] + seat * cfg[C_T]
    pairs = 0
    singles = 0
    for c in range(cfg[C_N]):
        pairs += G[h0 + c] // 2
        singles += G[h0 + c] % 2
    return pairs + min(singles, G[h0 + cfg[C_GOLD]])


@njit(**JIT)
def defender_act(K, G, seat, sc):
    """``defender`` (:class:`agents.theft.registry.TheftDefenderAgent`): keeps a cancelling pair in hand, cancels every theft
    with the cheapest pair (or gold card), gives up an asset only when it must; thefts as ``greedy``."""
    ph = G[G_PHASE]
    if ph == PH_SETUP:
        return first_asset_choice(K, G, seat)
    if ph == PH_DISCARD:
        return least_useful_card(K, G, seat)
    ids = sc.ids
    n = legal_list(K, G, ids)
    cfg = K.cfg
    if ph == PH_DEFENCE:
        a, _ = cheapest_cancel(K, G, seat, ids, n, True, False)
        if a >= 0:
            return a
        if _has(ids, n, cfg[C_A_PASS]):
            return cfg[C_A_PASS]
        a, _ = cheapest_cancel(K, G, seat, ids, n, False, True)  # compulsory_defence
        return a
    b0 = cfg[C_A_BUILD]
    b1 = cfg[C_A_THEFT]
    n_builds = 0
    keep = -1  # the lowest-id build with a gold card: kept (it also cancels the gold theft)
    for j in range(n):
        a = ids[j]
        if a >= b0 and a < b1:
            n_builds += 1
            if keep < 0 and _uses_gold(K, a - b0):
                keep = a
    if n_builds >= 2 and _pairs_in_hand(K, G, seat) >= 2:
        return best_build(K, ids, n, keep)
    a = richest_theft(K, G, seat, ids, n)
    if a >= 0:
        return a
    return cfg[C_A_END]


@njit(**JIT)
def policy_act(code, addr, K, G, seat, params, rng, sc):
    """The action (int) of compiled theft policy ``code`` for ``seat`` in row ``G`` (module docstring); -1 for an
    unknown code. A view policy (``POLICY_VIEW``) gets the seat's theft agent view
    (:func:`agents.theft.view.build_view_row`) and is called at its C address ``addr``."""
    if code == POLICY_GREEDY:
        return greedy_act(K, G, seat, sc)
    if code == POLICY_DEFENDER:
        return defender_act(K, G, seat, sc)
    if code == POLICY_RANDOM:
        return random_act(K, G, seat, rng, sc)
    if code == POLICY_VIEW:
        n_legal = build_view_row(K, G, seat, sc.hdr, sc.hand, sc.unseen, sc.assets, sc.mask, sc.ids)
        return call_theft_view_policy(addr, params, sc.hdr, sc.hand, K.values[:K.cfg[C_T]], sc.unseen, sc.assets,
                                      sc.mask, rng, sc.ids[:n_legal])
    return -1


# The theft game's policy dispatch for the shared loops (agents.hooks.act), chosen by its constants record.
hooks.implement(act, CONSTS_DTYPE.names, policy_act)


@njit(**JIT)
def act_once(code, addr, K, G, seat, params, rng, sc):
    """:func:`policy_act` as one cached entry point: a single decision from Python (tests, tools)."""
    return policy_act(code, addr, K, G, seat, params, rng, sc)


# -- how the compiled loop plays a spec --------------------------------------------------------------------
def plays_in_python(spec: str) -> bool:
    """Whether theft agent ``spec`` has no compiled form (:func:`theft_policy_of`'s code -1: a ``module:Class`` theft
    agent, played through its Python ``act``), told without compiling anything.

    Raises:
        ValueError: as :func:`theft_policy_of`.
    """
    return _compiled_code(make_theft_agent(spec), parse_agent_spec(spec).name) < 0


def _compiled_code(agent, name: str) -> int:
    """POLICY_VIEW for a compiled theft plug-in, the built-in's ``POLICY_*`` for ``random``, ``greedy`` and
    ``defender``, else -1 (an agent played through Python)."""
    if isinstance(agent, TheftViewPolicyAgent):
        return POLICY_VIEW
    if name in THEFT_POLICIES and type(agent) is THEFT_REGISTRY[name]:
        return THEFT_POLICIES[name]
    return -1


def theft_policy_of(spec: str) -> tuple[int, int, np.ndarray]:
    """How the compiled theft play loop plays theft agent ``spec``: ``(code, address, params)``.

    code: ``POLICY_*`` for ``random``, ``greedy``, ``defender`` and compiled theft plug-ins (``POLICY_VIEW``), -1
    for an agent without a compiled form (a ``module:Class`` theft agent, played through its Python ``act``);
    address: a plug-in's C address (:func:`agents.theft.view.theft_plugin_address`, compiled or loaded on first
    use), else 0; params: (N_AGENT_PARAMS,) float64, a plug-in's numeric parameters in the order written.

    Raises:
        ValueError: an unknown or malformed spec, parameters an agent does not take, a plug-in not importable as
            ``module:function`` (:func:`agents.theft.registry.make_theft_agent`'s refusals).
    """
    agent = make_theft_agent(spec)  # refuses what the theft registry refuses
    code = _compiled_code(agent, parse_agent_spec(spec).name)
    if code == POLICY_VIEW:
        return POLICY_VIEW, theft_plugin_address(agent.decide), agent.params.copy()
    return code, 0, np.zeros(N_AGENT_PARAMS, np.float64)
