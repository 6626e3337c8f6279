"""Observations of a batch: what the seat to act in each row may see (RULES.md §10, R-HIDDEN-WILD)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.classic.kernel import legal_mask
from cya_sim.engine.classic.layout import (
    B_ADV_REMOVED,
    B_CHCARDS,
    B_CHPLAYERS,
    B_DISC,
    B_GAVEUP,
    B_HANDS,
    B_HCOUNT,
    B_SASSET,
    B_SBELOW,
    B_SCARD0,
    B_SCOUNTS,
    B_SKNOWN0,
    B_SLEN,
    B_SSIZE,
    B_STOP,
    B_SVALUE,
    C_A,
    C_N,
    C_NA,
    C_NW,
    C_P,
    C_S,
    C_T,
    G_CH_ACTIVE,
    G_CH_ASSET,
    G_CH_CHAL,
    G_CH_DEF,
    G_CH_LEN,
    G_DISC_LEN,
    G_DRAW_POS,
    G_TO_ACT,
)
from cya_sim.game.classic.actions import ActionSpace
from cya_sim.game.rules import RuleSet

PHASE_NONE, PHASE_TURN, PHASE_CHALLENGE, PHASE_DRAFT_OFFER, PHASE_DRAFT_MOVE = -1, 0, 1, 2, 3


@dataclass(frozen=True)
class ObservationBatch:
    """For each row, the observation of its seat to act (RULES.md §10); copies, no hidden information.

    Sizes as in :class:`~cya_sim.engine.batched.state.BatchState` (B rows, P seats,
    T card types, N cards, S set slots, CAP challenge cards, A actions). Stacks are
    listed oldest set first (the top set is at index ``stack_len - 1``); padding is -1 or 0.

    rules, n_players, action_space: as the state's. values: (T,) int64 dollars per card type.
    game_index: (B,) int64. seat: (B,) int8 — the observer (the seat to act), -1 for idle rows.
    phase: (B,) int8 — 0 turn, 1 challenge, 2 draft offer (asked whether to open the immediate
        challenge of a freshly drafted set, §7), 3 draft move (choosing for a Move turned up on a
        draft pile, §7 with §6), -1 idle.
    legal_action_mask: (B, A) bool.
    hand: (B, T) int16 — the observer's hand. hand_sizes: (B, P) int16 — every hand's size.
    stack_len: (B, P) int16 — sets in each stack.
    set_asset: (B, P, S) int8 — asset type of each set. set_size: (B, P, S) int16 — its cards.
    set_known: (B, P, S, T) int16 — the set's cards the observer knows (all of its own sets' cards;
        the public cards of others' sets, R-HIDDEN-WILD).
    set_n_hidden: (B, P, S) int16 — cards of the set the observer does not know (each an asset of the
        set's type or a wild).
    set_value_seen, set_value_low, set_value_high: (B, P, S) int64 — dollars: hidden cards counted at
        the asset's value, at the lowest and at the highest possible value.
    top_value_seen: (B, P) int64 — ``set_value_seen`` of each seat's top set, -1 for an empty stack.
    discard_pile: (B, N) int8 — bottom first, -1 padding. discard_len: (B,) int16.
    draw_size: (B,) int16 — cards left in the draw pile.
    totals: (B, P) int64 dollars. round: (B,) int32. dealer, current_player: (B,) int8.
    ch_challenger, ch_defender, ch_asset, ch_to_act: (B,) int8 — the challenge in progress, -1 if none.
    ch_cards, ch_players: (B, CAP) int8 — cards shown and who showed each, -1 padding. ch_len: (B,) int16.
    unseen: (B, T) int16 — cards in play minus the observer's hand and every card it has seen.
    gave_up: (B, P, T) bool — public: the seat gave up a challenge over that asset type and has drawn
        no card since (RULES.md §10).
    draft_tops: (B, D) int8 — the face-up top card of each draft pile (R-2P-DRAFT, R-3P-DRAFT), -1 when
        the pile is empty or its next card is not turned up yet; D = 0 without a draft.
    draft_sizes: (B, D) int16 — cards in each draft pile (its face-down cards are hidden, §10).
    draft_move_target: (B,) int8 — in phase 3, the seat whose stack the Move turned up moves; else -1.
    """

    rules: RuleSet
    n_players: int
    action_space: ActionSpace
    values: np.ndarray
    game_index: np.ndarray
    seat: np.ndarray
    phase: np.ndarray
    legal_action_mask: np.ndarray
    hand: np.ndarray
    hand_sizes: np.ndarray
    stack_len: np.ndarray
    set_asset: np.ndarray
    set_size: np.ndarray
    set_known: np.ndarray
    set_n_hidden: np.ndarray
    set_value_seen: np.ndarray
    set_value_low: np.ndarray
    set_value_high: np.ndarray
    top_value_seen: np.ndarray
    discard_pile: np.ndarray
    discard_len: np.ndarray
    draw_size: np.ndarray
    totals: np.ndarray
    round: np.ndarray
    dealer: np.ndarray
    current_player: np.ndarray
    ch_challenger: np.ndarray
    ch_defender: np.ndarray
    ch_asset: np.ndarray
    ch_to_act: np.ndarray
    ch_cards: np.ndarray
    ch_players: np.ndarray
    ch_len: np.ndarray
    unseen: np.ndarray
    gave_up: np.ndarray
    draft_tops: np.ndarray
    draft_sizes: np.ndarray
    draft_move_target: np.ndarray | None = None


@njit(cache=True, _nrt=False, error_model="numpy")
def _observe(K, R, order, seen, ids, wlo, whi, seat_o, phase, mask, hand, hand_sizes, stack_len, set_asset, set_size,
             set_known, set_n_hidden, vseen, vlo, vhi, top_vs, discard_pile, discard_len, draw_size, ch_chal, ch_def,
             ch_asset, ch_to_act, ch_cards, ch_players, ch_len, unseen, gave_up):
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    t = cfg[C_T]
    n = cfg[C_N]
    values = K.values
    for b in range(R.shape[0]):
        G = R[b]
        o = G[G_TO_ACT]
        seat_o[b] = o
        for s in range(p):
            hand_sizes[b, s] = G[L[B_HCOUNT] + s]
            gm = G[L[B_GAVEUP] + s]
            for c in range(t):
                gave_up[b, s, c] = (gm >> c) & 1 == 1
        nd = G[G_DISC_LEN]
        discard_len[b] = nd
        for i in range(nd):
            discard_pile[b, i] = G[L[B_DISC] + i]
        draw_size[b] = n - G[G_DRAW_POS]
        if o < 0:
            phase[b] = -1
            continue
        phase[b] = 1 if G[G_CH_ACTIVE] else 0
        legal_mask(K, G, mask[b], ids)
        seen[:] = 0
        for c in range(t):
            hand[b, c] = G[L[B_HANDS] + o * t + c]
        for s in range(p):
            m = G[L[B_SLEN] + s]
            stack_len[b, s] = m
            st = G[L[B_STOP] + s]
            for i in range(m - 1, -1, -1):
                order[i] = st
                st = G[L[B_SBELOW] + st]
            top_vs[b, s] = -1
            for i in range(m):
                st = order[i]
                asset = G[L[B_SASSET] + st]
                set_asset[b, s, i] = asset
                set_size[b, s, i] = G[L[B_SSIZE] + st]
                hidden = 0
                for c in range(t):
                    set_known[b, s, i, c] = G[L[B_SCOUNTS] + st * t + c]
                card0 = G[L[B_SCARD0] + st]
                if (G[L[B_SKNOWN0] + st] >> o) & 1 == 0:
                    set_known[b, s, i, card0] -= 1
                    hidden = 1
                set_n_hidden[b, s, i] = hidden
                base = G[L[B_SVALUE] + st]
                if hidden:
                    base -= values[card0]
                av = values[asset]
                lo = min(av, wlo)
                hi = max(av, whi)
                vseen[b, s, i] = base + hidden * av
                vlo[b, s, i] = base + hidden * lo
                vhi[b, s, i] = base + hidden * hi
                for c in range(t):
                    seen[c] += set_known[b, s, i, c]
            if m > 0:
                top_vs[b, s] = vseen[b, s, m - 1]
        for i in range(nd):
            seen[G[L[B_DISC] + i]] += 1
        if G[G_CH_ACTIVE]:
            ch_chal[b] = G[G_CH_CHAL]
            ch_def[b] = G[G_CH_DEF]
            ch_asset[b] = G[G_CH_ASSET]
            ch_to_act[b] = o
            ch_len[b] = G[G_CH_LEN]
            for i in range(G[G_CH_LEN]):
                ch_cards[b, i] = G[L[B_CHCARDS] + i]
                ch_players[b, i] = G[L[B_CHPLAYERS] + i]
                seen[G[L[B_CHCARDS] + i]] += 1
        for c in range(t):  # cards out of the game are seen (RULES.md §6)
            unseen[b, c] = K.deck_counts[c] - G[L[B_HANDS] + o * t + c] - seen[c] - G[L[B_ADV_REMOVED] + c]


def observe(state: BatchState) -> ObservationBatch:
    """The :class:`ObservationBatch` of every row's seat to act (RULES.md §10).

    Same content, row by row, as :func:`cya_sim.engine.classic.reference.observation.observe` of the
    reference engine for that seat (hand, every stack as the seat knows it,
    discard pile, draw pile size, hand sizes, totals, round, dealer,
    challenge, unseen cards, legal action mask). Idle rows have ``seat = -1``
    and an all-false mask.
    """
    k = state.consts
    cfg = k.cfg
    b, p, t = state.batch_size, state.n_players, int(cfg[C_T])
    s_max, n, cap, a = int(cfg[C_S]), int(cfg[C_N]), state.ch_cards.shape[1], int(cfg[C_A])
    na = int(cfg[C_NA])
    wv = k.values[na:na + int(k.cfg[C_NW])]  # wilds only (action cards, §6, are no set card)
    wlo = int(wv.min()) if len(wv) else 1 << 62
    whi = int(wv.max()) if len(wv) else -(1 << 62)
    z = np.zeros
    tops, sizes = _draft_tops(state)
    obs = ObservationBatch(
        rules=state.rules, n_players=p, action_space=state.action_space, values=k.values[:int(k.cfg[C_T])].copy(),
        game_index=state.game_index.copy(), seat=z(b, np.int8), phase=z(b, np.int8),
        legal_action_mask=z((b, a), bool), hand=z((b, t), np.int16), hand_sizes=z((b, p), np.int16),
        stack_len=z((b, p), np.int16), set_asset=np.full((b, p, s_max), -1, np.int8),
        set_size=z((b, p, s_max), np.int16), set_known=z((b, p, s_max, t), np.int16),
        set_n_hidden=z((b, p, s_max), np.int16), set_value_seen=z((b, p, s_max), np.int64),
        set_value_low=z((b, p, s_max), np.int64), set_value_high=z((b, p, s_max), np.int64),
        top_value_seen=np.full((b, p), -1, np.int64), discard_pile=np.full((b, n), -1, np.int8),
        discard_len=z(b, np.int16), draw_size=z(b, np.int16), totals=state.totals.copy(),
        round=state.round.astype(np.int32), dealer=state.dealer.astype(np.int8),
        current_player=state.current_player.astype(np.int8),
        ch_challenger=np.full(b, -1, np.int8), ch_defender=np.full(b, -1, np.int8),
        ch_asset=np.full(b, -1, np.int8), ch_to_act=np.full(b, -1, np.int8),
        ch_cards=np.full((b, cap), -1, np.int8), ch_players=np.full((b, cap), -1, np.int8),
        ch_len=z(b, np.int16), unseen=z((b, t), np.int16),
        gave_up=z((b, p, t), bool), draft_tops=tops.astype(np.int8), draft_sizes=sizes.astype(np.int16),
        draft_move_target=np.full(b, -1, np.int8),
    )
    _observe(k, state.rows, np.zeros(s_max, np.int64), np.zeros(t, np.int64), np.zeros(a, np.int64), wlo, whi, obs.seat, obs.phase, obs.legal_action_mask, obs.hand, obs.hand_sizes,
             obs.stack_len, obs.set_asset, obs.set_size, obs.set_known, obs.set_n_hidden, obs.set_value_seen,
             obs.set_value_low, obs.set_value_high, obs.top_value_seen, obs.discard_pile, obs.discard_len,
             obs.draw_size, obs.ch_challenger, obs.ch_defender, obs.ch_asset, obs.ch_to_act, obs.ch_cards,
             obs.ch_players, obs.ch_len, obs.unseen, obs.gave_up)
    if tops.shape[1]:  # §7: the face-up draft tops are seen; the seat asked about an immediate challenge
        active = obs.seat >= 0
        for j in range(tops.shape[1]):
            rows = np.flatnonzero(active & (tops[:, j] >= 0))
            np.subtract.at(obs.unseen, (rows, tops[rows, j]), 1)
        obs.phase[active & (state.draft_offer != 0)] = PHASE_DRAFT_OFFER
        moving = active & (state.draft_move != 0)  # §7 with §6: a Move turned up waits for this seat's choice
        obs.phase[moving] = PHASE_DRAFT_MOVE
        obs.draft_move_target[moving] = state.draft_move[moving] - 1
    return obs


def _draft_tops(state: BatchState) -> tuple[np.ndarray, np.ndarray]:
    """((B, D) int64 face-up top of each draft pile or -1, (B, D) int64 pile sizes); D = 0 without a draft."""
    lens = state.draft_len
    if lens.shape[1] == 0:
        return lens.copy(), lens.copy()
    d = lens.shape[1]
    idx = np.arange(d) * state.rules.draft_pile_size + np.maximum(lens - 1, 0)
    cards = np.take_along_axis(state.deck_order, idx, axis=1)
    down = (state.draft_down[:, None] >> np.arange(d)) & 1
    return np.where((lens > 0) & (down == 0), cards, -1), lens.copy()
