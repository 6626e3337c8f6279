"""Compiled (numba) forms of the built-in agents, and the one dispatch every compiled loop calls.

A **compiled policy** decides for the seat to act in one game row of the compiled representation
(:mod:`cya_sim.engine.classic.layout`). :func:`policy_act` is the one dispatch::

    policy_act(code, addr, K, G, seat, params, rng, sc) -> int

code: the policy's ``POLICY_*``; addr: a view policy's C address (:mod:`agents.view_abi`, 0 otherwise);
K: the rule constants (:data:`~cya_sim.engine.classic.layout.Consts`); G: the game row ((W,) int64);
seat: the seat to act; params: (N_AGENT_PARAMS,) float64 the agent's parameters; rng: (4,) uint64 the
seat's PCG64 stream (:func:`cya_sim.engine.pcg.next_double`); sc: a :class:`Scratch` of work
arrays. The play loop (:mod:`cya_sim.play`) calls it inside the batched engine's compiled loop, and the
search (:mod:`cya_sim.search`) calls it for every rollout seat: one function, both places. A policy must
read only what its seat may see (RULES.md §10) — :mod:`agents.classic.view` builds that view — except
``oracle``, which cheats by design.

Built-in policies: :func:`random_act`, :func:`greedy_act` (read the row directly, fast, decided in the
loop) and the view policies ``heuristic``, ``card_counter`` and ``oracle``
(:mod:`agents.classic.compiled_strategy`, each compiled on its own the first time it plays). Their decisions
equal the single-game classes' game by game (``tests/test_batched_differential.py``,
``tests/test_agents_compiled.py``). A user's plug-in written over the agent view is a view policy too
(:func:`agents.classic.plugin.plugin_address`).

Also here: the **batch forms** (:class:`RandomBatchAgent`, :class:`GreedyBatchAgent`)
that take an :class:`~cya_sim.engine.classic.batch_observation.ObservationBatch` of B
games and return ``(B,) int32`` actions, for the step-by-step API.

The ``random`` agent draws one double per decision from its seat's stream
(``1 + seat``) and takes legal id number ``floor(u * n_legal)`` in ascending
order. ``greedy`` never draws.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from agents.classic.compiled_advanced import best_pair, covers, greedy_advanced_act
from agents.classic.compiled_draft import best_take, open_if_able
from agents.classic.compiled_strategy import (
    STRATEGY_CARD_COUNTER,
    STRATEGY_HEURISTIC,
    STRATEGY_ORACLE,
    gives_up_at_once,
    oracle_view,
    view_parts,
)
from agents.classic.heuristic import HeuristicConfig
from agents.classic.row_abi import call_row_policy
from agents.classic.row_reading import cheapest_discard, cheapest_wild
from agents.classic.view import N_HDR, N_SEATCOL, VIEW_GAVE_UP, VIEW_LEGAL, VIEW_UNSEEN
from agents.hooks import POLICY_GREEDY, POLICY_RANDOM, act
from agents.view_abi import N_AGENT_PARAMS, call_view_policy  # noqa: F401  (N_AGENT_PARAMS: re-exported)
from cya_sim.engine import hooks
from cya_sim.engine.classic.kernel import legal_list, value_seen
from cya_sim.engine.classic.layout import (
    B_HANDS,
    B_SASSET,
    B_SLEN,
    B_STOP,
    C_A,
    C_ADV_ON,
    C_CH,
    C_DRAFT,
    C_GU,
    C_NA,
    C_P,
    C_RE,
    C_T,
    C_W,
    CONSTS_DTYPE,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_DRAFT_OFFER,
)
from cya_sim.engine.jit import JIT
from cya_sim.engine.pcg import next_double
from cya_sim.engine.seats import seat_add

#: ``greedy``'s parameters as ``heuristic`` switches (its defaults): under the advanced rules with draft
#: piles ``greedy`` is the ``heuristic`` view policy with these (``agents.classic.registry.policy_of``).
GREEDY_AS_HEURISTIC = HeuristicConfig().to_array()

Scratch = namedtuple("Scratch", ["hdr", "hand", "unseen", "seats", "gave_up", "mask", "ids", "hands_all",
                                 "no_hands"])
Scratch.__doc__ = """Work arrays of a compiled policy (one set per thread; nothing is allocated per decision).

hdr: (N_HDR,) int64; hand, unseen: (T,) int64; seats: (P, N_SEATCOL) int64; gave_up: (P, T) bool;
mask: (A,) bool — the agent view (:mod:`agents.classic.view`). ids: (A,) int64 legal ids.
hands_all: (P, T) int64 every hand (``oracle`` only); no_hands: (P, T) int64 zeros, what every other
view policy gets in its place (:mod:`agents.view_abi`), so no policy sees what ``oracle`` saw.
"""


def new_scratch(cfg: np.ndarray) -> Scratch:
    """A :class:`Scratch` sized for the rule constants ``cfg`` (``Consts.cfg``)."""
    p, t, a = int(cfg[C_P]), int(cfg[C_T]), int(cfg[C_A])
    return Scratch(np.zeros(N_HDR, np.int64), np.zeros(t, np.int64), np.zeros(t, np.int64),
                   np.zeros((p, N_SEATCOL), np.int64), np.zeros((p, t), np.bool_), np.zeros(a, np.bool_),
                   np.zeros(a, np.int64), np.zeros((p, t), np.int64), np.zeros((p, t), np.int64))


#: Policy codes of :func:`policy_act`: ``random`` and ``greedy`` (the codes every game gives them,
#: :mod:`agents.hooks`) are decided in the loop; a **view policy** (``POLICY_VIEW``: every compiled plug-in) is
#: called by its C address on the seat's agent view (:mod:`agents.view_abi`). ``heuristic`` (and ``wild_hoarder``)
#: and ``card_counter`` are view policies that, under the classic rules without §6 and §7, decide from the game
#: row instead (:mod:`agents.classic.heuristic_row`, :mod:`agents.classic.card_counter_row`); ``oracle`` is a view
#: policy that also gets every hand.
POLICY_VIEW = 2
POLICY_CARD_COUNTER, POLICY_ORACLE, POLICY_HEURISTIC = STRATEGY_CARD_COUNTER, STRATEGY_ORACLE, STRATEGY_HEURISTIC

#: A view policy's code: its kind (``POLICY_VIEW``, ``POLICY_CARD_COUNTER``, ``POLICY_ORACLE``, ``POLICY_HEURISTIC``)
#: in the bits of ``VIEW_KIND``, and above ``VIEW_SKIP_SHIFT`` the parts of the view it never reads (bits ``VIEW_*``
#: of :mod:`agents.classic.view`), which the loops then leave unbuilt (:func:`view_code`).
VIEW_KIND, VIEW_SKIP_SHIFT = 0xFF, 8
#: Set in a ``card_counter`` or ``heuristic`` code (above the skip bits) when the loops play it from the game row at
#: the address of its row form (:mod:`agents.classic.row_abi`): ``agents.classic.registry.policy_of`` sets it where
#: :func:`agents.classic.registry.plays_from_row` says so, the one place that decides.
ROW_FORM = 1 << 16
#: The parts the built-in view policies never read: ``heuristic`` (and ``wild_hoarder``, and ``greedy`` as the
#: heuristic view policy) not the give-up record; ``oracle`` neither the unseen cards nor the give-up record
#: (:func:`agents.classic.heuristic.heuristic_decide`, :func:`agents.classic.oracle.oracle_decide` and the §6 layer
#: :mod:`agents.classic.advanced` take no such argument); ``card_counter`` reads every part; none reads the legal
#: ids (they read the mask).
BUILTIN_SKIP = {POLICY_HEURISTIC: VIEW_GAVE_UP | VIEW_LEGAL, POLICY_CARD_COUNTER: VIEW_LEGAL,
                POLICY_ORACLE: VIEW_UNSEEN | VIEW_GAVE_UP | VIEW_LEGAL}


def view_code(kind: int, skip: int) -> int:
    """The code (int) of view policy ``kind`` (``POLICY_VIEW``, ``POLICY_CARD_COUNTER``, ``POLICY_ORACLE``,
    ``POLICY_HEURISTIC``) that never reads the view parts of bitmask ``skip`` (``VIEW_*`` of
    :mod:`agents.classic.view`; 0: reads every part, the code is ``kind`` itself)."""
    return kind | (skip << VIEW_SKIP_SHIFT)
BUILTIN_POLICIES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY, "heuristic": POLICY_HEURISTIC,
                    "wild_hoarder": POLICY_HEURISTIC, "card_counter": POLICY_CARD_COUNTER, "oracle": POLICY_ORACLE}



@njit(**JIT)
def random_act(K, G, seat, params, rng, sc):
    """``random``: legal ids ascending, index ``floor(u * n_legal)`` with ``u`` the next double of ``rng``.

    Returns -1 if nothing is legal (the engine never asks then).
    """
    n = legal_list(K, G, sc.ids)
    if n == 0:
        return -1
    return sc.ids[int(next_double(rng) * n)]


@njit(inline="always", **JIT)
def greedy_act(K, G, seat, params, rng, sc):
    """``greedy`` for ``seat`` (int action id); see :class:`agents.classic.greedy.GreedyAgent`. Never draws.

    1. the pair (R-PAIR-HAND, then R-PAIR-DISCARD) of highest face value,
       ties to the lowest id; 2. a challenge (R-CHALLENGE) of the reachable
       top set of highest ``value_seen`` (ties to the nearest seat on the
       left), opening with a matching asset, else the cheapest wild;
       3. discard the cheapest asset, else the cheapest wild. In a challenge
       (R-CH-EXCHANGE): answer with a matching asset, else the cheapest wild,
       else give up.

    How (speed, same choices): the set to lay is :func:`agents.classic.compiled_advanced.best_pair` (bitmasks
    over the asset types held). Under the advanced rules (RULES.md §6) ``greedy`` is ``heuristic``'s
    defaults in the §6 layer (:class:`agents.classic.greedy.GreedyAgent`): without draft piles that decision is
    :func:`agents.classic.compiled_advanced.greedy_advanced_act`, read from the row like this one; with draft piles
    ``greedy`` is played as the ``heuristic`` view policy with its default switches
    (:func:`agents.classic.registry.policy_of`), and this function returns -1 there.
    """
    cfg = K.cfg
    if cfg[C_ADV_ON]:  # the advanced rules (RULES.md §6): heuristic's defaults in the §6 layer, as GreedyAgent
        if covers(K):
            return greedy_advanced_act(K, G, seat)
        return -1  # with draft piles greedy is the heuristic view policy (agents.classic.registry.policy_of): never asked here
    L = K.lay
    na = cfg[C_NA]
    w = cfg[C_W]
    t = cfg[C_T]
    h0 = L[B_HANDS] + seat * t
    if G[G_CH_ACTIVE]:
        if G[h0 + G[G_CH_ASSET]] > 0:
            return cfg[C_RE]
        wd = cheapest_wild(K, G, h0)
        return cfg[C_RE] + 1 + wd - na if wd >= 0 else cfg[C_GU]
    if cfg[C_DRAFT] != 0 and G[G_DRAFT_OFFER] != 0:  # §7: open the immediate challenge when able
        return open_if_able(K, G, seat)
    best, best_v, wild_k = best_pair(K, G, h0)
    if cfg[C_DRAFT] != 0:  # §7: a draft take is a set, worth its hand card and the cards taken
        best, best_v = best_take(K, G, seat, sc.hand, best, best_v)  # sc.hand: scratch (greedy builds no view)
    if best >= 0:
        return best
    p = cfg[C_P]
    if G[L[B_SLEN] + seat] >= 1:
        best_off = 0
        best_t = -1
        for off in range(1, p):
            tg = seat_add(seat, off, p)
            if G[L[B_SLEN] + tg] < 2:
                continue
            st = G[L[B_STOP] + tg]
            if G[h0 + G[L[B_SASSET] + st]] == 0 and wild_k < 0:
                continue
            v = value_seen(K, G, st, seat)
            if v > best_t:
                best_off = off
                best_t = v
        if best_off > 0:
            base = cfg[C_CH] + (best_off - 1) * w
            tg = seat_add(seat, best_off, p)
            if G[h0 + G[L[B_SASSET] + G[L[B_STOP] + tg]]] > 0:
                return base
            wd = cheapest_wild(K, G, h0)
            if wd >= 0:
                return base + 1 + wd - na
    return cheapest_discard(K, G, h0)


@njit(inline="always", **JIT)
def policy_act(code, addr, K, G, seat, params, rng, sc):
    """The action (int) of compiled policy ``code`` (``POLICY_*``) for ``seat`` in row ``G``; -1 for an unknown code.

    ``random`` and ``greedy`` decide here; a code with :data:`ROW_FORM` (``card_counter`` and ``heuristic`` under the
    classic rules without §6 and §7) decides from the row (:func:`agents.classic.card_counter_row.card_counter_row`,
    :func:`agents.classic.heuristic_row.heuristic_row`: the same choices as their view forms), called at ``addr``,
    the C address of its row form (:mod:`agents.classic.row_abi`). Otherwise a view policy (``POLICY_VIEW``,
    ``POLICY_CARD_COUNTER``, ``POLICY_ORACLE``, ``POLICY_HEURISTIC``, in the low bits of ``code``: :func:`view_code`)
    gets the seat's agent view, but the parts its code says it never reads
    (:func:`agents.classic.compiled_strategy.view_parts`), and is called at its C address ``addr`` (int64,
    :mod:`agents.view_abi`; 0 for the in-loop policies). One copy of this dispatch is inlined into each compiled
    loop (the play loop, the search's rollouts), and none of them is ever compiled again for a new policy.
    """
    if code == POLICY_GREEDY:
        return greedy_act(K, G, seat, params, rng, sc)
    if code == POLICY_RANDOM:
        return random_act(K, G, seat, params, rng, sc)
    if code & ROW_FORM:  # card_counter or heuristic from the row, at its row form's address (agents.classic.row_abi)
        return call_row_policy(addr, K, G, seat, params)
    kind = code & VIEW_KIND
    if kind == POLICY_CARD_COUNTER and gives_up_at_once(K, G, seat):
        return K.cfg[C_GU]
    if kind < POLICY_VIEW or kind > POLICY_HEURISTIC:
        return -1
    n_legal = view_parts(K, G, seat, sc, code >> VIEW_SKIP_SHIFT)
    values = K.values[:K.cfg[C_T]]
    if kind == POLICY_ORACLE:
        oracle_view(K, G, sc)
        return call_view_policy(addr, params, sc.hdr, sc.hand, values, sc.unseen, sc.seats, sc.gave_up, sc.mask,
                                rng, sc.hands_all, sc.ids[:n_legal])
    return call_view_policy(addr, params, sc.hdr, sc.hand, values, sc.unseen, sc.seats, sc.gave_up, sc.mask, rng,
                            sc.no_hands, sc.ids[:n_legal])


# The classic family's policy dispatch for the shared loops (agents.hooks.act), chosen by its constants record.
hooks.implement(act, CONSTS_DTYPE.names, policy_act)


@njit(**JIT)
def act_once(code, addr, K, G, seat, params, rng, sc):
    """:func:`policy_act` as one cached entry point: a single decision from Python (tests, tools), compiled once."""
    return policy_act(code, addr, K, G, seat, params, rng, sc)


# -- batch forms on observations --------------------------------------------------------------------------
@njit(**JIT)
def _random_batch(mask, seat, agent_rng, out):
    for b in range(mask.shape[0]):
        s = seat[b]
        if s < 0:
            out[b] = -1
            continue
        n = 0
        for a in range(mask.shape[1]):
            if mask[b, a]:
                n += 1
        pick = int(next_double(agent_rng[b, s]) * n)
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if pick == 0:
                    out[b] = a
                    break
                pick -= 1


@njit(**JIT)
def _greedy_batch(mask, seat, phase, hand, discard_pile, discard_len, stack_len, top_value_seen,
                  values, wild_order, discard_order, na, pd, ch, di, re, gu, w, out, dc, mv, move_target,
                  set_value_seen):
    nw = wild_order.shape[0]
    t = values.shape[0]
    p = stack_len.shape[1]
    for b in range(mask.shape[0]):
        s = seat[b]
        out[b] = -1
        if s < 0:
            continue
        m = mask[b]
        if phase[b] == 3:  # §7 with §6: a Move turned up; agents.classic.advanced.draft_move_choice on the set values
            tg = move_target[b]
            n_s = stack_len[b, tg]
            keep = set_value_seen[b, tg, n_s - 1] + set_value_seen[b, tg, 0]
            out[b] = mv if set_value_seen[b, tg, n_s - 2] > keep else mv + 1
            continue
        if phase[b] == 2:  # §7: open the immediate challenge of a drafted set when able, else decline
            out[b] = dc + w  # draft_decline
            for i in range(w):
                a = dc + (0 if i == 0 else 1 + wild_order[i - 1] - na)
                if m[a]:
                    out[b] = a
                    break
            continue
        if phase[b] == 1:
            out[b] = gu
            if m[re]:
                out[b] = re
            else:
                for i in range(nw):
                    a = re + 1 + wild_order[i] - na
                    if m[a]:
                        out[b] = a
                        break
            continue
        best = -1
        best_v = -1
        for a in range(na):
            for k in range(w):
                act = a * w + k
                v = values[a] + (values[a] if k == 0 else values[na + k - 1])
                if m[act] and v > best_v:
                    best = act
                    best_v = v
        if discard_len[b] > 0:
            top = discard_pile[b, discard_len[b] - 1]
            for c in range(t):
                if m[pd + c]:
                    v = values[top] + values[c]
                    if v > best_v:
                        best = pd + c
                        best_v = v
        if best >= 0:
            out[b] = best
            continue
        best_off = 0
        best_t = -1
        for off in range(1, p):
            anyl = False
            for k in range(w):
                if m[ch + (off - 1) * w + k]:
                    anyl = True
            if anyl:
                v = top_value_seen[b, (s + off) % p]
                if v > best_t:
                    best_off = off
                    best_t = v
        if best_off > 0:
            base = ch + (best_off - 1) * w
            if m[base]:
                out[b] = base
                continue
            for i in range(nw):
                a = base + 1 + wild_order[i] - na
                if m[a]:
                    out[b] = a
                    break
            continue
        for i in range(t):
            c = discard_order[i]
            if hand[b, c] > 0:
                out[b] = di + c
                break


class RandomBatchAgent:
    """``random`` in batch form: ``act(obs, agent_rng) -> (B,) int32``.

    Args of ``act``: ``obs`` an ObservationBatch (uses ``seat`` (B,) int8 and
    ``legal_action_mask`` (B, A) bool); ``agent_rng`` the (B, P, 4) uint64
    agent streams of the batch state (``BatchState.agent_rng``), advanced in
    place by one draw for each row that acts. Rows with ``seat = -1`` get -1.
    """

    name = "random"

    def act(self, obs, agent_rng: np.ndarray) -> np.ndarray:
        """(B,) int32 actions, each legal under ``obs.legal_action_mask``."""
        out = np.full(obs.seat.shape[0], -1, np.int32)
        _random_batch(obs.legal_action_mask, obs.seat.astype(np.int64), agent_rng, out)
        return out


class GreedyBatchAgent:
    """``greedy`` in batch form: ``act(obs, agent_rng=None) -> (B,) int32`` (deterministic).

    On the draft presets (§7) it opens an immediate challenge as ``greedy`` does (phase 2) but does
    not consider draft takes (the ObservationBatch carries the tops; the ranking is not ported).

    Uses the fields ``seat``, ``phase``, ``hand``, ``discard_pile``,
    ``discard_len``, ``stack_len``, ``top_value_seen`` and
    ``legal_action_mask`` of an ObservationBatch. Rows with ``seat = -1`` get -1.
    """

    name = "greedy"

    def act(self, obs, agent_rng: np.ndarray | None = None) -> np.ndarray:
        """(B,) int32 actions, each legal under ``obs.legal_action_mask``."""
        sp = obs.action_space
        values = obs.values
        na = sp.n_assets
        wild_order = np.array(sorted(range(na, na + sp.n_wilds), key=lambda x: (values[x], x)), np.int64)
        discard_order = np.array(
            sorted(range(sp.n_types), key=lambda c: (c >= na, values[c], c)), np.int64)
        out = np.full(obs.seat.shape[0], -1, np.int32)
        st = sp.start
        _greedy_batch(obs.legal_action_mask, obs.seat.astype(np.int64), obs.phase, obs.hand, obs.discard_pile,
                      obs.discard_len, obs.stack_len, obs.top_value_seen, values.astype(np.int64),
                      wild_order, discard_order, na, st["pair_discard"], st["challenge"], st["discard"],
                      st["respond"], st["give_up"], 1 + sp.n_wilds, out, st["draft_challenge"], st["draft_move"],
                      obs.draft_move_target.astype(np.int64), obs.set_value_seen)
        return out


BATCH_AGENTS = {"random": RandomBatchAgent, "greedy": GreedyBatchAgent}
