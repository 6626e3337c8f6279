"""Invariants over random games in the batched engine (issue 3), checked inside compiled code.

After every action of every game:

- every card in play is in exactly one place: hands, draw pile, discard pile, the sets of the
  stacks, the challenge in progress, the cards out of the game (R-DECK-2011, R-DECK-MULTI, §6);
- the dollars in all those places add up to ``rules.round_total(P)`` ($1,360,000 per deck), each
  stack's running value equals the sum of its sets, each set's value and size match its cards;
- the seat to act has at least one legal action, and the action chosen is legal (R-TURN).

At the end of every round the stacks plus the discard pile are worth ``rules.round_total(P)``
(R-SCORE; the engine's ``round_audit``). Every game ends with winners among the seats and win
shares summing to 1.

An action outside the legal mask is never accepted: the batched legal mask equals the reference
engine's at every step (tests/test_batched_api.py) and :func:`step` refuses the rest (same file).

Default: ``CYA_BATCHED_INVARIANT_GAMES`` games per preset (default 4,000; 12,000 in all, spread
over 2–6 players; a fifth of it per draft preset, the draft piles counted too). Slow target: 1,000,000
games.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from numba import njit

from agents.classic.compiled import new_scratch, policy_act
from agents.classic.registry import policy_of
from cya_sim.engine.batched import loops
from cya_sim.engine.classic.batched import init, results
from cya_sim.engine.classic.kernel import apply_action, is_legal
from cya_sim.engine.classic.layout import (
    B_ADV_REMOVED,
    B_CHCARDS,
    B_DECK,
    B_DISC,
    B_DRAFT_LEN,
    B_HANDS,
    B_HCOUNT,
    B_SASSET,
    B_SBELOW,
    B_SCOUNTS,
    B_SLEN,
    B_SSIZE,
    B_STOP,
    B_SVAL,
    B_SVALUE,
    C_A,
    C_DRAFT_PILES,
    C_DRAFT_SIZE,
    C_N,
    C_P,
    C_T,
    CONSTS_DTYPE,
    G_CH_LEN,
    G_DISC_LEN,
    G_DONE,
    G_DRAW_POS,
    G_QUEUE_POS,
    G_ROUND,
    G_ROUND_AUDIT,
    G_TO_ACT,
)
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules

#: The shared batch driver's step for the classic game (a game's own compiled code calls a shared loop's dispatcher
#: for its game: cya_sim.engine.hooks.per_game).
finish_and_refill = loops.finish_and_refill.for_game(CONSTS_DTYPE.names)

FAST = int(os.environ.get("CYA_BATCHED_INVARIANT_GAMES", "4000"))


@njit(cache=True, _nrt=False)
def _check_row(K, G, counts, round_total):
    """0 if game row G satisfies the card and dollar invariants, else an error code (1..5)."""
    cfg = K.cfg
    L = K.lay
    p = cfg[C_P]
    t = cfg[C_T]
    n = cfg[C_N]
    values = K.values
    counts[:] = 0
    for s in range(p):
        hc = 0
        for c in range(t):
            counts[c] += G[L[B_HANDS] + s * t + c]
            hc += G[L[B_HANDS] + s * t + c]
        if hc != G[L[B_HCOUNT] + s]:
            return 1
    for i in range(G[G_DRAW_POS], n):
        counts[G[L[B_DECK] + i]] += 1
    for i in range(G[G_DISC_LEN]):
        counts[G[L[B_DISC] + i]] += 1
    for i in range(G[G_CH_LEN]):
        counts[G[L[B_CHCARDS] + i]] += 1
    for c in range(t):  # cards out of the game (RULES.md §6)
        counts[c] += G[L[B_ADV_REMOVED] + c]
    for j in range(cfg[C_DRAFT_PILES]):  # cards left in the draft piles (§7), counted with the discard pile's dollars
        for i in range(G[L[B_DRAFT_LEN] + j]):
            counts[G[L[B_DECK] + j * cfg[C_DRAFT_SIZE] + i]] += 1
    for s in range(p):
        st = G[L[B_STOP] + s]
        m = 0
        v = 0
        while st >= 0:
            sv = 0
            sz = 0
            c0 = L[B_SCOUNTS] + st * t
            for c in range(t):
                counts[c] += G[c0 + c]
                sv += G[c0 + c] * values[c]
                sz += G[c0 + c]
            if sv != G[L[B_SVALUE] + st] or sz != G[L[B_SSIZE] + st] or G[c0 + G[L[B_SASSET] + st]] < 1:
                return 2
            v += sv
            m += 1
            st = G[L[B_SBELOW] + st]
        if m != G[L[B_SLEN] + s] or v != G[L[B_SVAL] + s]:
            return 3
    total = 0
    for c in range(t):
        if counts[c] != K.deck_counts[c]:
            return 4
        total += counts[c] * values[c]
    if total != round_total:
        return 5
    return 0


@njit(cache=True, _nrt=False)
def play_checked(K, R, ER, AR, Q, pcode, paddr, params, sc, counts, round_total, out):
    """Play every queued game with compiled policies, checking the invariants after every action.

    pcode: (K_agents,) int64 policy code per agent; paddr: (K_agents,) int64 view policies' C addresses;
    params: (K_agents, N_AGENT_PARAMS) float64.
    out: (4,) int64 — [error code, row, decisions checked, round ends checked].
    """
    for b in range(R.shape[0]):
        G = R[b]
        while True:
            if G[G_DONE]:
                if G[G_QUEUE_POS] < 0:
                    break
                finish_and_refill(K, R, ER, AR, Q, b)
                continue
            err = _check_row(K, G, counts, round_total)
            if err:
                out[0] = err
                out[1] = b
                return
            seat = G[G_TO_ACT]
            n_legal = 0
            for a in range(K.cfg[C_A]):
                if is_legal(K, G, a):
                    n_legal += 1
            ai = Q.q_seat_agent[G[G_QUEUE_POS], seat]
            a = policy_act(pcode[ai], paddr[ai], K, G, seat, params[ai], AR[b, seat], sc)
            if n_legal == 0 or not is_legal(K, G, a):
                out[0] = 6
                out[1] = b
                return
            rnd = G[G_ROUND]
            apply_action(K, G, ER[b], a)
            out[2] += 1
            if G[G_ROUND] != rnd or G[G_DONE]:
                out[3] += 1
                if G[G_ROUND_AUDIT] != round_total:
                    out[0] = 7
                    out[1] = b
                    return


def run_invariants(preset: str, n_players: int, games: int, start: int, seed: int = 99, agent: str = "") -> None:
    """Play ``games`` random/greedy games (or, with ``agent``, games of that built-in agent at every seat)
    checking every invariant of the module docstring after every action."""
    rules = get_rules(preset)
    gi = np.arange(games, dtype=np.int64) + start
    sa = np.random.default_rng(start).integers(0, 2, (games, n_players))
    sa[: games // 2] = 0  # half the games all-random
    names = ["random", "greedy"]
    if agent:
        names, sa = [agent], np.zeros_like(sa)
    slots = [policy_of(n, rules) for n in names]
    codes = np.array([c for c, _, _ in slots], np.int64)
    addrs = np.array([a for _, a, _ in slots], np.int64)
    params = np.array([p for _, _, p in slots], np.float64)
    st = init(rules, n_players, 64, root_key(seed), gi, sa, names)
    out = np.zeros(4, np.int64)
    play_checked(st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, codes, addrs, params,
                 new_scratch(st.consts.cfg),
                 np.zeros(rules.deck.n_types, np.int64), rules.round_total(n_players), out)
    assert out[0] == 0, (f"invariant {out[0]} broken in game {int(st.game_index[out[1]])} "
                         f"({preset}, {n_players} players, seed {seed})")
    assert st.r_done.all()
    table = results(st)
    assert np.allclose(table.win_share.sum(axis=1), 1.0)
    assert out[3] == table.rounds.sum()
    assert out[2] == table.decisions.sum()
    if rules.end_kind == "target":
        assert (table.totals.max(axis=1) >= rules.target_score).all()
    best = table.totals.max(axis=1, keepdims=True)
    assert ((table.win_share > 0) == (table.totals == best)).all()


@pytest.mark.parametrize("preset", ["classic", "guide", "basic", "advanced"])
def test_invariants_card_conservation_and_round_total(preset):
    """R-DECK-2011, R-SCORE ($1,360,000 per deck per round; + 2 Penny Jars under ``advanced``, R-DECK-ACTION,
    with the removed Swap and Move cards counted), R-TURN over random/greedy games."""
    per = max(1, FAST // 5)
    for p in (2, 3, 4, 5, 6):
        run_invariants(preset, p, per, start=p * 1_000_000)


@pytest.mark.parametrize(("preset", "players"), [("two_player_draft", 2), ("three_player_draft", 3),
                                                   ("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3)])
def test_invariants_drafts(preset, players):
    """R-2P-DRAFT, R-3P-DRAFT (with §6 in the ``*_advanced`` presets): every card in one place (the draft piles
    and the action cards turned up on them included) and the round total (stacks + discard pile + leftover
    draft cards = $1,100,000 / $1,360,000, + 2 Penny Jars with §6) after every action of random/greedy games."""
    run_invariants(preset, players, max(1, FAST // 5), start=players * 3_000_000)


def test_invariants_more_than_six_players():
    """R-DECK-MULTI: 165 and 220 cards at 7 and 12 players."""
    for p in (7, 9, 12):
        run_invariants("classic", p, 200, start=p * 1_000_000)


@pytest.mark.slow
def test_invariants_one_million_games():
    """1,000,000 games (classic, guide, basic; 2–6 players) with every invariant checked after every action."""
    per = 1_000_000 // 15 + 1
    for preset in ("classic", "guide", "basic"):
        for p in (2, 3, 4, 5, 6):
            run_invariants(preset, p, per, start=p * 10_000_000, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["random", "greedy", "heuristic", "card_counter"])
@pytest.mark.parametrize(("preset", "players"), [("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3)])
def test_invariants_draft_advanced_100k_games_per_agent(preset, players, agent):
    """The drafts with §6: 100,000 games per built-in agent (every seat), no illegal action, every invariant after
    every action."""
    run_invariants(preset, players, 100_000, start=players * 40_000_000, seed=13, agent=agent)


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["random", "greedy", "heuristic", "card_counter"])
def test_invariants_advanced_100k_games_per_agent(agent):
    """``advanced`` (RULES.md §6): 100,000 games per built-in agent (every seat), no illegal action, every
    invariant after every action."""
    for p in (2, 3, 4, 5, 6):
        run_invariants("advanced", p, 20_000, start=p * 30_000_000, seed=11, agent=agent)
