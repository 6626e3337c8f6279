"""``heuristic``: one configurable policy whose switches are the rulebook tips (TIPS.md).

With every switch at its default the policy plays exactly like ``greedy``;
``wild_hoarder`` is ``heuristic(wild_for_sets=false, save_wild=true)``. So
"the same policy with and without tip X" is one configuration change.

The decision function :func:`heuristic_decide` is plain Python over the
agent view (:mod:`agents.classic.view`), compiled by numba; the batched engine and
the single-game form :class:`HeuristicAgent` call the same compiled function.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

import numpy as np
from numba import njit

from agents.classic.advanced import advanced_first, advanced_last
from agents.classic.probability import p_holds_none
from agents.classic.view import (
    H_ADV,
    H_CH_ACTIVE,
    H_CH_DEFENDER,
    H_CH_POT_VALUE,
    H_DRAFT_MOVER,
    H_DRAFT_OFFER,
    H_DRAFT_TOPS,
    H_DRAW,
    H_NA,
    H_NW,
    H_P,
    H_SEAT,
    H_TOP_DISCARD,
    S_HAND_SIZE,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_VALUE_SEEN,
    action_starts,
    build_view,
    draft_starts,
)
from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.engine.intrinsics import cttz

# Indices into the float64 parameter vector (HeuristicConfig.to_array).
(P_FAST_FIRST, P_FIRST_SET_MIN, P_COVER, P_COVER_MIN, P_PAIR_FIRST, P_BACKUP, P_COUNT, P_SAVE_WILD,
 P_WILD_FIRST, P_LET_GO, P_LET_GO_MAX, P_WILD_SETS, P_WILD_CHALLENGES, P_WILD_DEFENCE) = range(14)
N_PARAMS = 14


@dataclass(frozen=True)
class HeuristicConfig:
    """Switches of the ``heuristic`` policy; the defaults give exactly ``greedy``.

    Attributes:
        fast_first: TIP-FAST-FIRST. True: lay the first set as soon as one can
            be laid. False: lay a first set only when it is worth at least
            ``first_set_min`` dollars (or the draw pile is empty).
        first_set_min: dollars, the smallest first set when ``fast_first`` is off.
        cover: TIP-COVER. When the own top set is worth at least ``cover_min``
            dollars, laying a set comes before challenging.
        cover_min: dollars.
        pair_first: lay a set whenever one can be laid (greedy's order). False:
            challenge instead when the best reachable top set is worth more
            than the best set in hand.
        backup: TIP-BACKUP. Challenge only holding at least two cards that can
            be played in that challenge (matching assets and usable wilds).
        count: TIP-COUNT. Rank the sets one could lay by value times the
            chance that no opponent who can challenge holds a matching card
            or wild (hypergeometric over the unseen cards, opponents taken
            independently); a first set cannot be stolen and keeps its value.
        save_wild: TIP-SAVE-WILD. Never spend the last wild in hand (in a set,
            a challenge or a defence) while the draw pile has cards.
        wild_first: TIP-WILD-FIRST. With no set yet and a wild in hand, make the
            first set the most valuable asset-plus-wild pair from the hand.
        let_go: TIP-LET-GO. As defender, give up without answering when the
            contested set plus the cards shown is worth less than ``let_go_max``.
        let_go_max: dollars.
        wild_for_sets, wild_for_challenges, wild_for_defence: TIP-WILD-USE, the
            three uses of a wild; False forbids that use (a wild taken from the
            discard pile costs no hand card and is always allowed).
    """

    fast_first: bool = True
    first_set_min: int = 30_000
    cover: bool = False
    cover_min: int = 40_000
    pair_first: bool = True
    backup: bool = False
    count: bool = False
    save_wild: bool = False
    wild_first: bool = False
    let_go: bool = False
    let_go_max: int = 20_000
    wild_for_sets: bool = True
    wild_for_challenges: bool = True
    wild_for_defence: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if f.type in ("bool", bool):
                if not isinstance(v, bool):
                    raise ValueError(f"heuristic parameter {f.name!r} is {v!r}; choose one of: true, false")
            elif not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ValueError(f"heuristic parameter {f.name!r} is {v!r}; it must be an integer >= 0 (dollars)")

    def to_array(self) -> np.ndarray:
        """(N_PARAMS,) float64 in the ``P_*`` order, for :func:`heuristic_decide`."""
        d = asdict(self)
        order = ["fast_first", "first_set_min", "cover", "cover_min", "pair_first", "backup", "count", "save_wild",
                 "wild_first", "let_go", "let_go_max", "wild_for_sets", "wild_for_challenges", "wild_for_defence"]
        return np.array([float(d[k]) for k in order], np.float64)


@njit(cache=True, _nrt=False)
def _cheapest_wild(hand, values, na, nw):
    """Type id of the cheapest wild in hand (ties: lowest id), -1 if none."""
    best, best_v = -1, 0
    for k in range(nw):
        wd = na + k
        if hand[wd] > 0 and (best < 0 or values[wd] < best_v):
            best, best_v = wd, values[wd]
    return best


@njit(cache=True, _nrt=False)
def _wilds_in_hand(hand, na, nw):
    """Number of wild cards in hand."""
    n = 0
    for k in range(nw):
        n += hand[na + k]
    return n


@njit(cache=True, _nrt=False)
def _pair_info(a, hdr, values, pd, w):
    """(dollars, asset type, spends a hand wild) of the set laid by pair action ``a`` (< challenge block).

    R-PAIR-HAND ids below ``pd``: the asset with a second one or a wild beneath.
    R-PAIR-DISCARD ids: the top discard card with a hand card; the set's
    asset type is the asset among the two.
    """
    na = hdr[H_NA]
    if a < pd:
        asset = a // w
        k = a % w
        return values[asset] + values[asset if k == 0 else na + k - 1], asset, k > 0
    c = a - pd
    top = hdr[H_TOP_DISCARD]
    return values[top] + values[c], top if top < na else c, c >= na


@njit(cache=True, _nrt=False)
def _draft_info(a, hdr, values, w):
    """(dollars, asset type, spends a hand wild) of the set formed by draft id ``a`` (R-2P-DRAFT).

    ``draft_take`` (hand asset, k): k=0 the asset plus every face-up top of its type within reach
    (``hdr[H_DRAFT_TOPS + asset]``), else the asset plus face-up wild k-1; ``draft_wild``: the hand
    wild plus every face-up top of the named type within reach.
    """
    na = hdr[H_NA]
    dt, dw, _dc, _dd = draft_starts(hdr)
    if a < dw:
        asset = (a - dt) // w
        k = (a - dt) % w
        if k > 0:
            return values[asset] + values[na + k - 1], asset, False
        return values[asset] * (1 + hdr[H_DRAFT_TOPS + asset]), asset, False
    wild = na + (a - dw) // na
    asset = (a - dw) % na
    return values[wild] + values[asset] * hdr[H_DRAFT_TOPS + asset], asset, True


@njit(cache=True, _nrt=False)
def _draft_offer(params, hdr, hand, values, seats, mask):
    """Open the immediate challenge of a drafted set (R-2P-DRAFT) when it may play a card under the
    switches (a matching asset, or a usable wild under TIP-WILD-USE / TIP-SAVE-WILD; TIP-BACKUP wants
    two), as it would open a challenge: a matching asset first, else the cheapest wild; else decline."""
    na, nw = hdr[H_NA], hdr[H_NW]
    _dt, _dw, dc, dd = draft_starts(hdr)
    asset = seats[hdr[H_DRAFT_MOVER], S_TOP_ASSET]
    keep_one = 1 if (params[P_SAVE_WILD] > 0 and hdr[H_DRAW] > 0) else 0
    usable = _wilds_in_hand(hand, na, nw) - keep_one if params[P_WILD_CHALLENGES] > 0 else 0
    playable = hand[asset] + max(usable, 0)
    if playable == 0 or (params[P_BACKUP] > 0 and playable < 2):
        return dd
    return _opening(mask, dc, hand, values, na, nw)


@njit(cache=True, _nrt=False)
def _answer(mask, re, hand, values, na, nw):
    """R-CH-EXCHANGE play: a matching asset when legal, else the cheapest wild in hand."""
    if mask[re]:
        return re
    return re + 1 + _cheapest_wild(hand, values, na, nw) - na


@njit(cache=True, _nrt=False)
def _challenge_allowed(mask, row, w):
    """Whether any opening of the challenge row starting at id ``row`` (``w`` ids) is legal."""
    for k in range(w):
        if mask[row + k]:
            return True
    return False


@njit(cache=True, _nrt=False)
def _opening(mask, row, hand, values, na, nw):
    """The challenge id of row ``row``: a matching asset when legal, else the cheapest wild."""
    if mask[row]:
        return row
    return row + 1 + _cheapest_wild(hand, values, na, nw) - na


@njit(cache=True, _nrt=False)
def _cheapest_discard(hand, values, na, nw, di):
    """R-DISCARD id of the cheapest asset in hand, else of the cheapest wild (ties: lowest id)."""
    best_c, best_wild, best_v = -1, 2, 0
    for c in range(na + nw):
        if hand[c] > 0:
            is_wild = 1 if c >= na else 0
            if best_c < 0 or is_wild < best_wild or (is_wild == best_wild and values[c] < best_v):
                best_c, best_wild, best_v = c, is_wild, values[c]
    return di + best_c


@njit(cache=True, _nrt=False)
def _p_safe(asset, seat, hdr, unseen, seats):
    """Chance that no opponent able to challenge holds an ``asset`` card or a wild (TIP-COUNT)."""
    na, nw = hdr[H_NA], hdr[H_NW]
    n = 0
    for t in range(na + nw):
        n += unseen[t]
    m = unseen[asset]
    for k in range(nw):
        m += unseen[na + k]
    prob = 1.0
    last_h, last_p = -1, 1.0  # equal hand sizes give equal odds: one evaluation each (same numbers)
    for o in range(hdr[H_P]):
        if o != seat and seats[o, S_STACK_LEN] >= 1:
            h = seats[o, S_HAND_SIZE]
            if h != last_h:
                last_h, last_p = h, p_holds_none(n, m, h)
            prob *= last_p
    return prob


@njit(cache=True, _nrt=False)
def set_allowed(params, v, uses_wild, only_hand_wild_pairs, wild_budget, own_sets, draw):
    """Whether the switches ``params`` let the seat lay a legal set worth ``v`` dollars (bool): TIP-WILD-FIRST (only a
    pair of an asset and a hand wild when ``only_hand_wild_pairs``), TIP-WILD-USE (a set spending a hand wild,
    ``uses_wild``, only with ``wild_for_sets``), TIP-SAVE-WILD (``wild_budget``: the wilds in hand less the one it
    keeps; a set with a hand wild needs it above 0), TIP-FAST-FIRST off (a first set, ``own_sets`` 0, worth at least
    ``first_set_min`` while the draw pile, ``draw`` cards, is not empty). Shared by the view and the row forms."""
    if only_hand_wild_pairs and not uses_wild:
        return False
    if uses_wild:
        if params[P_WILD_SETS] <= 0 and not only_hand_wild_pairs:
            return False  # TIP-WILD-USE: no wilds in sets (TIP-WILD-FIRST overrides)
        if wild_budget <= 0:
            return False  # TIP-SAVE-WILD
    return not (own_sets == 0 and params[P_FAST_FIRST] <= 0 and draw > 0 and v < params[P_FIRST_SET_MIN])


@njit(cache=True, _nrt=False)
def _pair_score(a, params, hdr, hand, values, unseen, seats, only_hand_wild_pairs, n_wild, keep_one, own_sets,
                safe_asset, safe_p):
    """(score, safe_asset, safe_p) of legal set id ``a`` for :func:`_best_pair` (with ``only_hand_wild_pairs`` an
    R-PAIR-HAND id); score -1.0 when the switches rule it out (:func:`set_allowed`). ``safe_asset`` / ``safe_p``:
    the TIP-COUNT odds of the last asset asked (a set's odds depend on its asset only), passed on."""
    _ph, pd, _ch, _di, _re, _gu, w = action_starts(hdr)
    dt, _dw, _dc, _dd = draft_starts(hdr)
    if a >= dt:
        v, set_asset, uses_wild = _draft_info(a, hdr, values, w)
    else:
        v, set_asset, uses_wild = _pair_info(a, hdr, values, pd, w)
    if not set_allowed(params, v, uses_wild, only_hand_wild_pairs, n_wild - (1 if keep_one else 0), own_sets,
                       hdr[H_DRAW]):
        return -1.0, safe_asset, safe_p
    score = float(v)
    if params[P_COUNT] > 0 and own_sets >= 1:
        if set_asset != safe_asset:
            safe_asset, safe_p = set_asset, _p_safe(set_asset, hdr[H_SEAT], hdr, unseen, seats)
        score = v * safe_p  # TIP-COUNT
    return score, safe_asset, safe_p


@njit(cache=True, _nrt=False)
def _best_pair(params, hdr, hand, values, unseen, seats, mask, only_hand_wild_pairs):
    """(action id, score) of the best set to lay under the switches; (-1, -1.0) if none.

    The legal ids in ascending order: R-PAIR-HAND, R-PAIR-DISCARD, then the draft takes (§7). A set id is legal only
    with its hand card held (an R-PAIR-HAND id ``a * w + j`` needs asset ``a``, an R-PAIR-DISCARD id ``pd + c``
    card ``c``), so only the ids of the card types held are read from the mask (speed: the mask's ids one by one
    were most of a strategy agent's decision); ties go to the lowest id, a strictly greater score wins.
    """
    ph, pd, ch, _di, _re, _gu, w = action_starts(hdr)
    na = hdr[H_NA]
    n_wild = _wilds_in_hand(hand, na, hdr[H_NW])
    keep_one = params[P_SAVE_WILD] > 0 and hdr[H_DRAW] > 0
    own_sets = seats[hdr[H_SEAT], S_STACK_LEN]
    best, best_score = -1, -1.0
    safe_asset, safe_p = -1, 1.0
    held = 0  # bit c: card type c held
    for c in range(ch - pd):
        held |= (1 if hand[c] > 0 else 0) << c
    todo = held & ((1 << na) - 1)
    while todo != 0:  # R-PAIR-HAND: asset a with a second one (j = 0) or wild j - 1
        a = cttz(todo)
        todo &= todo - 1
        for j in range(w):
            i = ph + a * w + j
            if mask[i]:
                score, safe_asset, safe_p = _pair_score(i, params, hdr, hand, values, unseen, seats,
                                                        only_hand_wild_pairs, n_wild, keep_one, own_sets,
                                                        safe_asset, safe_p)
                if score > best_score:
                    best, best_score = i, score
    if not only_hand_wild_pairs:
        todo = held
        while todo != 0:  # R-PAIR-DISCARD: hand card c with the top discard
            c = cttz(todo)
            todo &= todo - 1
            i = pd + c
            if mask[i]:
                score, safe_asset, safe_p = _pair_score(i, params, hdr, hand, values, unseen, seats, False, n_wild,
                                                        keep_one, own_sets, safe_asset, safe_p)
                if score > best_score:
                    best, best_score = i, score
        dt, _dw, dc, _dd = draft_starts(hdr)
        for i in range(dt, dc):  # the draft takes (§7; none without draft piles)
            if mask[i]:
                score, safe_asset, safe_p = _pair_score(i, params, hdr, hand, values, unseen, seats, False, n_wild,
                                                        keep_one, own_sets, safe_asset, safe_p)
                if score > best_score:
                    best, best_score = i, score
    return best, best_score


@njit(cache=True, _nrt=False)
def heuristic_decide(params, hdr, hand, values, unseen, seats, mask):
    """The ``heuristic`` action id (int) for one seat's view (:mod:`agents.classic.view`).

    Args:
        params: (N_PARAMS,) float64 from :meth:`HeuristicConfig.to_array`.
        hdr, hand, values, unseen, seats, mask: the agent view.

    Order of decisions (ties go to the lowest action id; among challenge
    targets, to the nearest seat on the left):

    * In a challenge (R-CH-EXCHANGE): TIP-LET-GO may give up; else answer with
      a matching asset, else with the cheapest usable wild (TIP-WILD-USE,
      TIP-SAVE-WILD), else give up.
    * Otherwise: the best set to lay (R-PAIR-HAND, R-PAIR-DISCARD; value, or
      value times safety under TIP-COUNT; TIP-WILD-FIRST, TIP-FAST-FIRST
      filter); the best challenge (R-CHALLENGE; highest ``value_seen`` top set
      among targets with enough playable cards, TIP-BACKUP); lay first when
      ``pair_first`` or TIP-COVER says so or when the set is worth at least the
      target; else challenge; else discard the cheapest asset, else the
      cheapest wild (R-DISCARD).
    * Draft piles (§7): a legal draft take is one more set to lay, worth its
      hand card plus the face-up cards it takes (a wild played from the hand
      counts as a wild spent; a face-up wild taken costs no hand card).
      Asked about the immediate challenge of a drafted set: open it when the
      switches allow a card (see :func:`_draft_offer`), else decline.
    """
    _ph, _pd, ch, di, re, gu, w = action_starts(hdr)
    na, nw = hdr[H_NA], hdr[H_NW]
    seat, p = hdr[H_SEAT], hdr[H_P]
    n_wild = _wilds_in_hand(hand, na, nw)
    keep_one = 1 if (params[P_SAVE_WILD] > 0 and hdr[H_DRAW] > 0) else 0

    if hdr[H_CH_ACTIVE] > 0:
        defender = seat == hdr[H_CH_DEFENDER]
        contested = seats[seat, S_TOP_VALUE_SEEN] + hdr[H_CH_POT_VALUE]
        if defender and params[P_LET_GO] > 0 and contested < params[P_LET_GO_MAX]:
            return gu  # TIP-LET-GO
        allow = params[P_WILD_DEFENCE] if defender else params[P_WILD_CHALLENGES]
        if mask[re] or (allow > 0 and n_wild - keep_one > 0):
            return _answer(mask, re, hand, values, na, nw)
        return gu
    if hdr[H_DRAFT_OFFER] > 0:  # R-2P-DRAFT, R-3P-DRAFT: the immediate challenge of a drafted set
        return _draft_offer(params, hdr, hand, values, seats, mask)

    own_sets = seats[seat, S_STACK_LEN]
    best_pair, best_score = -1, -1.0
    if params[P_WILD_FIRST] > 0 and own_sets == 0 and n_wild - keep_one > 0:
        best_pair, best_score = _best_pair(params, hdr, hand, values, unseen, seats, mask, True)
    if best_pair < 0:
        best_pair, best_score = _best_pair(params, hdr, hand, values, unseen, seats, mask, False)

    usable_wilds = n_wild - keep_one if params[P_WILD_CHALLENGES] > 0 else 0
    best_off, best_tv = 0, -1
    for off in range(1, p):
        row = ch + (off - 1) * w
        if not _challenge_allowed(mask, row, w):
            continue
        tg = (seat + off) % p
        playable = hand[seats[tg, S_TOP_ASSET]] + max(usable_wilds, 0)
        if playable == 0:
            continue
        if params[P_BACKUP] > 0 and playable < 2:
            continue  # TIP-BACKUP
        v = seats[tg, S_TOP_VALUE_SEEN]
        if v > best_tv:
            best_off, best_tv = off, v

    cover_now = params[P_COVER] > 0 and own_sets >= 1 and seats[seat, S_TOP_VALUE_SEEN] >= params[P_COVER_MIN]
    if best_pair >= 0 and (params[P_PAIR_FIRST] > 0 or cover_now or best_off == 0 or best_score >= best_tv):
        return best_pair
    if best_off > 0:
        return _opening(mask, ch + (best_off - 1) * w, hand, values, na, nw)
    return _cheapest_discard(hand, values, na, nw, di)


class HeuristicAgent:
    """Single-game form of ``heuristic`` (see :class:`HeuristicConfig` for the switches).

    Deterministic: it never draws from ``rng``.
    """

    def __init__(self, config: HeuristicConfig | None = None, name: str = "heuristic", **switches) -> None:
        allowed = [f.name for f in fields(HeuristicConfig)]
        unknown = sorted(set(switches) - set(allowed))
        if unknown:
            raise ValueError(f"unknown switch(es) {', '.join(unknown)}; heuristic takes: {', '.join(allowed)}")
        self.config = config if config is not None else HeuristicConfig(**switches)
        self.name = name
        self._params = self.config.to_array()

    def act(self, obs: Observation, rng: np.random.Generator) -> int:
        """The heuristic action id for this observation."""
        hdr, hand, values, unseen, seats, mask = build_view(obs)
        if hdr[H_ADV]:  # the advanced rules (RULES.md §6): agents/classic/advanced.py
            a = advanced_first(hdr, hand, values, seats, mask)
            if a < 0:
                a = heuristic_decide(self._params, hdr, hand, values, unseen, seats, mask)
            return int(advanced_last(hdr, hand, values, mask, a))
        return int(heuristic_decide(self._params, hdr, hand, values, unseen, seats, mask))


#: ``wild_hoarder`` as heuristic switches (never spend a wild on a set; TIP-SAVE-WILD).
WILD_HOARDER = HeuristicConfig(wild_for_sets=False, save_wild=True)


class WildHoarderAgent(HeuristicAgent):
    """``wild_hoarder``: never spends a wild to lay a set; keeps wilds for
    challenges and defence and holds at least one until the draw pile is
    empty (TIP-SAVE-WILD); otherwise plays like ``greedy``.

    Exactly ``heuristic(wild_for_sets=false, save_wild=true)``.
    """

    def __init__(self) -> None:
        super().__init__(WILD_HOARDER, name="wild_hoarder")
