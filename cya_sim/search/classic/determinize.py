"""Determinizations: full game states sampled from one seat's observation (RULES.md §10, R-HIDDEN-WILD).

A determinization fills in what the observer cannot see — each opponent's
hand (of the observed size), the hidden card beneath each set it does not
know, and the order of the draw pile — with the observer's *unseen* cards
(``Observation.unseen``), and nothing else is changed. It is built from the
:class:`~cya_sim.engine.classic.reference.observation.Observation` only: the true state is never read,
so two true states with equal observations give identical samples for the
same random stream (the leak test of ``tests/test_search_determinize.py``).

**Exactly uniform.** The unseen cards are distinguishable physical cards;
every injective placement of them into the hidden positions that respects
the one constraint of the rules — a hidden set card is an asset of its set's
type or a wild (R-HIDDEN-WILD) — is equally likely. Hands and the draw pile
carry no constraint, so the sampler (1) draws the hidden set cards from their
exact joint law and (2) shuffles the remaining cards uniformly (Fisher–Yates)
and deals them to the opponents' hands in seat order, the rest forming the
draw pile. For (1), group the hidden slots by asset type ``a`` (``n_a``
slots, ``U_a`` unseen copies of ``a``, ``W`` unseen wilds of all types). The
number of placements with ``j_a`` wilds in group ``a`` is

    prod_a [ C(n_a, j_a) * (U_a)_(n_a - j_a) ] * (W)_(J),   J = sum_a j_a,

with ``(x)_k`` the falling factorial. A small dynamic programme over the
groups (``f[g][J]``: the weight of the first g groups using J wilds) gives
the law of J and then, backwards, of each ``j_a``; the ``j_a`` wild slots of
a group are a uniform subset, and the J wild cards a uniform draw without
replacement from the unseen wilds (so Silver and Gold come in proportion).

What the observation does not carry is not guessed from the true state:

* who besides the owner knows a hidden set card (taken to be the owner only);
* which card of a fully known set lies beneath (a wild if the set holds one,
  else the asset) and who knows it (the observer's own sets: the observer
  only; other seats' sets: everyone) — this only changes the ``value_seen``
  the ``greedy`` rollout policy of the other seats uses (R-HIDDEN-WILD);
* ``round_wins`` (taken as 0; only the ``round_wins`` end condition reads them).

Draft piles (R-2P-DRAFT, R-3P-DRAFT): the face-up tops and the pile sizes are
public and copied into the template; every face-down draft card is a hidden
position without constraint, like a hand card or the draw pile, so it is
dealt from the same uniform shuffle (after the opponents' hands, before the
draw pile) — the sample stays exactly uniform.

The public record of who gave up a challenge (``Observation.gave_up``) is
deliberately not used as a constraint: a side may give up with cards left
(R-CH-EXCHANGE), so it proves nothing about a hand, and conditioning on it
would make the samples non-uniform over the deals consistent with what was
seen. The record itself is public and is copied into the template, where the
``card_counter`` rollout policy reads it as the real agent does. No other
negative information ("showed it did not hold") is carried by the observation.

The observation is written into row ``TEMPLATE`` of a one-row batched-engine
state (:class:`~cya_sim.engine.batched.state.BatchState`, :func:`fill_template`),
with the hidden cards missing; that row, in the one compiled game layout
(:mod:`cya_sim.engine.classic.layout`), is the search's template, and
:func:`sample_flat` fills the hidden cards into a copy of it.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from cya_sim.engine.batched.state import allocate
from cya_sim.engine.classic.batched import GAME
from cya_sim.engine.classic.layout import (
    B_DECK,
    B_HANDS,
    B_SCARD0,
    B_SCOUNTS,
    B_SVAL,
    B_SVALUE,
    C_ADV_ON,
    C_N,
    C_NA,
    C_NW,
    C_P,
    C_T,
    G_ADV_DEF0,
    G_ADV_DEPTH,
    G_ADV_LEFT,
    G_ADV_NDEF,
    G_ADV_NO_CH,
    G_ADV_OWED,
)
from cya_sim.engine.classic.reference.observation import Observation
from cya_sim.engine.classic.seen import recount_seen
from cya_sim.engine.jit import JIT
from cya_sim.engine.pcg import next_double
from cya_sim.search.tree import shuffled_rest

#: The row of the search's batch state that holds the observation.
TEMPLATE = 0
N_ROWS = 1

InfoSet = namedtuple("InfoSet", [
    "observer", "unseen", "hand_sizes", "draw_size", "totals0",
    "slot_set", "slot_owner", "slot_asset",
    "grp_asset", "grp_start", "grp_slot", "wtab", "ftab", "fin", "draft_pos",
])
InfoSet.__doc__ = """What the sampler needs of one observation (numba-passable arrays).

observer: int, the seat. unseen: (T,) int64 unseen cards per type.
hand_sizes: (P,) int64. draw_size: int, cards in the draw pile.
totals0: (P,) int64 dollars, the totals before the round ends.
slot_set, slot_owner, slot_asset: (H,) int64 — for each hidden set card the
observer does not know: its set slot in the template row, the set's owner
and asset type.
grp_asset: (G,) int64 distinct asset types of the hidden slots; grp_start:
(G+1,) int64 offsets into grp_slot: (H,) int64 hidden-slot indices by group.
wtab: (G, H+1) float64, ``C(n_g, j) * (U_a)_(n_g - j)``; ftab: (G+1, H+1)
float64, the DP over groups; fin: (H+1,) float64, ``ftab[G][J] * (W)_(J)``
(module docstring).
"""


def _falling(x: int, k: int) -> float:
    """(x)_k = x (x-1) ... (x-k+1) as a float (0 when k > x)."""
    if k > x:
        return 0.0
    out = 1.0
    for i in range(k):
        out *= x - i
    return out


def _binom(n: int, k: int) -> float:
    out = 1.0
    for i in range(k):
        out = out * (n - i) / (i + 1)
    return out


def info_set(obs: Observation, slot_of_view: list[list[int]] | None = None) -> InfoSet:
    """The :class:`InfoSet` of an observation (the sampler's tables).

    Args:
        obs: the observer's observation.
        slot_of_view: per seat, the template set slot of each set (oldest
            first), as :func:`fill_template` numbers them; default the same
            numbering (seat by seat, oldest first).

    Raises:
        ValueError: the observation is inconsistent (the unseen cards do not
            add up to the hidden positions, or no deal satisfies R-HIDDEN-WILD).
    """
    deck = obs.rules.deck
    na = deck.n_assets
    p = obs.n_players
    unseen = np.asarray(obs.unseen, np.int64)
    if (unseen < 0).any():
        raise ValueError(f"observation field 'unseen' has negative counts {unseen.tolist()}; each must be >= 0")
    slot_set, slot_owner, slot_asset = [], [], []
    k = 0
    for s in range(p):
        for i, v in enumerate(obs.stacks[s]):
            st = slot_of_view[s][i] if slot_of_view is not None else k
            k += 1
            for _ in range(v.n_hidden):
                slot_set.append(st)
                slot_owner.append(s)
                slot_asset.append(v.asset)
    h = len(slot_set)
    hand_sizes = np.asarray(obs.hand_sizes, np.int64)
    size = obs.rules.draft_pile_size
    draft_pos = [j * size + i for j, n in enumerate(obs.draft_sizes)
                 for i in range(n - 1 if obs.draft_tops[j] >= 0 else n)]  # the face-down draft cards
    need = int(hand_sizes.sum() - hand_sizes[obs.seat]) + h + int(obs.draw_size) + len(draft_pos)
    if int(unseen.sum()) != need:
        raise ValueError(
            f"observation field 'unseen' holds {int(unseen.sum())} cards but the hidden positions need {need} "
            f"(opponents' hands {int(hand_sizes.sum() - hand_sizes[obs.seat])}, hidden set cards {h}, "
            f"draw pile {obs.draw_size}, face-down draft cards {len(draft_pos)})")
    assets = sorted(set(slot_asset))
    g = len(assets)
    grp_start = np.zeros(g + 1, np.int64)
    grp_slot = np.zeros(h, np.int64)
    pos = 0
    for gi, a in enumerate(assets):
        grp_start[gi] = pos
        for j, sa in enumerate(slot_asset):
            if sa == a:
                grp_slot[pos] = j
                pos += 1
    grp_start[g] = pos
    w_total = int(unseen[na:na + deck.n_wilds].sum())  # wilds only: action cards never lie in a set (§6)
    wtab = np.zeros((g, h + 1), np.float64)
    ftab = np.zeros((g + 1, h + 1), np.float64)
    ftab[0, 0] = 1.0
    for gi, a in enumerate(assets):
        n = int(grp_start[gi + 1] - grp_start[gi])
        for j in range(n + 1):
            wtab[gi, j] = _binom(n, j) * _falling(int(unseen[a]), n - j)
        for big_j in range(h + 1):
            acc = 0.0
            for j in range(min(n, big_j) + 1):
                acc += ftab[gi, big_j - j] * wtab[gi, j]
            ftab[gi + 1, big_j] = acc
    fin = np.array([ftab[g, j] * _falling(w_total, j) for j in range(h + 1)], np.float64)
    if h and fin.sum() <= 0.0:
        raise ValueError("observation is inconsistent: no deal of the unseen cards puts an asset of the set's "
                         "type or a wild under every hidden set card (R-HIDDEN-WILD)")
    return InfoSet(
        observer=int(obs.seat), unseen=unseen, hand_sizes=hand_sizes, draw_size=int(obs.draw_size),
        totals0=np.asarray(obs.totals, np.int64),
        slot_set=np.array(slot_set, np.int64), slot_owner=np.array(slot_owner, np.int64),
        slot_asset=np.array(slot_asset, np.int64), grp_asset=np.array(assets, np.int64),
        grp_start=grp_start, grp_slot=grp_slot, wtab=wtab, ftab=ftab, fin=fin,
        draft_pos=np.array(draft_pos, np.int64),
    )


def fill_template(obs: Observation, state, row: int = TEMPLATE) -> None:
    """Write the observation into row ``row`` of ``state`` (a BatchState), hidden cards left out.

    The observer's hand, every stack as the observer sees it (set slots
    numbered seat by seat, oldest set first), the discard pile, the draw pile
    size (``draw_pos = N - draw_size``), hand sizes, totals, round, dealer,
    the challenge in progress, the public give-up record and the seat to act.
    Opponents' hands and the draw order are left empty, and each hidden set card is missing from its
    set's counts and values; :func:`sample_flat` adds them.
    """
    S = state
    b = row
    k = state.consts
    p, t, n = obs.n_players, int(k.cfg[C_T]), int(k.cfg[C_N])
    na = int(k.cfg[C_NA])
    values = k.values[:t]
    seat = obs.seat
    public = (1 << p) - 1
    S.hands[b] = 0
    S.hands[b, seat, :] = obs.hand
    S.hand_count[b, :] = obs.hand_sizes
    S.deck_order[b] = 0
    S.draw_pos[b] = n - obs.draw_size
    S.discard[b] = 0
    S.discard[b, : len(obs.discard_pile)] = obs.discard_pile
    S.discard_len[b] = len(obs.discard_pile)
    st = 0
    S.set_counts[b] = 0
    S.stack_top[b] = -1
    S.stack_len[b] = 0
    S.stack_value[b] = 0
    for s in range(p):
        below = -1
        for v in obs.stacks[s]:
            known = np.asarray(v.known, np.int64)
            S.set_asset[b, st] = v.asset
            S.set_size[b, st] = v.size
            S.set_counts[b, st, :] = known
            val = int((known * values).sum())
            S.set_value[b, st] = val
            if v.n_hidden:
                S.set_card0[b, st] = v.asset  # replaced by the sampled card
                S.set_known0[b, st] = 1 << s
            else:
                wild = [c for c in range(na, na + int(k.cfg[C_NW])) if known[c] > 0]
                S.set_card0[b, st] = min(wild, key=lambda c: (values[c], c)) if wild else v.asset
                S.set_known0[b, st] = (1 << s) if s == seat else public
            S.set_below[b, st] = below
            below = st
            S.stack_value[b, s] += val
            st += 1
        S.stack_top[b, s] = below
        S.stack_len[b, s] = len(obs.stacks[s])
    S.n_sets[b] = st
    S.played[b] = False
    # public (RULES.md §10); read by the card_counter rollout
    S.gave_up_mask[b] = (np.asarray(obs.gave_up, np.int64) << np.arange(t)).sum(axis=1)
    ch = obs.challenge
    S.ch_active[b] = ch is not None
    S.ch_len[b] = 0
    if ch is not None:
        S.ch_challenger[b], S.ch_defender[b], S.ch_asset[b] = ch.challenger, ch.defender, ch.asset
        S.ch_len[b] = len(ch.cards)
        S.ch_cards[b, : len(ch.cards)] = ch.cards
        S.ch_players[b, : len(ch.players)] = ch.players
        for who in ch.players:
            S.played[b, who] = True  # R-REFILL: both sides of a challenge that showed a card draw
    if int(k.cfg[C_ADV_ON]):  # the advanced rules' public state (RULES.md §6)
        rows = S.rows[b]
        rows[G_ADV_LEFT] = obs.actions_left
        rows[G_ADV_NO_CH] = obs.no_challenge + 1
        rows[G_ADV_NDEF] = len(obs.turn_defenders)
        for i, d in enumerate(obs.turn_defenders[:2]):
            rows[G_ADV_DEF0 + i] = d
        rows[G_ADV_DEPTH] = ch.depth if ch is not None else 0
        rows[G_ADV_OWED] = ch.owed if ch is not None else 0
        S.adv_removed[b] = np.bincount(np.asarray(obs.removed, np.int64), minlength=t)
        for who, did in enumerate(obs.played_this_turn):
            S.played[b, who] = S.played[b, who] or did
    S.current_player[b] = obs.current_player
    S.dealer[b] = obs.dealer
    S.round[b] = obs.round
    S.totals[b, :] = obs.totals
    S.round_wins[b] = 0
    S.eligible[b] = 0
    S.extra_rounds[b] = 0
    S.winners[b] = 0
    S.done[b] = False
    S.to_act[b] = seat
    if obs.draft_sizes:  # §7: pile sizes and face-up tops; the face-down cards are sampled
        size = obs.rules.draft_pile_size
        down = 0
        for j, (nj, top) in enumerate(zip(obs.draft_sizes, obs.draft_tops, strict=True)):
            S.draft_len[b, j] = nj
            if top >= 0:
                S.deck_order[b, j * size + nj - 1] = top
            elif nj > 0:
                down |= 1 << j
        S.draft_down[b] = down
        offer = list(obs.draft_offer)
        S.draft_offer[b] = 1 + offer[0] if offer else 0
        S.draft_offer2[b] = 1 + offer[1] if len(offer) > 1 else 0
        mv = obs.draft_move  # §7 with §6: a Move turned up waiting for the observer's choice (public)
        S.draft_move[b] = 1 + mv[1] if mv else 0
        then = list(obs.draft_then) if mv else []
        S.draft_then0[b] = 1 + then[0] if then else 0
        S.draft_then1[b] = 1 + then[1] if len(then) > 1 else 0


@njit(**JIT)
def _pick_weighted(wts, n, rng):
    """Index i in 0..n-1 with probability wts[i] / sum(wts[:n]) (wts float64 >= 0)."""
    tot = 0.0
    for i in range(n):
        tot += wts[i]
    u = next_double(rng) * tot
    for i in range(n):
        u -= wts[i]
        if u < 0.0:
            return i
    for i in range(n - 1, -1, -1):
        if wts[i] > 0.0:
            return i
    return n - 1


@njit(**JIT)
def sample_flat(K, G0, G, I, rng, rem, cards, slot_card, wts):
    """Sample one determinization of the template row ``G0`` into ``G`` (module docstring).

    Args:
        K: the rule constants (:class:`~cya_sim.engine.classic.layout.Consts`).
        G0, G: (W,) int64 game rows (:mod:`cya_sim.engine.classic.layout`).
        I: the :class:`InfoSet`. rng: (4,) uint64 PCG64 stream, advanced in place.
        rem: (T,) int64, cards: (N,) int64, slot_card: (H,) int64, wts: (H + 2,) float64 — scratch.

    The seen-card counts of ``G`` (``B_SEEN_PUBLIC``, ``B_SEEN_PRIVATE``) are left as the template's:
    a caller whose rollout policy reads the agent view rebuilds them with
    :func:`~cya_sim.engine.classic.seen.recount_seen` (``greedy`` and ``random`` rollouts do not read them).
    """
    for i in range(G.shape[0]):  # a copy (no NumPy temporary: these kernels run without numba's runtime)
        G[i] = G0[i]
    cfg = K.cfg
    L = K.lay
    values = K.values
    na = cfg[C_NA]
    t = cfg[C_T]
    n_cards = cfg[C_N]
    for c in range(t):
        rem[c] = I.unseen[c]
    h = I.slot_set.shape[0]
    if h > 0:
        g_n = I.grp_asset.shape[0]
        # J, then j_g backwards (module docstring)
        big_j = _pick_weighted(I.fin, h + 1, rng)
        nwild = na + cfg[C_NW]  # wild ids end here; action cards (§6) never lie in a set
        w_left = 0
        for c in range(na, nwild):
            w_left += rem[c]
        for g in range(g_n - 1, -1, -1):
            lo = I.grp_start[g]
            n = I.grp_start[g + 1] - lo
            m = min(n, big_j)
            for j in range(m + 1):
                wts[j] = I.ftab[g, big_j - j] * I.wtab[g, j]
            j_g = _pick_weighted(wts, m + 1, rng)
            big_j -= j_g
            asset = I.grp_asset[g]
            # a uniform subset of j_g slots of the group takes wilds (partial Fisher–Yates)
            for i in range(n):
                slot_card[I.grp_slot[lo + i]] = asset
                cards[i] = i
            for i in range(j_g):
                r = i + int(next_double(rng) * (n - i))
                tmp = cards[i]
                cards[i] = cards[r]
                cards[r] = tmp
                # one physical wild, uniform among the unseen wilds left
                u = int(next_double(rng) * w_left)
                wd = na
                for c in range(na, nwild):
                    if u < rem[c]:
                        wd = c
                        break
                    u -= rem[c]
                rem[wd] -= 1
                w_left -= 1
                slot_card[I.grp_slot[lo + cards[i]]] = wd
            rem[asset] -= n - j_g
        for i in range(h):
            st = I.slot_set[i]
            c = slot_card[i]
            v = values[c]
            G[L[B_SCARD0] + st] = c
            G[L[B_SCOUNTS] + st * t + c] += 1
            G[L[B_SVALUE] + st] += v
            G[L[B_SVAL] + I.slot_owner[i]] += v
    # the rest: a uniform shuffle, dealt to the opponents in seat order, then the draw pile
    shuffled_rest(rem, t, cards, rng)
    pos = 0
    p = cfg[C_P]
    for s in range(p):
        if s == I.observer:
            continue
        h0 = L[B_HANDS] + s * t
        for _ in range(I.hand_sizes[s]):
            G[h0 + cards[pos]] += 1
            pos += 1
    for i in range(I.draft_pos.shape[0]):  # the face-down draft cards (§7)
        G[L[B_DECK] + I.draft_pos[i]] = cards[pos]
        pos += 1
    start = L[B_DECK] + n_cards - I.draw_size
    for i in range(I.draw_size):
        G[start + i] = cards[pos]
        pos += 1


@njit(cache=True)
def sample_many(K, G0, I, rng, n, out):
    """``n`` determinizations of ``G0`` into the rows of ``out`` ((n, W) int64), drawn in order."""
    t = K.cfg[C_T]
    h = I.slot_set.shape[0]
    rem = np.zeros(t, np.int64)
    cards = np.zeros(K.cfg[C_N], np.int64)
    slot_card = np.zeros(h, np.int64)
    wts = np.zeros(h + 2, np.float64)
    for i in range(n):
        sample_flat(K, G0, out[i], I, rng, rem, cards, slot_card, wts)
        recount_seen(K, out[i])


def new_search_state(rules, n_players: int):
    """A BatchState of :data:`N_ROWS` row (the template) for ``rules`` at P seats.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``.
    """
    return allocate(GAME, rules, n_players, N_ROWS, 0, np.zeros(0, np.int64), np.zeros((0, n_players), np.int16),
                    ("observer",))


class Determinizer:
    """Samples determinizations of one observation (for tests and analysis; the search uses the kernels).

    Args:
        obs: the observer's :class:`~cya_sim.engine.classic.reference.observation.Observation`. Only
            it is read.

    Attributes:
        state: the BatchState whose row ``TEMPLATE`` holds the observation.
        info: the :class:`InfoSet`. template: the template row ``G0`` ((W,) int64).
        layout: the block starts of a row (``Consts.lay``).

    Raises:
        ValueError: an inconsistent observation (see :func:`info_set`).
    """

    def __init__(self, obs: Observation) -> None:
        self.obs = obs
        self.state = new_search_state(obs.rules, obs.n_players)
        fill_template(obs, self.state, TEMPLATE)
        self.info = info_set(obs)
        self.template = self.state.rows[TEMPLATE].copy()
        self.layout = self.state.consts.lay

    def sample(self, rng: np.ndarray, n: int = 1) -> list[dict]:
        """``n`` determinizations, drawn in order with the (4,) uint64 stream ``rng`` (advanced in place).

        Returns:
            one dict per sample with ``hands`` (P, T) int64 card counts (the
            observer's own hand included), ``draw_pile`` (D,) int64 card ids,
            top first, ``hidden`` (H,) int64: the card beneath each hidden set,
            in the order of ``info.slot_set``, and ``flat``: the game row.
        """
        k = self.state.consts
        L = k.lay
        out = np.zeros((n, self.template.shape[0]), np.int64)
        sample_many(k, self.template, self.info, rng, n, out)
        p, t, nc = self.obs.n_players, int(k.cfg[C_T]), int(k.cfg[C_N])
        d = self.info.draw_size
        res = []
        for g in out:
            res.append({
                "hands": g[L[B_HANDS]: L[B_HANDS] + p * t].reshape(p, t).copy(),
                "draw_pile": g[L[B_DECK] + nc - d: L[B_DECK] + nc].copy(),
                "hidden": g[L[B_SCARD0] + self.info.slot_set].copy(),
                "flat": g.copy(),
            })
        return res
