"""The compiled game representation: one game is one row of int64 with named offsets.

One layout serves every compiled user of the rules: the batched engine keeps B
games as the rows of a ``(B, W)`` int64 array, and the search keeps its
observation template, a determinization and the game a simulation plays as
``(W,)`` rows of the same layout. The rule kernels (:mod:`.rules`) take one row
``G`` and the constants ``K`` (a :class:`Consts`), so both run the same code,
and copying a game is one ``memcpy``.

Scalars sit at the fixed offsets ``G_*``; blocks start at ``K.lay[B_*]``
(they depend on the table size P, card types T, cards in play N, set slots S
and challenge cards CAP). ``K.lay[B_SIZE]`` is W, the row width.

Blocks (element meaning; dollars for values):

* per seat (P each): ``B_HCOUNT`` hand size, ``B_STOP`` top set slot (-1: empty stack),
  ``B_SLEN`` sets in the stack, ``B_SVAL`` stack value (the round score, R-SCORE),
  ``B_TOTAL`` running total (R-SCORE), ``B_PLAYED`` played a card this turn (R-REFILL),
  ``B_RWINS`` rounds won (R-GAME-END ``round_wins``), ``B_GAVEUP`` the public give-up
  record as a bitmask over card types (bit c: the seat gave up a challenge over asset
  type c and has drawn no card since; RULES.md §10);
* ``B_HANDS`` (P*T) cards of each type in each hand, seat-major;
* ``B_DECK`` (N) this round's shuffled cards, the draw pile being ``deck[draw_pos:]``;
  ``B_DISC`` (N) the discard pile, bottom first;
* per set slot (S each; the pool is reset each round, R-NEW-ROUND): ``B_SASSET`` asset
  type, ``B_SVALUE`` value, ``B_SCARD0`` first (bottom) card — under R-HIDDEN-WILD the only
  card that can be hidden —, ``B_SKNOWN0`` bitmask of the seats that know it,
  ``B_SBELOW`` the slot beneath it in its stack (-1: bottom), ``B_SSIZE`` cards;
  ``B_SCOUNTS`` (S*T) cards of each type in each set, slot-major;
* ``B_CHCARDS``, ``B_CHPLAYERS`` (CAP each) challenge cards shown in order and who showed each;
* ``B_ADV_REMOVED`` (T) cards of each type that left the game this round (Swap and Move, RULES.md §6).

The advanced rules (§6) add the scalars ``G_ADV_*`` and the constants ``C_ADV_*`` (appended after the
classic ones, so the classic offsets do not move); their code is :mod:`.advanced`.

* ``B_DRAFT_LEN`` (D, the draft piles; 0 without a draft) cards left in each draft pile
  (R-2P-DRAFT, R-3P-DRAFT). Pile j's cards are ``deck[j * size : j * size + len_j]`` (the piles
  are dealt first), its top the last of them.

Draft scalars (after the §6 ones; 0 without a draft): ``G_DRAFT_OFFER`` 1 + the seat asked now whether it opens the
immediate challenge of a freshly drafted set (0: no such decision), ``G_DRAFT_OFFER2`` 1 + the
seat asked next (0: none), ``G_DRAFT_DOWN`` bitmask of the piles whose next card is not
turned up yet (:mod:`cya_sim.engine.classic.draft`). With the §6 cards: ``G_DRAFT_MOVE`` 1 + the
seat whose stack a Move turned up on a draft pile moves (0: no such choice; the seat choosing is
``G_TO_ACT``), ``G_DRAFT_THEN0``/``G_DRAFT_THEN1`` 1 + the seats that draw (R-REFILL, in order) once
the piles are turned up after that choice (0: none).

* ``B_SEEN_PUBLIC`` (T) cards of each type out of every hand and seen by every seat (the discard
  pile, the challenge cards, face-up set cards); ``B_SEEN_PRIVATE`` (P*T, seat-major) cards out of the
  seat's hand that the seat has seen and some seat has not (set cards laid face down, the hidden card
  of a stolen set). A seat's unseen cards of type c (RULES.md §10 "unseen"; R-HIDDEN-WILD says what
  stays hidden) are ``deck_counts[c] - hands[s, c] - seen_public[c] - seen_private[s, c]``, with no
  recount: the rules kernel keeps both blocks (:func:`cya_sim.engine.classic.seen.reveal` at every
  event that takes a card out of a hand or shows a card; cleared by
  :func:`~cya_sim.engine.classic.kernel.start_round`), and
  :func:`~cya_sim.engine.classic.seen.recount_seen` rebuilds them for rows written from outside
  (the search's determinizations).
"""

from __future__ import annotations

import numpy as np

from cya_sim.game.classic.actions import ActionSpace
from cya_sim.game.rules import RuleSet

# -- scalars of a row ------------------------------------------------------------------------------
(G_TO_ACT, G_CUR, G_DEALER, G_ROUND, G_DRAW_POS, G_DISC_LEN, G_N_SETS, G_CH_ACTIVE,
 G_CH_CHAL, G_CH_DEF, G_CH_ASSET, G_CH_LEN, G_DONE, G_WINNERS, G_ELIGIBLE, G_EXTRA,
 G_FIRST_DEALER, G_TURNS, G_CHALLENGES, G_DECISIONS, G_LARGEST_STEAL, G_ROUND_AUDIT, G_GAME_INDEX,
 G_QUEUE_POS, G_CAPPED) = range(25)
# The advanced rules (RULES.md §6; all 0 in rows of rules without them): actions left this turn
# (R-ADV-TWO), 1 + the seat the mover may not challenge again (0: none), the contested set's depth
# (0 top, 1 second from the top, R-ADV-DEEP), cards owed by the seat to act (0 or 1: one; 2: two,
# R-ADV-PENNY/R-ADV-DEEP), seats challenged this turn (count, first, second; R-REFILL at the end of
# a two-action turn).
(G_ADV_LEFT, G_ADV_NO_CH, G_ADV_DEPTH, G_ADV_OWED, G_ADV_NDEF, G_ADV_DEF0, G_ADV_DEF1) = range(25, 32)
# The drafts (§7; module docstring).
(G_DRAFT_OFFER, G_DRAFT_OFFER2, G_DRAFT_DOWN) = range(32, 35)
# The drafts with the §6 cards (module docstring).
(G_DRAFT_MOVE, G_DRAFT_THEN0, G_DRAFT_THEN1) = range(35, 38)
N_SCALARS = 38
#: Meaning of each scalar (name -> offset), for readers and the batched engine's named views.
SCALARS = {
    "to_act": G_TO_ACT, "current_player": G_CUR, "dealer": G_DEALER, "round": G_ROUND,
    "draw_pos": G_DRAW_POS, "discard_len": G_DISC_LEN, "n_sets": G_N_SETS, "ch_active": G_CH_ACTIVE,
    "ch_challenger": G_CH_CHAL, "ch_defender": G_CH_DEF, "ch_asset": G_CH_ASSET, "ch_len": G_CH_LEN,
    "done": G_DONE, "winners": G_WINNERS, "eligible": G_ELIGIBLE, "extra_rounds": G_EXTRA,
    "first_dealer": G_FIRST_DEALER, "turns": G_TURNS, "challenges": G_CHALLENGES, "decisions": G_DECISIONS,
    "largest_steal": G_LARGEST_STEAL, "round_audit": G_ROUND_AUDIT, "game_index": G_GAME_INDEX,
    "queue_pos": G_QUEUE_POS, "capped": G_CAPPED,
    "adv_actions_left": G_ADV_LEFT, "adv_no_challenge1": G_ADV_NO_CH, "adv_ch_depth": G_ADV_DEPTH,
    "adv_ch_owed": G_ADV_OWED, "adv_n_defenders": G_ADV_NDEF, "adv_defender0": G_ADV_DEF0,
    "adv_defender1": G_ADV_DEF1,
    "draft_offer": G_DRAFT_OFFER, "draft_offer2": G_DRAFT_OFFER2, "draft_down": G_DRAFT_DOWN,
    "draft_move": G_DRAFT_MOVE, "draft_then0": G_DRAFT_THEN0, "draft_then1": G_DRAFT_THEN1,
}

# -- blocks: indices into K.lay ------------------------------------------------------------------
(B_HCOUNT, B_STOP, B_SLEN, B_SVAL, B_TOTAL, B_PLAYED, B_RWINS, B_GAVEUP, B_HANDS, B_DECK, B_DISC,
 B_SASSET, B_SVALUE, B_SCARD0, B_SKNOWN0, B_SBELOW, B_SSIZE, B_SCOUNTS, B_CHCARDS, B_CHPLAYERS,
 B_ADV_REMOVED, B_DRAFT_LEN, B_SEEN_PUBLIC, B_SEEN_PRIVATE, B_SIZE) = range(25)
N_LAYOUT = 25
#: Name, block index and shape (in the letters P, T, N, S, CAP) of each block.
BLOCKS = {
    "hand_count": (B_HCOUNT, "P"), "stack_top": (B_STOP, "P"), "stack_len": (B_SLEN, "P"),
    "stack_value": (B_SVAL, "P"), "totals": (B_TOTAL, "P"), "played": (B_PLAYED, "P"),
    "round_wins": (B_RWINS, "P"), "gave_up_mask": (B_GAVEUP, "P"), "hands": (B_HANDS, "PT"),
    "deck_order": (B_DECK, "N"), "discard": (B_DISC, "N"), "set_asset": (B_SASSET, "S"),
    "set_value": (B_SVALUE, "S"), "set_card0": (B_SCARD0, "S"), "set_known0": (B_SKNOWN0, "S"),
    "set_below": (B_SBELOW, "S"), "set_size": (B_SSIZE, "S"), "set_counts": (B_SCOUNTS, "ST"),
    "ch_cards": (B_CHCARDS, "C"), "ch_players": (B_CHPLAYERS, "C"),
    "adv_removed": (B_ADV_REMOVED, "T"),
    "draft_len": (B_DRAFT_LEN, "D"),
    "seen_public": (B_SEEN_PUBLIC, "T"), "seen_private": (B_SEEN_PRIVATE, "PT"),
}

# -- indices into Consts.cfg -----------------------------------------------------------------------
C_NA, C_NW, C_T, C_M, C_P, C_HAND, C_ORDER, C_HIDDEN = 0, 1, 2, 3, 4, 5, 6, 7
C_END_KIND, C_END_PARAM, C_TARGET, C_TIE, C_MAX_EXTRA, C_N, C_S, C_CAP = 8, 9, 10, 11, 12, 13, 14, 15
C_A, C_W, C_PD, C_CH, C_DI, C_RE, C_GU, C_LOG = 16, 17, 18, 19, 20, 21, 22, 23
C_MAX_ROUNDS = 24  # RuleSet.max_rounds: a game still going after this round stops (G_CAPPED set)
# The advanced rules (§6): any §6 block on; actions per turn; Swap, Move, Penny Jar ids (-1: none);
# the first action card id (na + nw: ids at or above it are action cards); deep_challenge_costs
# (0 two_for_one, 1 one_for_one); first ids of the end_turn, improve, swap, move, deep_challenge,
# respond_two blocks and the end of the action space (a block is empty when its start equals the
# next one); Q pay-two pairs; two-card plays possible.
(C_ADV_ON, C_ADV_TWO, C_ADV_SWAP, C_ADV_MOVE, C_ADV_PENNY, C_ADV_FIRST_ACT, C_ADV_DEEP_COST, C_ADV_ET,
 C_ADV_IM, C_ADV_SW, C_ADV_MV, C_ADV_DC, C_ADV_R2, C_ADV_END, C_ADV_Q, C_ADV_PAY2) = range(25, 41)
# Drafts (§7): layout (DRAFT_NONE/SHARED/NEIGHBOURS), piles, cards per pile, first ids of the draft blocks.
C_DRAFT, C_DRAFT_PILES, C_DRAFT_SIZE, C_DRAFT_TAKE, C_DRAFT_WILD, C_DRAFT_CH, C_DRAFT_DEC = range(41, 48)
# The first id of the draft_move block (§7 with §6; equals A, the action-space size, when the block is empty).
C_DRAFT_MV = 48
N_CFG = 49
DRAFT_NONE, DRAFT_SHARED, DRAFT_NEIGHBOURS = 0, 1, 2
_DRAFTS = {"none": DRAFT_NONE, "shared": DRAFT_SHARED, "neighbours": DRAFT_NEIGHBOURS}

END_TARGET, END_ROUNDS, END_ROUND_WINS = 0, 1, 2
TIE_SHARE, TIE_EXTRA = 0, 1
ORDER_LOSER_FIRST, ORDER_MOVER_FIRST = 0, 1
_ENDS = {"target": END_TARGET, "rounds": END_ROUNDS, "round_wins": END_ROUND_WINS}


#: Most card types in a deck the batched engine plays (its compiled agents keep a hand as a 64-bit
#: mask of card types); larger decks play on the reference engine.
MAX_BATCHED_CARD_TYPES = 62


def batched_refusal(rules) -> str:
    """Why the batched engine cannot play ``rules`` (a deck of too many card types), or "" if it can."""
    n = rules.deck.n_types
    if n > MAX_BATCHED_CARD_TYPES:
        return (f"deck {rules.deck.name!r} has {n} card types; the batched engine takes at most "
                f"{MAX_BATCHED_CARD_TYPES}")
    return ""

#: Slots of the per-type arrays of :data:`Consts` (at least ``MAX_BATCHED_CARD_TYPES``, 62).
T_SLOTS = 64
#: Smallest sizes of the ``deck0`` and ``act_hi``/``act_lo`` slots: every preset (and every deck of up to
#: 512 cards and 512 action ids) shares one record type, so one compiled kernel.
MIN_SLOTS = 512


def consts_dtype(a_slots: int = MIN_SLOTS, n_slots: int = MIN_SLOTS) -> np.dtype:
    """The NumPy record type of :data:`Consts` with ``a_slots`` action and ``n_slots`` card slots.

    A record is passed to compiled code as one pointer (numba's ``Record`` model), where a tuple of
    arrays would be passed as seven words per array: the kernel's calls stay cheap without inlining.
    Sizes are rounded up to powers of two from :data:`MIN_SLOTS`, so rule sets share a
    type (one compile) unless a custom deck needs more slots.
    """
    i8 = np.int64
    return np.dtype([("cfg", i8, (N_CFG,)), ("values", i8, (T_SLOTS,)), ("deck0", i8, (n_slots,)),
                     ("deck_counts", i8, (T_SLOTS,)), ("wild_order", i8, (T_SLOTS,)),
                     ("discard_order", i8, (T_SLOTS,)), ("act_hi", i8, (a_slots,)), ("act_lo", i8, (a_slots,)),
                     ("lay", i8, (N_LAYOUT,))], align=True)


#: The record type of every preset's constants (:func:`consts_dtype` at its smallest sizes).
CONSTS_DTYPE = consts_dtype()


def _slots(n: int) -> int:
    return max(MIN_SLOTS, 1 << max(0, int(n) - 1).bit_length())


#: The type of the rule constants ``K`` (:func:`make_consts`; fields in :data:`CONSTS_FIELDS`).
Consts = np.record
CONSTS_FIELDS = """Rule-derived constants shared by every row (the rules as data, compiled): one NumPy record
(:func:`consts_dtype`), a ``numpy.record`` with the fields below as attributes. Arrays have fixed slot
counts; only the first entries are meaningful (T types, N cards, A action ids; the rest is 0).

cfg: (N_CFG,) int64 — sizes and options, indexed by the ``C_*`` constants.
values: (T_SLOTS,) int64 — face value of each card type in dollars (R-DECK-2011), the first T meaningful.
deck0: (n_slots,) int64 — every card in play in type-id order (R-DECK-MULTI), before shuffling (first N).
deck_counts: (T_SLOTS,) int64 — copies of each type in play.
wild_order: (T_SLOTS,) int64 — wild type ids by (value, id), the greedy agent's order (first nW).
discard_order: (T_SLOTS,) int64 — type ids by (is wild, value, id), the greedy agent's discard order.
act_hi, act_lo: (a_slots,) int64 — action decoding without integer division: for ``pair_hand`` ids the
    asset and the partner index k (0 = a second asset, else wild k-1); for ``challenge`` ids the
    offset (1..M-1) and k; for ``swap`` the offset; for ``move`` the offset (0..M-1) and the
    direction (0 top to bottom, 1 bottom to top); for ``deep_challenge`` the offset and
    ``64 * k1 + k2`` (-1: a Penny Jar alone); for ``respond_two`` k1 and k2;
    for ``draft_take`` the hand asset and k (0 = the face-up tops of its
    type, else face-up wild k-1); for ``draft_wild`` the named asset and the hand wild's k; for
    ``draft_challenge`` 0 and k; 0 for other ids.
lay: (N_LAYOUT,) int64 — block starts of a row (module docstring); ``lay[B_SIZE]`` = W.
"""


def layout(p: int, t: int, n: int, s: int, cap: int, d: int = 0) -> np.ndarray:
    """(N_LAYOUT,) int64 block starts of a row for P seats, T types, N cards, S set slots, CAP challenge
    cards and D draft piles (0 without a draft)."""
    sizes = {"P": p, "PT": p * t, "N": n, "S": s, "ST": s * t, "C": cap, "T": t, "D": d}
    out = np.zeros(N_LAYOUT, np.int64)
    pos = N_SCALARS
    for _name, (blk, shape) in sorted(BLOCKS.items(), key=lambda kv: kv[1][0]):
        out[blk] = pos
        pos += sizes[shape]
    out[B_SIZE] = pos
    return out


def consts_dtype_for(rules: RuleSet, n_players: int) -> np.dtype:
    """The record type of :func:`make_consts` ``(rules, n_players)`` (:func:`consts_dtype` sized for its action space
    and its cards in play), without building the record."""
    return consts_dtype(_slots(ActionSpace.for_rules(rules).size), _slots(int(rules.deck_counts(n_players).sum())))


def make_consts(rules: RuleSet, n_players: int) -> Consts:
    """The constants record (:data:`CONSTS_FIELDS`) of ``rules`` at ``n_players`` seats.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``, or too few cards to deal at that size
            (:meth:`~cya_sim.game.rules.RuleSet.check_table`).
        ValueError: the deck has more than :data:`MAX_BATCHED_CARD_TYPES` card types (the give-up
            record and the compiled agents keep a set of card types as a 64-bit mask); such decks play on the
            reference engine.
    """
    rules.check_table(n_players)
    hand = rules.hand_size_for(n_players)
    deck = rules.deck
    why = batched_refusal(rules)
    if why:
        raise ValueError(f"{why} (play it with engine='reference')")
    sp = ActionSpace.for_rules(rules)
    counts = rules.deck_counts(n_players)
    values = deck.values.astype(np.int64)
    na, nw, t = deck.n_assets, deck.n_wilds, deck.n_types
    n = int(counts.sum())
    cap = int(counts[:na].max() + counts[na:].sum())
    cfg = np.zeros(N_CFG, np.int64)
    cfg[C_NA], cfg[C_NW], cfg[C_T] = na, nw, t
    cfg[C_M], cfg[C_P], cfg[C_HAND] = rules.max_players, n_players, hand
    cfg[C_ORDER] = ORDER_LOSER_FIRST if rules.challenge_draw_order == "loser_first" else ORDER_MOVER_FIRST
    cfg[C_HIDDEN] = int(rules.hidden_wilds)
    cfg[C_END_KIND], cfg[C_END_PARAM] = _ENDS[rules.end_kind], rules.end_param
    cfg[C_TARGET] = rules.target_score
    cfg[C_TIE] = TIE_SHARE if rules.tie_break == "share" else TIE_EXTRA
    cfg[C_MAX_EXTRA] = rules.max_extra_rounds
    cfg[C_MAX_ROUNDS] = rules.max_rounds
    cfg[C_N], cfg[C_S], cfg[C_CAP] = n, n // 2 + 1, cap
    cfg[C_A], cfg[C_W] = sp.size, 1 + nw
    st = sp.start
    cfg[C_PD], cfg[C_CH], cfg[C_DI] = st["pair_discard"], st["challenge"], st["discard"]
    cfg[C_RE], cfg[C_GU] = st["respond"], st["give_up"]
    n_piles = rules.draft_piles if rules.draft != "none" else 0
    cfg[C_DRAFT], cfg[C_DRAFT_PILES], cfg[C_DRAFT_SIZE] = _DRAFTS[rules.draft], n_piles, rules.draft_pile_size
    cfg[C_DRAFT_TAKE], cfg[C_DRAFT_WILD] = st["draft_take"], st["draft_wild"]
    cfg[C_DRAFT_CH], cfg[C_DRAFT_DEC] = st["draft_challenge"], st["draft_decline"]
    cfg[C_DRAFT_MV] = st["draft_move"]
    ids = rules.advanced_ids
    cfg[C_ADV_ON] = int(sp.advanced_on)
    cfg[C_ADV_TWO] = rules.actions_per_turn
    cfg[C_ADV_SWAP], cfg[C_ADV_MOVE], cfg[C_ADV_PENNY] = ids.swap, ids.move, ids.penny
    cfg[C_ADV_FIRST_ACT] = na + nw
    cfg[C_ADV_DEEP_COST] = int(rules.deep_challenge_costs == "one_for_one")
    cfg[C_ADV_ET], cfg[C_ADV_IM], cfg[C_ADV_SW] = st["end_turn"], st["improve"], st["swap"]
    cfg[C_ADV_MV], cfg[C_ADV_DC], cfg[C_ADV_R2] = st["move"], st["deep_challenge"], st["respond_two"]
    cfg[C_ADV_END] = st["draft_take"]  # the draft blocks (§7) follow the §6 ones
    cfg[C_ADV_Q] = len(sp.pay_two_pairs)
    cfg[C_ADV_PAY2] = int(sp.pay_two_on)
    deck0 = np.repeat(np.arange(t, dtype=np.int64), counts)
    wild_order = np.array(sorted(range(na, t), key=lambda x: (values[x], x)), np.int64)
    discard_order = np.array(sorted(range(t), key=lambda c: (c >= na, values[c], c)), np.int64)
    act_hi = np.zeros(sp.size, np.int64)
    act_lo = np.zeros(sp.size, np.int64)
    for a in range(sp.size):
        d = sp.decode(a)
        k = 0 if d.partner < 0 else d.partner - na + 1
        if d.kind == "pair_hand":
            act_hi[a], act_lo[a] = d.card, k
        elif d.kind == "challenge":
            act_hi[a], act_lo[a] = d.offset, k
        elif d.kind == "draft_take":
            act_hi[a], act_lo[a] = d.card, k
        elif d.kind == "draft_wild":
            act_hi[a], act_lo[a] = d.card, d.partner - na + 1
        elif d.kind == "draft_challenge":
            act_lo[a] = k
        elif d.kind == "swap":
            act_hi[a] = d.offset
        elif d.kind == "move":
            act_hi[a], act_lo[a] = d.offset, int(d.direction == "bottom_to_top")
        elif d.kind in ("deep_challenge", "respond_two"):
            k1 = 0 if d.partner < 0 else d.partner - na + 1
            k2 = 0 if d.second < 0 else d.second - na + 1
            if d.kind == "respond_two":
                act_hi[a], act_lo[a] = k1, k2
            else:
                act_hi[a], act_lo[a] = d.offset, -1 if d.second == -2 else 64 * k1 + k2
    lay = layout(n_players, t, n, n // 2 + 1, cap, n_piles)
    k = np.zeros(1, consts_dtype_for(rules, n_players)).view(np.recarray)[0]
    k.cfg[:] = cfg
    k.values[:t] = values
    k.deck0[:n] = deck0
    k.deck_counts[:t] = counts
    k.wild_order[:len(wild_order)] = wild_order
    k.discard_order[:t] = discard_order
    k.act_hi[:sp.size] = act_hi
    k.act_lo[:sp.size] = act_lo
    k.lay[:] = lay
    return k


def row_width(k: Consts) -> int:
    """W, the int64 elements of one game row."""
    return int(k.lay[B_SIZE])


def field_view(k: Consts, rows: np.ndarray, name: str) -> np.ndarray:
    """A named field of the rows ``(B, W)`` (or one row ``(W,)``) as a NumPy view (writes go through).

    Scalars give ``(B,)``; blocks ``(B, P)``, ``(B, P, T)``, ``(B, N)``, ``(B, S)``, ``(B, S, T)`` or
    ``(B, CAP)`` (without the leading B for one row). All int64.

    Raises:
        KeyError: ``name`` is not a scalar of :data:`SCALARS` nor a block of :data:`BLOCKS`.
    """
    if name in SCALARS:
        return rows[..., SCALARS[name]]
    blk, shape = BLOCKS[name]
    cfg = k.cfg
    p, t = int(cfg[C_P]), int(cfg[C_T])
    dims = {"P": (p,), "PT": (p, t), "N": (int(cfg[C_N]),), "S": (int(cfg[C_S]),),
            "ST": (int(cfg[C_S]), t), "C": (int(cfg[C_CAP]),), "T": (t,), "D": (int(cfg[C_DRAFT_PILES]),)}[shape]
    start = int(k.lay[blk])
    size = int(np.prod(dims))
    return rows[..., start:start + size].reshape(rows.shape[:-1] + dims)


def gave_up(k: Consts, rows: np.ndarray) -> np.ndarray:
    """(B, P, T) bool copy of the public give-up record of the rows (bit c of ``gave_up_mask``, RULES.md §10)."""
    t = int(k.cfg[C_T])
    return ((field_view(k, rows, "gave_up_mask")[..., None] >> np.arange(t)) & 1).astype(bool)


#: Fields read from the rows as copies, not views (the batched state's ``state.gave_up``).
DERIVED = {"gave_up": gave_up}
