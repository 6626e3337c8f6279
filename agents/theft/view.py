"""The theft agent view and its C calling convention: compiled theft plug-ins (RULES.md §9, §10).

A **theft plug-in** is one numba-compiled function, in the user's own file::

    @numba.njit(cache=True)
    def decide(params, hdr, hand, values, unseen, assets, mask, rng) -> int

over one seat's view of a theft game, built from what that seat may see (RULES.md §10 for §9):

* ``params``: (N_AGENT_PARAMS,) float64 — the numeric parameters of the spec in the order written;
* ``hdr``: (N_THEFT_HDR,) int64 scalars, indexed by the ``H_*`` constants below (the phase as
  ``cya_sim.engine.theft.layout.PH_*``, the pending theft, the first id of each action block, every seat's
  hand size and number of assets);
* ``hand``, ``values``, ``unseen``: (T,) int64 — the seat's cards by type, each type's points, the cards
  of each type it has not seen (the deck minus its hand, the discard pile, the pending theft card and
  every asset card it knows);
* ``assets``: (P, S, N_VIEW_COLS) int64 — per seat (absolute seat numbers) and asset slot (oldest first;
  ``hdr[H_N_ASSETS + seat]`` of them), the columns ``V_*``: the first card (-1 when the seat cannot
  see it: another seat's face-down first-asset card), the second card, hidden cards (0 or 1), points
  seen, lowest and highest points possible; unused slots hold -1, -1, 0, 0, 0, 0. While the seats lay
  their first assets (``setup``) a seat sees no other seat's assets;
* ``mask``: (A,) bool — the legal action mask (ids of :class:`~cya_sim.game.theft.actions.TheftActionSpace`);
* ``rng``: the seat's (4,) uint64 PCG64 stream (draw with :func:`agents.classic.view.uniform`);
* ``legal``: (n_legal,) int64 — the legal action ids, ascending (``np.flatnonzero(mask)``), for a plug-in that
  asks for a ninth argument (:func:`theft_takes_legal`); one of eight arguments is called without it.

It returns a legal action id. It is named like any theft agent: ``my_pkg.policies:decide`` or
``my_pkg.policies:decide(aggression=2)``. The batched theft engine's play loop
(:mod:`cya_sim.play.loop`, compiled once and cached) builds this view in compiled code
(:func:`build_view_row`) and calls the plug-in through the C address of a small entry compiled for it
alone (:func:`theft_plugin_address`); the reference engine calls it through
:class:`TheftViewPolicyAgent` on the same view (:func:`build_view` of a
:class:`~cya_sim.engine.theft.observation.TheftObservation`) and the same random stream, so both engines
play the same games.

The C signature (:data:`THEFT_VIEW_SIG`), every array C-contiguous, passed as its data pointer::

    int64 policy(float64 *params, int64 *hdr, int64 *hand, int64 *values, int64 *unseen,
                 int64 *assets, uint8 *mask, uint64 *rng, int64 *legal, int64 t, int64 p, int64 s, int64 a,
                 int64 n_legal);
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from agents.plugin import (
    _from_state,
    _to_state,
    generated_entry_module,
    plugin_params,
    refresh_plugin_caches,
    takes_argument,
)
from agents.view_abi import N_AGENT_PARAMS, checked_plugin_address, checked_plugin_call, compile_entry
from cya_sim.engine.jit import JIT
from cya_sim.engine.theft.kernel import asset_at, legal_mask
from cya_sim.engine.theft.layout import (
    A_C0,
    A_C1,
    A_KNOWN0,
    A_VALUE,
    B_DCOUNT,
    B_HANDS,
    B_HCOUNT,
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
    C_M,
    C_N,
    C_P,
    C_S,
    C_T,
    G_CUR,
    G_DISC_LEN,
    G_DRAW_END,
    G_DRAW_POS,
    G_FINAL_LEFT,
    G_PHASE,
    G_TH_CARD,
    G_TH_SLOT,
    G_TH_TARGET,
    G_TH_THIEF,
    G_THEFTS_TURN,
    G_TO_ACT,
    PH_DEFENCE,
    PH_SETUP,
    PHASE_NAMES,
)
from cya_sim.engine.theft.observation import TheftObservation

#: Most seats a theft view holds (``TheftRuleSet.max_players`` is at most 12).
MAX_SEATS = 12

# hdr ------------------------------------------------------------------------------------------------------
(H_SEAT, H_P, H_PHASE, H_TO_ACT, H_CUR, H_TH_THIEF, H_TH_TARGET, H_TH_SLOT, H_TH_CARD, H_THEFTS_TURN,
 H_FINAL_LEFT, H_DRAW_SIZE, H_DISC_LEN, H_NUMBERS, H_M, H_S, H_A_BUILD, H_A_THEFT, H_A_END, H_A_DISC,
 H_A_CANCEL, H_A_GIVE, H_A_PASS, H_A_GOLD, H_A) = range(25)
H_HAND_SIZES = 25  # hdr[H_HAND_SIZES + seat], seat < MAX_SEATS
H_N_ASSETS = H_HAND_SIZES + MAX_SEATS  # hdr[H_N_ASSETS + seat]: assets the seat sees of that seat
N_THEFT_HDR = H_N_ASSETS + MAX_SEATS
# assets columns -------------------------------------------------------------------------------------------
V_CARD0, V_CARD1, V_HIDDEN, V_VALUE_SEEN, V_VALUE_LOW, V_VALUE_HIGH = range(6)
N_VIEW_COLS = 6

#: numba signature of a theft view policy's C entry (module docstring).
THEFT_VIEW_SIG = types.int64(*([types.voidptr] * 9), *([types.int64] * 5))

_I8P = ir.IntType(8).as_pointer()
_I64 = ir.IntType(64)
_FNTY = ir.FunctionType(_I64, [_I8P] * 9 + [_I64] * 5)


# -- the view of a row (compiled) ----------------------------------------------------------------------------
@njit(**JIT)
def hidden_range(K):
    """(lowest, highest) points of an asset card a seat cannot see: a number or, with gold cards in the deck, gold."""
    cfg = K.cfg
    lo = 1
    hi = cfg[C_N]
    if K.counts[cfg[C_GOLD]] > 0:
        lo = min(1, cfg[C_GOLD_VALUE])
        hi = max(cfg[C_N], cfg[C_GOLD_VALUE])
    return lo, hi


@njit(**JIT)
def build_view_row(K, G, seat, hdr, hand, unseen, assets, mask, ids):
    """Fill the theft agent view of ``seat`` in row ``G`` (module docstring): ``hdr``, ``hand``, ``unseen``,
    ``assets`` and ``mask``, and the legal ids into ``ids`` ((A,) int64, ascending). Equal to :func:`build_view` of
    the reference's observation of that seat. Returns the number of legal ids (int; 0 for a seat not to act)."""
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    t = cfg[C_T]
    s_max = cfg[C_S]
    for i in range(hdr.shape[0]):
        hdr[i] = 0
    ph = G[G_PHASE]
    hdr[H_SEAT] = seat
    hdr[H_P] = p
    hdr[H_PHASE] = ph
    hdr[H_TO_ACT] = G[G_TO_ACT]
    hdr[H_CUR] = G[G_CUR]
    hdr[H_TH_THIEF] = -1
    hdr[H_TH_TARGET] = -1
    hdr[H_TH_SLOT] = -1
    hdr[H_TH_CARD] = -1
    h0 = L[B_HANDS] + seat * t
    for c in range(t):
        hand[c] = G[h0 + c]
        unseen[c] = K.counts[c] - G[h0 + c] - G[L[B_DCOUNT] + c]
    if ph == PH_DEFENCE:
        hdr[H_TH_THIEF] = G[G_TH_THIEF]
        hdr[H_TH_TARGET] = G[G_TH_TARGET]
        hdr[H_TH_SLOT] = G[G_TH_SLOT]
        hdr[H_TH_CARD] = G[G_TH_CARD]
        unseen[G[G_TH_CARD]] -= 1
    hdr[H_THEFTS_TURN] = G[G_THEFTS_TURN]
    hdr[H_FINAL_LEFT] = G[G_FINAL_LEFT]
    hdr[H_DRAW_SIZE] = G[G_DRAW_END] - G[G_DRAW_POS]
    hdr[H_DISC_LEN] = G[G_DISC_LEN]
    hdr[H_NUMBERS] = cfg[C_N]
    hdr[H_M] = cfg[C_M]
    hdr[H_S] = s_max
    hdr[H_A_BUILD] = cfg[C_A_BUILD]
    hdr[H_A_THEFT] = cfg[C_A_THEFT]
    hdr[H_A_END] = cfg[C_A_END]
    hdr[H_A_DISC] = cfg[C_A_DISC]
    hdr[H_A_CANCEL] = cfg[C_A_CANCEL]
    hdr[H_A_GIVE] = cfg[C_A_GIVE]
    hdr[H_A_PASS] = cfg[C_A_PASS]
    hdr[H_A_GOLD] = cfg[C_A_GOLD]
    hdr[H_A] = cfg[C_A]
    lo, hi = hidden_range(K)
    for owner in range(p):
        hdr[H_HAND_SIZES + owner] = G[L[B_HCOUNT] + owner]
        n = G[L[B_NASSETS] + owner]
        if ph == PH_SETUP and owner != seat:
            n = 0
        hdr[H_N_ASSETS + owner] = n
        for slot in range(s_max):
            if slot >= n:
                assets[owner, slot, V_CARD0] = -1
                assets[owner, slot, V_CARD1] = -1
                for col in range(V_HIDDEN, N_VIEW_COLS):
                    assets[owner, slot, col] = 0
                continue
            o = asset_at(K, owner, slot)
            c0 = G[o + A_C0]
            c1 = G[o + A_C1]
            v = G[o + A_VALUE]
            unseen[c1] -= 1
            if (G[o + A_KNOWN0] >> seat) & 1:
                unseen[c0] -= 1
                assets[owner, slot, V_CARD0] = c0
                assets[owner, slot, V_HIDDEN] = 0
                assets[owner, slot, V_VALUE_SEEN] = v
                assets[owner, slot, V_VALUE_LOW] = v
                assets[owner, slot, V_VALUE_HIGH] = v
            else:
                v -= K.values[c0]
                assets[owner, slot, V_CARD0] = -1
                assets[owner, slot, V_HIDDEN] = 1
                assets[owner, slot, V_VALUE_SEEN] = v
                assets[owner, slot, V_VALUE_LOW] = v + lo
                assets[owner, slot, V_VALUE_HIGH] = v + hi
            assets[owner, slot, V_CARD1] = c1
    if G[G_TO_ACT] == seat:
        return legal_mask(K, G, mask, ids)
    for i in range(mask.shape[0]):
        mask[i] = False
    return 0


# -- the view of an observation (Python, the reference engine's side) ---------------------------------------
def build_view(obs: TheftObservation) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                               np.ndarray]:
    """``(hdr, hand, values, unseen, assets, mask)`` of a theft observation (module docstring); copies.

    Raises:
        ValueError: a table of more than :data:`MAX_SEATS` seats.
    """
    r = obs.rules
    sp = obs.action_space
    p = obs.n_players
    if p > MAX_SEATS:
        raise ValueError(f"{p} seats; the theft view holds at most {MAX_SEATS}")
    hdr = np.zeros(N_THEFT_HDR, np.int64)
    hdr[H_SEAT], hdr[H_P], hdr[H_PHASE] = obs.seat, p, PHASE_NAMES.index(obs.phase)
    hdr[H_TO_ACT], hdr[H_CUR] = obs.to_act, obs.current_player
    th = obs.theft
    hdr[H_TH_THIEF], hdr[H_TH_TARGET], hdr[H_TH_SLOT], hdr[H_TH_CARD] = (
        (th.thief, th.target, th.slot, th.card) if th is not None else (-1, -1, -1, -1))
    hdr[H_THEFTS_TURN] = obs.thefts_this_turn
    hdr[H_FINAL_LEFT] = -1 if obs.final_turns_left is None else obs.final_turns_left
    hdr[H_DRAW_SIZE], hdr[H_DISC_LEN] = obs.draw_size, len(obs.discard_pile)
    hdr[H_NUMBERS], hdr[H_M], hdr[H_S] = r.numbers, r.max_players, r.max_assets
    for h, kind in ((H_A_BUILD, "build"), (H_A_THEFT, "theft"), (H_A_END, "end_turn"), (H_A_DISC, "discard"),
                    (H_A_CANCEL, "cancel_pair"), (H_A_GIVE, "give_up_asset"), (H_A_PASS, "let_pass"),
                    (H_A_GOLD, "cancel_gold")):
        hdr[h] = sp.start[kind]
    hdr[H_A] = sp.size
    assets = np.zeros((p, r.max_assets, N_VIEW_COLS), np.int64)
    assets[:, :, V_CARD0] = -1
    assets[:, :, V_CARD1] = -1
    for owner in range(p):
        hdr[H_HAND_SIZES + owner] = obs.hand_sizes[owner]
        views = obs.assets[owner]
        hdr[H_N_ASSETS + owner] = len(views)
        for a in views:
            row = assets[owner, a.slot]
            if a.n_hidden:  # a first asset's face-down card: the second card is the face-up one
                row[V_CARD0], row[V_CARD1] = -1, a.cards[0]
            else:
                row[V_CARD0], row[V_CARD1] = a.cards
            row[V_HIDDEN], row[V_VALUE_SEEN] = a.n_hidden, a.value_seen
            row[V_VALUE_LOW], row[V_VALUE_HIGH] = a.value_low, a.value_high
    return (hdr, obs.hand.astype(np.int64), r.values.astype(np.int64), obs.unseen.astype(np.int64), assets,
            np.array(obs.legal_action_mask, bool))


# -- the C call ----------------------------------------------------------------------------------------------
@intrinsic
def call_theft_view_policy(typingctx, addr, params, hdr, hand, values, unseen, assets, mask, rng, legal):
    """Call the theft view policy at C address ``addr`` (int64) on these arrays (module docstring); its int64 action.

    T, P, S, A and n_legal are read from the shapes of ``hand``, ``assets``, ``mask`` and ``legal``. Every array must
    be C-contiguous (the policy sees only its data pointer).
    """
    arrays = (params, hdr, hand, values, unseen, assets, mask, rng, legal)
    if not isinstance(addr, types.Integer) or not all(isinstance(a, types.Array) for a in arrays):
        return None
    sig = types.int64(addr, *arrays)

    def codegen(context, builder, signature, args):
        structs = [context.make_array(ty)(context, builder, val) for ty, val in zip(signature.args[1:], args[1:])]
        ptrs = [builder.bitcast(s.data, _I8P) for s in structs]
        t = cgutils.unpack_tuple(builder, structs[2].shape, 1)[0]
        p, s, _ = cgutils.unpack_tuple(builder, structs[5].shape, 3)
        a = cgutils.unpack_tuple(builder, structs[6].shape, 1)[0]
        n_legal = cgutils.unpack_tuple(builder, structs[8].shape, 1)[0]
        fn = builder.inttoptr(context.cast(builder, args[0], signature.args[0], types.int64), _FNTY.as_pointer())
        return builder.call(fn, ptrs + [t, p, s, a, n_legal])

    return sig, codegen


@njit(cache=True, inline="always")  # inlined into each C entry: the arrays are views, no tuple is built
def theft_view_arrays(params, hdr, hand, values, unseen, assets, mask, rng, legal, t, p, s, a, n_legal):
    """The nine view arrays over the pointers a theft C entry receives, in the order of the signature: views."""
    return (carray(params, N_AGENT_PARAMS, np.float64), carray(hdr, N_THEFT_HDR, np.int64), carray(hand, t, np.int64),
            carray(values, t, np.int64), carray(unseen, t, np.int64),
            carray(assets, (p, s, N_VIEW_COLS), np.int64), carray(mask, a, np.bool_), carray(rng, 4, np.uint64),
            carray(legal, n_legal, np.int64))


_ENTRY_SOURCE = '''"""Generated by agents.theft.view for the compiled theft plug-in {path}: its C entry."""
from agents.theft.view import theft_view_arrays
from agents.view_abi import PLUGIN_RAISED, integer_action
from {module} import {name} as _plugin


def entry(params, hdr, hand, values, unseen, assets, mask, rng, legal, t, p, s, a, n_legal):
    pa, hd, hn, va, un, asx, ma, rg, lg = theft_view_arrays(params, hdr, hand, values, unseen, assets, mask, rng,
                                                            legal, t, p, s, a, n_legal)
    try:  # a C entry cannot raise: numba would print nothing and return 0 (a game "played" with action 0)
        action = integer_action(_plugin(pa, hd, hn, va, un, asx, ma, rg<LEGAL>))
    except Exception:
        return PLUGIN_RAISED
    return action
'''

def theft_entry_module(func):
    """The generated module holding the C entry of theft plug-in ``func`` (written to the plug-in cache folder,
    :func:`agents.plugin.cache_dir`, and imported by :func:`agents.plugin.generated_entry_module`); named by a hash
    of the plug-in's file, of this module, of :mod:`agents.view_abi` and of the Python version, so an edit of the
    plug-in compiles a new entry and an unchanged one loads.

    Raises:
        ValueError: the plug-in is not importable as ``module:function``.
    """
    source = _ENTRY_SOURCE.replace("<LEGAL>", ", lg" if theft_takes_legal(func) else "")
    return generated_entry_module(func, source, "cya_theft_plugin_entry", ("agents.theft.view", "agents.view_abi"))


def theft_takes_legal(func) -> bool:
    """Whether theft plug-in ``func`` takes the ninth argument ``legal`` ((n_legal,) int64, the legal ids ascending):
    a ninth positional parameter without a default value, or one named ``legal`` (:data:`_THEFT_SIGNATURE`;
    :func:`agents.plugin.takes_argument`)."""
    return takes_argument(func, 9)


def theft_plugin_address(func) -> int:
    """C address (int) of the entry of theft plug-in ``func`` (compiled, or loaded from numba's disk cache, once).

    Raises:
        ValueError: the plug-in is not importable as ``module:function``.
        AgentSpecError: numba cannot compile it, or it does not return an integer
            (:func:`agents.view_abi.checked_plugin_address`).
    """
    return checked_plugin_address(func, lambda: compile_entry(theft_entry_module(func).entry, THEFT_VIEW_SIG),
                                  _THEFT_SIGNATURE)


#: The documented signature of a compiled theft plug-in (agents/README.md), shown when one is refused.
_THEFT_SIGNATURE = "decide(params, hdr, hand, values, unseen, assets, mask, rng[, legal])"


class TheftViewPolicyAgent:
    """The single-game form of a compiled theft plug-in (module docstring), for the reference engine.

    Args:
        decide: the numba-compiled decision function. name: its spec name (``module:function``).
        **params: numeric parameters, passed in the order given as ``params`` (float64).

    Raises:
        ValueError: a parameter that is not a number, or more than ``N_AGENT_PARAMS`` of them.
    """

    def __init__(self, decide, name: str, **params) -> None:
        self.decide = decide
        self.name = name
        self.params = plugin_params(name, params)
        refresh_plugin_caches(decide)  # an edited helper module is never replayed from numba's cache
        self.takes_legal = theft_takes_legal(decide)

    def act(self, obs: TheftObservation, rng: np.random.Generator) -> int:
        """The plug-in's action for ``obs``; ``rng`` (the seat's PCG64 stream) advances as in compiled play."""
        hdr, hand, values, unseen, assets, mask = build_view(obs)
        st = _to_state(rng) if rng is not None else np.zeros(4, np.uint64)
        extra = (np.flatnonzero(mask).astype(np.int64),) if self.takes_legal else ()
        a = checked_plugin_call(self.decide, lambda: self.decide(self.params, hdr, hand, values, unseen, assets, mask,
                                                                 st, *extra), _THEFT_SIGNATURE)
        if rng is not None:
            _from_state(rng, st)
        return a
