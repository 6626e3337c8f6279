"""The batched state: B games of one rule set and table size as a struct of arrays (batch dimension first)."""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from cya_sim.actions import ActionSpace
from cya_sim.engine import batched_refusal
from cya_sim.engine.batched import kernels as kn
from cya_sim.rules import RuleSet

_ENDS = {"target": kn.END_TARGET, "rounds": kn.END_ROUNDS, "round_wins": kn.END_ROUND_WINS}


@dataclass(frozen=True)
class BatchState:
    """State of B games of one rule set at one table size P, one row per game (RULES.md §3–5).

    The dataclass is frozen (its fields are never rebound) but its arrays are
    updated in place by :func:`~cya_sim.engine.batched.step` and the compiled
    play loop. Rows are fed from a queue of G games (``q_*``); when a row's
    game ends its result goes to the ``r_*`` arrays and the row starts the
    next queued game (auto-reset), so the batch stays full until the queue is
    empty. Sizes: T card types, N cards in play, S = N // 2 + 1 set slots per
    round, CAP = most challenge cards possible, A actions, L action-log length.

    rules: the :class:`RuleSet`. n_players: P. action_space: the action ids.
    agent_names: tuple of agent names that ``q_seat_agent`` indexes.
    consts: :class:`~cya_sim.engine.batched.kernels.Consts` (rule-derived constant arrays).

    game_index: (B,) int64 — global game index of each row's game.
    queue_pos: (B,) int64 — the row's game's position in the queue; -1 when the row is idle.
    done: (B,) bool — the row's game is over (R-GAME-END) or the row is idle.
    to_act: (B,) int8 — seat that must act: the mover, or the challenge side to answer; -1 when done.
    engine_rng: (B, 4) uint64 — engine PCG64 stream (stream 0: first dealer, shuffles).
    agent_rng: (B, P, 4) uint64 — agent streams (stream 1 + seat).
    agent_kind: (B, P) int8 — compiled agent kind of each seat (0 random, 1 greedy, -1 Python).
    hands: (B, P, T) int8 — cards of each type in each hand.
    hand_count: (B, P) int16 — cards in each hand.
    deck_order: (B, N) int8 — this round's shuffled cards; the draw pile is ``deck_order[draw_pos:]``.
    draw_pos: (B,) int16 — index of the next card to draw (R-REFILL).
    discard: (B, N) int8 — the discard pile, bottom first; only ``discard[discard_len - 1]`` is usable.
    discard_len: (B,) int16 — cards in the discard pile (R-EMPTY-DISCARD: may be 0).
    n_sets: (B,) int16 — set slots used this round.
    set_asset: (B, S) int8 — asset type of each set (its top card's type).
    set_size: (B, S) int16 — cards in each set.
    set_value: (B, S) int64 — face value of each set in dollars.
    set_card0: (B, S) int8 — the set's first (bottom) card, the only one that can be hidden (R-HIDDEN-WILD).
    set_known0: (B, S) int32 — bitmask of the seats that know ``set_card0``; every other card is public.
    set_below: (B, S) int16 — the set beneath it in its stack, -1 for a bottom set.
    set_counts: (B, S, T) int8 — cards of each type in each set.
    stack_top: (B, P) int16 — each seat's top set slot, -1 for an empty stack.
    stack_len: (B, P) int16 — sets in each stack.
    stack_value: (B, P) int64 — dollars in each stack (the round score, R-SCORE).
    ch_active: (B,) bool — a challenge is in progress (R-CH-EXCHANGE).
    ch_challenger, ch_defender, ch_asset: (B,) int8 — challenge seats and contested asset type.
    ch_cards, ch_players: (B, CAP) int8 — cards shown in the challenge, in order, and who showed each.
    ch_len: (B,) int16 — cards shown so far.
    played: (B, P) bool — whether each seat played a card this turn (R-REFILL).
    gave_up: (B, P, T) bool — public: the seat gave up a challenge over that asset type and has
        drawn no card since (RULES.md §10, the public history of who did not answer a challenge).
    current_player: (B,) int8 — seat whose turn it is.
    dealer, first_dealer: (B,) int8 — this round's dealer; the dealer of round 1.
    round: (B,) int32 — round in progress, 1-based.
    totals: (B, P) int64 — running totals in dollars (R-SCORE).
    round_wins: (B, P) int32 — rounds with the highest score (R-GAME-END ``round_wins``).
    eligible: (B,) int32 — R-TIE extra rounds: bitmask of the seats that can still win; 0 otherwise.
    extra_rounds: (B,) int32 — R-TIE extra rounds played.
    winners: (B,) int32 — bitmask of the seats sharing the win once done.
    round_audit: (B,) int64 — dollars in every stack plus the discard pile at the last round end
        (R-SCORE invariant: equals ``rules.round_total(P)``, $1,360,000 per deck).
    turns, challenges, decisions, largest_steal: (B,) int64 — counters (largest steal in dollars).
    q_game_index: (G,) int64 — global indices of the queued games.
    q_seat_agent: (G, P) int16 — index into ``agent_names`` for each game and seat.
    q_agent_kind: (G, P) int8 — compiled kind of each game's seats.
    q_next: (1,) int64 — next queue position to start.
    key: (1,) uint64 — the 64-bit root key (:func:`cya_sim.rng.root_key`).
    r_done: (G,) bool — the queued game has finished.
    r_first_dealer: (G,) int16; r_totals: (G, P) int64; r_winners: (G,) int32 bitmask;
    r_rounds, r_turns, r_challenges, r_decisions, r_largest_steal: (G,) int64 — results per queued game.
    log_actions: (G, L) int16 — every action of each game when logging is on, else shape (0, 0).
    log_len: (G,) int32 — actions logged per game, else shape (0,).
    err: (3,) int64 — [error code, row, action] set by the compiled loop (kernels.ERR_*).
    agent_params: (K, N_AGENT_PARAMS) float64 — parameters of each agent of ``agent_names`` with a compiled
        form (``agents.registry.compiled_params``; zeros otherwise).
    v_hdr, v_hand, v_unseen, v_seats, v_mask, v_hands_all: per-row scratch of the compiled strategy
        agents' views (agents/compiled_strategy.py): (B, N_HDR), (B, T), (B, T), (B, P, N_SEATCOL) int64 (agents.view),
        (B, A) bool, (B, P, T) int64.
    capped: (B,) bool — the row's game was stopped by the round cap (RuleSet.max_rounds); r_capped: (G,) bool.
    """

    rules: RuleSet
    n_players: int
    action_space: ActionSpace
    agent_names: tuple
    consts: kn.Consts
    game_index: np.ndarray
    queue_pos: np.ndarray
    done: np.ndarray
    to_act: np.ndarray
    engine_rng: np.ndarray
    agent_rng: np.ndarray
    agent_kind: np.ndarray
    hands: np.ndarray
    hand_count: np.ndarray
    deck_order: np.ndarray
    draw_pos: np.ndarray
    discard: np.ndarray
    discard_len: np.ndarray
    n_sets: np.ndarray
    set_asset: np.ndarray
    set_size: np.ndarray
    set_value: np.ndarray
    set_card0: np.ndarray
    set_known0: np.ndarray
    set_below: np.ndarray
    set_counts: np.ndarray
    stack_top: np.ndarray
    stack_len: np.ndarray
    stack_value: np.ndarray
    ch_active: np.ndarray
    ch_challenger: np.ndarray
    ch_defender: np.ndarray
    ch_asset: np.ndarray
    ch_cards: np.ndarray
    ch_players: np.ndarray
    ch_len: np.ndarray
    played: np.ndarray
    gave_up: np.ndarray
    current_player: np.ndarray
    dealer: np.ndarray
    first_dealer: np.ndarray
    round: np.ndarray
    totals: np.ndarray
    round_wins: np.ndarray
    eligible: np.ndarray
    extra_rounds: np.ndarray
    winners: np.ndarray
    round_audit: np.ndarray
    turns: np.ndarray
    challenges: np.ndarray
    decisions: np.ndarray
    largest_steal: np.ndarray
    q_game_index: np.ndarray
    q_seat_agent: np.ndarray
    q_agent_kind: np.ndarray
    q_next: np.ndarray
    key: np.ndarray
    r_done: np.ndarray
    r_first_dealer: np.ndarray
    r_totals: np.ndarray
    r_winners: np.ndarray
    r_rounds: np.ndarray
    r_turns: np.ndarray
    r_challenges: np.ndarray
    r_decisions: np.ndarray
    r_largest_steal: np.ndarray
    log_actions: np.ndarray
    log_len: np.ndarray
    err: np.ndarray
    agent_params: np.ndarray
    v_hdr: np.ndarray
    v_hand: np.ndarray
    v_unseen: np.ndarray
    v_seats: np.ndarray
    v_mask: np.ndarray
    v_hands_all: np.ndarray
    capped: np.ndarray
    r_capped: np.ndarray

    @property
    def batch_size(self) -> int:
        """B, the number of rows."""
        return int(self.to_act.shape[0])

    @property
    def arrays(self) -> kn.Arrays:
        """The arrays as the named tuple the compiled kernels take (same objects, no copy)."""
        return kn.Arrays(*(getattr(self, f) for f in kn.ARRAY_FIELDS))

    @property
    def all_done(self) -> bool:
        """Every queued game has finished."""
        return bool(self.r_done.all())




def make_consts(rules: RuleSet, n_players: int) -> kn.Consts:
    """The :class:`~cya_sim.engine.batched.kernels.Consts` of ``rules`` at ``n_players`` seats.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``, or too few cards to deal at that size.
        ValueError: the deck has more than :data:`cya_sim.engine.MAX_BATCHED_CARD_TYPES` card types (the compiled agents
            keep a hand as a 64-bit mask of types); such decks play on the reference engine.
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
    cfg = np.zeros(kn.N_CFG, np.int64)
    cfg[kn.C_NA], cfg[kn.C_NW], cfg[kn.C_T] = na, nw, t
    cfg[kn.C_M], cfg[kn.C_P], cfg[kn.C_HAND] = rules.max_players, n_players, hand
    cfg[kn.C_ORDER] = kn.ORDER_LOSER_FIRST if rules.challenge_draw_order == "loser_first" else kn.ORDER_MOVER_FIRST
    cfg[kn.C_HIDDEN] = int(rules.hidden_wilds)
    cfg[kn.C_END_KIND], cfg[kn.C_END_PARAM] = _ENDS[rules.end_kind], rules.end_param
    cfg[kn.C_TARGET] = rules.target_score
    cfg[kn.C_TIE] = kn.TIE_SHARE if rules.tie_break == "share" else kn.TIE_EXTRA
    cfg[kn.C_MAX_EXTRA] = rules.max_extra_rounds
    cfg[kn.C_MAX_ROUNDS] = rules.max_rounds
    cfg[kn.C_N], cfg[kn.C_S], cfg[kn.C_CAP] = n, n // 2 + 1, cap
    cfg[kn.C_A], cfg[kn.C_W] = sp.size, 1 + nw
    st = sp.start
    cfg[kn.C_PD], cfg[kn.C_CH], cfg[kn.C_DI] = st["pair_discard"], st["challenge"], st["discard"]
    cfg[kn.C_RE], cfg[kn.C_GU] = st["respond"], st["give_up"]
    deck0 = np.repeat(np.arange(t, dtype=np.int8), counts)
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
    return kn.Consts(cfg, values, deck0, counts.astype(np.int64), wild_order, discard_order, act_hi, act_lo)


def allocate(rules: RuleSet, n_players: int, batch_size: int, key: int, game_indices, seat_agent,
             agent_names, agent_kinds, log_cap: int = 0, agent_params=None) -> BatchState:
    """Zeroed arrays of a :class:`BatchState` with its queue filled (no game started yet).

    Args:
        game_indices: (G,) int global game indices. seat_agent: (G, P) int indices into ``agent_names``.
        agent_kinds: per agent name, its compiled kind (kernels.KIND_*; -1 for Python agents).
        agent_params: (K, N_AGENT_PARAMS) float64 parameters of the compiled agents (default zeros).
        log_cap: L, actions logged per game (0: no log).

    Raises:
        ValueError: batch_size < 1, or shapes that do not match.
    """
    if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size is {batch_size!r}; it must be an integer >= 1")
    game_indices = np.ascontiguousarray(game_indices, dtype=np.int64)
    seat_agent = np.ascontiguousarray(seat_agent, dtype=np.int16)
    if game_indices.ndim != 1:
        raise ValueError(f"game_indices must be (G,); got shape {game_indices.shape}")
    if seat_agent.shape != (game_indices.shape[0], n_players):
        raise ValueError(f"seat_agent must be (G, P) = ({game_indices.shape[0]}, {n_players}); got {seat_agent.shape}")
    if seat_agent.size and (seat_agent.min() < 0 or seat_agent.max() >= len(agent_names)):
        raise ValueError(f"seat_agent values must be in 0..{len(agent_names) - 1} (indices into agents)")
    from agents.view import N_HDR, N_SEATCOL  # the strategy agents' view (imported late: agents imports us)

    k = make_consts(rules, n_players)
    cfg = k.cfg
    b, p, t, n = int(batch_size), n_players, int(cfg[kn.C_T]), int(cfg[kn.C_N])
    s, cap, g = int(cfg[kn.C_S]), int(cfg[kn.C_CAP]), game_indices.shape[0]
    kinds = np.asarray(agent_kinds, dtype=np.int8)
    z = np.zeros
    return BatchState(
        rules=rules, n_players=p, action_space=ActionSpace.for_rules(rules), agent_names=tuple(agent_names),
        consts=k,
        game_index=z(b, np.int64), queue_pos=np.full(b, -1, np.int64), done=np.ones(b, bool),
        to_act=np.full(b, -1, np.int8), engine_rng=z((b, 4), np.uint64), agent_rng=z((b, p, 4), np.uint64),
        agent_kind=z((b, p), np.int8), hands=z((b, p, t), np.int8), hand_count=z((b, p), np.int16),
        deck_order=z((b, n), np.int8), draw_pos=z(b, np.int16), discard=z((b, n), np.int8),
        discard_len=z(b, np.int16), n_sets=z(b, np.int16), set_asset=z((b, s), np.int8),
        set_size=z((b, s), np.int16), set_value=z((b, s), np.int64), set_card0=z((b, s), np.int8),
        set_known0=z((b, s), np.int32), set_below=z((b, s), np.int16), set_counts=z((b, s, t), np.int8),
        stack_top=np.full((b, p), -1, np.int16), stack_len=z((b, p), np.int16), stack_value=z((b, p), np.int64),
        ch_active=z(b, bool), ch_challenger=z(b, np.int8), ch_defender=z(b, np.int8), ch_asset=z(b, np.int8),
        ch_cards=z((b, cap), np.int8), ch_players=z((b, cap), np.int8), ch_len=z(b, np.int16),
        played=z((b, p), bool), gave_up=z((b, p, t), bool), current_player=z(b, np.int8), dealer=z(b, np.int8), first_dealer=z(b, np.int8),
        round=z(b, np.int32), totals=z((b, p), np.int64), round_wins=z((b, p), np.int32),
        eligible=z(b, np.int32), extra_rounds=z(b, np.int32), winners=z(b, np.int32), round_audit=z(b, np.int64),
        turns=z(b, np.int64), challenges=z(b, np.int64), decisions=z(b, np.int64), largest_steal=z(b, np.int64),
        q_game_index=game_indices, q_seat_agent=seat_agent,
        q_agent_kind=kinds[seat_agent] if g else z((0, p), np.int8),
        q_next=z(1, np.int64), key=np.array([key], dtype=np.uint64),
        r_done=z(g, bool), r_first_dealer=z(g, np.int16), r_totals=z((g, p), np.int64), r_winners=z(g, np.int32),
        r_rounds=z(g, np.int64), r_turns=z(g, np.int64), r_challenges=z(g, np.int64), r_decisions=z(g, np.int64),
        r_largest_steal=z(g, np.int64),
        log_actions=z((g, log_cap) if log_cap else (0, 0), np.int16),
        log_len=z(g if log_cap else 0, np.int32), err=z(3, np.int64),
        agent_params=(np.zeros((len(agent_names), kn.N_AGENT_PARAMS)) if agent_params is None
                      else np.ascontiguousarray(agent_params, dtype=np.float64)),
        v_hdr=z((b, N_HDR), np.int64), v_hand=z((b, t), np.int64), v_unseen=z((b, t), np.int64),
        v_seats=z((b, p, N_SEATCOL), np.int64), v_mask=z((b, int(cfg[kn.C_A])), bool), v_hands_all=z((b, p, t), np.int64),
        capped=z(b, bool), r_capped=z(g, bool),
    )


def field_names() -> tuple[str, ...]:
    """Names of the array fields of :class:`BatchState` (kernel order)."""
    return tuple(f.name for f in fields(BatchState) if f.name in kn.ARRAY_FIELDS)
