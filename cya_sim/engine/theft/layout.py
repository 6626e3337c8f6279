"""The theft game's compiled representation: one game is one row of int64 with named offsets (RULES.md §9).

The same design as the classic family's :mod:`cya_sim.engine.classic.layout`: the batched theft
engine keeps B games as the rows of a ``(B, W)`` int64 array; the rules kernel
(:mod:`cya_sim.engine.theft.kernel`) takes one row ``G`` and the constants ``K`` (one NumPy record, passed
to compiled code as one pointer) made from a :class:`~cya_sim.game.theft.rules.TheftRuleSet` by
:func:`make_consts`. Scalars sit at the fixed offsets ``G_*``; blocks start at ``K.lay[B_*]``.

Blocks (sizes in the letters P seats, T card types, NC cards, S asset slots = ``max_assets``):

* per seat (P each): ``B_HCOUNT`` cards in hand, ``B_NASSETS`` assets held, ``B_POINTS`` points of
  the seat's assets (written when the game ends, R-T-END);
* ``B_HANDS`` (P*T) cards of each type in each hand, seat-major;
* ``B_DECK`` (NC) the draw pile, ``deck[draw_pos:draw_end]`` top first; a reshuffle (R-TURN: the
  discard pile shuffled into a new draw pile) writes the discard pile to ``deck[0:n]``;
* ``B_DISC`` (NC) the discard pile, bottom first; ``B_DCOUNT`` (T) its cards by type (public);
* ``B_ASSETS`` (P*S*4) each seat's assets, oldest first, four words per asset: the first card
  (for a first asset, the face-down one), the second card, the bitmask of the seats that know
  the first card (the second card is always public: R-T-SETUP lays it face up; RULES.md §10),
  and its points (R-T-END: the sum of its cards' values).

Scalars: ``G_PHASE`` (``PH_*``), ``G_TO_ACT`` (-1 when over), ``G_CUR`` (the seat whose turn it
is; in setup the seat laying), ``G_FIRST`` (first player, R-T-SETUP), the pending theft
``G_TH_*`` (thief, target, slot, card; meaningful in the defence phase), ``G_THEFTS_TURN``,
``G_FINAL_LEFT`` (-1: R-T-END not triggered), ``G_TRIGGER``, ``G_WINNERS`` (bitmask), ``G_CAPPED``,
the counters ``G_TURNS``, ``G_THEFTS``, ``G_CANCELLED``, ``G_DECISIONS``, ``G_LARGEST_STEAL``
(points), the piles ``G_DRAW_POS``, ``G_DRAW_END``, ``G_DISC_LEN``, and the batched engine's
bookkeeping ``G_DONE``, ``G_GAME_INDEX``, ``G_QUEUE_POS``.
"""

from __future__ import annotations

import numpy as np

from cya_sim.game.theft.actions import TheftActionSpace
from cya_sim.game.theft.rules import TheftRuleSet

# -- scalars of a row ------------------------------------------------------------------------------
(G_PHASE, G_TO_ACT, G_CUR, G_FIRST, G_TH_THIEF, G_TH_TARGET, G_TH_SLOT, G_TH_CARD, G_THEFTS_TURN,
 G_FINAL_LEFT, G_TRIGGER, G_WINNERS, G_CAPPED, G_TURNS, G_THEFTS, G_CANCELLED, G_DECISIONS,
 G_LARGEST_STEAL, G_DRAW_POS, G_DRAW_END, G_DISC_LEN, G_DONE, G_GAME_INDEX, G_QUEUE_POS) = range(24)
N_SCALARS = 24
#: Meaning of each scalar (name -> offset), for readers and the batched engine's named views.
SCALARS = {
    "phase": G_PHASE, "to_act": G_TO_ACT, "current_player": G_CUR, "first_player": G_FIRST,
    "theft_thief": G_TH_THIEF, "theft_target": G_TH_TARGET, "theft_slot": G_TH_SLOT, "theft_card": G_TH_CARD,
    "thefts_this_turn": G_THEFTS_TURN, "final_turns_left": G_FINAL_LEFT, "trigger_seat": G_TRIGGER,
    "winners": G_WINNERS, "capped": G_CAPPED, "turns": G_TURNS, "thefts": G_THEFTS, "cancelled": G_CANCELLED,
    "decisions": G_DECISIONS, "largest_steal": G_LARGEST_STEAL, "draw_pos": G_DRAW_POS, "draw_end": G_DRAW_END,
    "discard_len": G_DISC_LEN, "done": G_DONE, "game_index": G_GAME_INDEX, "queue_pos": G_QUEUE_POS,
}

#: Phases (``G_PHASE``), as :data:`cya_sim.game.theft.state.PHASES` in order.
PH_SETUP, PH_PLAY, PH_DEFENCE, PH_DISCARD, PH_OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("setup", "play", "defence", "discard", "over")

#: Words per asset in ``B_ASSETS``: first card, second card, knowers of the first card, points.
A_C0, A_C1, A_KNOWN0, A_VALUE, A_WORDS = 0, 1, 2, 3, 4

# -- blocks: indices into K.lay ------------------------------------------------------------------
(B_HCOUNT, B_NASSETS, B_POINTS, B_HANDS, B_DECK, B_DISC, B_DCOUNT, B_ASSETS, B_SIZE) = range(9)
N_LAYOUT = 9
#: Name, block index and shape (in the letters P, T, N = NC, A = P*S*4) of each block.
BLOCKS = {
    "hand_count": (B_HCOUNT, "P"), "n_assets": (B_NASSETS, "P"), "points": (B_POINTS, "P"),
    "hands": (B_HANDS, "PT"), "deck": (B_DECK, "N"), "discard": (B_DISC, "N"), "discard_counts": (B_DCOUNT, "T"),
    "assets": (B_ASSETS, "PS4"),
}

# -- indices into Consts.cfg -----------------------------------------------------------------------
(C_N, C_T, C_GOLD, C_THEFT, C_GTHEFT, C_P, C_M, C_S, C_NC, C_HAND, C_DRAW, C_EOT, C_LIMIT, C_TO_END,
 C_MAX_THEFTS, C_PROTECT, C_DEF_ASSET, C_DEF_TARGETED, C_GG_PAIR, C_COMPULSORY, C_PAIR_ONLY, C_SINGLE_GOLD,
 C_TARGET_VALUE, C_MAX_TURNS, C_GOLD_VALUE, C_A_FIRST, C_A_BUILD, C_A_THEFT, C_A_END, C_A_DISC, C_A_CANCEL,
 C_A_GIVE, C_A_PASS, C_A_GOLD, C_A, C_PAIRS, C_PER_CARD) = range(37)
N_CFG = 37
#: ``end_of_turn`` (R-T-TURN *choice*) as ``cfg[C_EOT]``.
EOT_DISCARD_DOWN, EOT_DRAW_UP, EOT_KEEP = 0, 1, 2
_EOT = {"discard_down": EOT_DISCARD_DOWN, "discard_and_draw_up": EOT_DRAW_UP, "keep": EOT_KEEP}

#: Slots of the per-type arrays of the constants (T <= numbers + 3 <= 63).
T_SLOTS = 64

#: The NumPy record type of the constants ``K`` (every rule set shares it: one compiled kernel).
CONSTS_DTYPE = np.dtype([("cfg", np.int64, (N_CFG,)), ("values", np.int64, (T_SLOTS,)),
                         ("counts", np.int64, (T_SLOTS,)), ("lay", np.int64, (N_LAYOUT,))], align=True)

#: The type of the rule constants ``K`` (:func:`make_consts`).
Consts = np.record
CONSTS_FIELDS = """Rule-derived constants shared by every row: one NumPy record (:data:`CONSTS_DTYPE`).

cfg: (N_CFG,) int64 — sizes, options (0/1 for booleans) and the first id of each action block, indexed
    by the ``C_*`` constants (``C_A`` is A, the action-space size; ``C_A_GOLD == C_A`` when the
    ``cancel_gold`` block is empty).
values: (T_SLOTS,) int64 — points of each card type (R-T-END: numbers at face value, gold ``gold_value``,
    thefts 0), the first T meaningful.
counts: (T_SLOTS,) int64 — copies of each card type in the deck (R-T-DECK).
lay: (N_LAYOUT,) int64 — block starts of a row (module docstring); ``lay[B_SIZE]`` = W.
"""


def layout(p: int, t: int, nc: int, s: int) -> np.ndarray:
    """(N_LAYOUT,) int64 block starts of a row for P seats, T card types, NC cards and S asset slots per seat."""
    sizes = {"P": p, "PT": p * t, "N": nc, "T": t, "PS4": p * s * A_WORDS}
    out = np.zeros(N_LAYOUT, np.int64)
    pos = N_SCALARS
    for _name, (blk, shape) in sorted(BLOCKS.items(), key=lambda kv: kv[1][0]):
        out[blk] = pos
        pos += sizes[shape]
    out[B_SIZE] = pos
    return out


def make_consts(rules: TheftRuleSet, n_players: int) -> Consts:
    """The constants record (:data:`CONSTS_FIELDS`) of ``rules`` at ``n_players`` seats.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules`` (:meth:`TheftRuleSet.check_table`).
    """
    rules.check_table(n_players)
    sp = TheftActionSpace.for_rules(rules)
    t = rules.n_types
    cfg = np.zeros(N_CFG, np.int64)
    cfg[C_N], cfg[C_T], cfg[C_GOLD], cfg[C_THEFT], cfg[C_GTHEFT] = rules.numbers, t, rules.gold, rules.theft, \
        rules.gold_theft
    cfg[C_P], cfg[C_M], cfg[C_S], cfg[C_NC] = n_players, rules.max_players, rules.max_assets, rules.n_cards
    cfg[C_HAND], cfg[C_DRAW], cfg[C_EOT], cfg[C_LIMIT] = rules.hand_size, rules.draw_per_turn, \
        _EOT[rules.end_of_turn], rules.hand_limit
    cfg[C_TO_END], cfg[C_MAX_THEFTS] = rules.assets_to_end, rules.max_thefts_per_turn
    cfg[C_PROTECT], cfg[C_DEF_ASSET] = int(rules.protect_last_asset), int(rules.defend_with_asset)
    cfg[C_DEF_TARGETED], cfg[C_GG_PAIR] = int(rules.defend_with_targeted_asset), int(rules.gold_gold_pair)
    cfg[C_COMPULSORY], cfg[C_PAIR_ONLY] = int(rules.compulsory_defence), int(rules.give_up_pair_only)
    cfg[C_SINGLE_GOLD] = int(rules.gold_theft_cancel == "single_gold")
    cfg[C_TARGET_VALUE] = int(rules.cancel_pair_value == "target_value")
    cfg[C_MAX_TURNS], cfg[C_GOLD_VALUE] = rules.max_turns, rules.gold_value
    st = sp.start
    cfg[C_A_FIRST], cfg[C_A_BUILD], cfg[C_A_THEFT], cfg[C_A_END] = (st["first_asset"], st["build"], st["theft"],
                                                                    st["end_turn"])
    cfg[C_A_DISC], cfg[C_A_CANCEL], cfg[C_A_GIVE], cfg[C_A_PASS] = (st["discard"], st["cancel_pair"],
                                                                    st["give_up_asset"], st["let_pass"])
    cfg[C_A_GOLD], cfg[C_A] = st["cancel_gold"], sp.size
    cfg[C_PAIRS], cfg[C_PER_CARD] = 2 * rules.numbers + 1, (rules.max_players - 1) * rules.max_assets
    k = np.zeros(1, CONSTS_DTYPE).view(np.recarray)[0]
    k.cfg[:] = cfg
    k.values[:t] = rules.values
    k.counts[:t] = rules.counts
    k.lay[:] = layout(n_players, t, rules.n_cards, rules.max_assets)
    return k


def row_width(k: Consts) -> int:
    """W, the int64 elements of one game row."""
    return int(k.lay[B_SIZE])


def field_view(k: Consts, rows: np.ndarray, name: str) -> np.ndarray:
    """A named field of the rows ``(B, W)`` (or one row ``(W,)``) as a NumPy view (writes go through).

    Scalars give ``(B,)``; blocks ``(B, P)``, ``(B, P, T)``, ``(B, NC)``, ``(B, T)`` or, for ``assets``,
    ``(B, P, S, 4)`` (without the leading B for one row). All int64.

    Raises:
        KeyError: ``name`` is not a scalar of :data:`SCALARS` nor a block of :data:`BLOCKS`.
    """
    if name in SCALARS:
        return rows[..., SCALARS[name]]
    blk, shape = BLOCKS[name]
    cfg = k.cfg
    p, t, s = int(cfg[C_P]), int(cfg[C_T]), int(cfg[C_S])
    dims = {"P": (p,), "PT": (p, t), "N": (int(cfg[C_NC]),), "T": (t,), "PS4": (p, s, A_WORDS)}[shape]
    start = int(k.lay[blk])
    size = int(np.prod(dims))
    return rows[..., start:start + size].reshape(rows.shape[:-1] + dims)
