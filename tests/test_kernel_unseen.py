"""The unseen cards the rules kernel keeps incrementally equal a count from scratch at every decision (issue 12).

The compiled kernel keeps, in each game row's ``B_SEEN_PUBLIC`` and ``B_SEEN_PRIVATE`` blocks,
what every seat has seen this round outside its hand, so that its unseen cards (RULES.md §10
"unseen"; R-HIDDEN-WILD for what stays hidden) come without a recount
(:func:`~cya_sim.engine.classic.seen.unseen_of`); the rules call
:func:`~cya_sim.engine.classic.seen.reveal` at every event. These tests recompute it from scratch — "cards in play minus what
the seat has seen": its own hand, the discard pile, the challenge cards shown and every set card
except a first card hidden from it — and compare it with the kept block for **every seat at every
decision** of many random games, for every preset, several table sizes and ``hidden_wilds``
true and false, the two- and three-player drafts (§7) and the advanced rules (§6) included; and in games continued from the search's determinizations (whose blocks are
rebuilt by :func:`~cya_sim.engine.classic.seen.recount_seen`). A rule event that shows a card
without calling ``reveal`` (e.g. a new rule merged without it) fails here.

The from-scratch count is deliberately the other formula than the kernel's
:func:`~cya_sim.engine.classic.seen.count_unseen` (which counts where the unseen cards are);
both are checked.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from cya_sim.engine.classic.kernel import apply_action, legal_list, new_game
from cya_sim.engine.classic.layout import (
    B_ADV_REMOVED,
    B_CHCARDS,
    B_DECK,
    B_DISC,
    B_DRAFT_LEN,
    B_HANDS,
    B_SCARD0,
    B_SCOUNTS,
    B_SKNOWN0,
    C_A,
    C_DRAFT_PILES,
    C_DRAFT_SIZE,
    C_P,
    C_T,
    G_CH_ACTIVE,
    G_CH_LEN,
    G_DISC_LEN,
    G_DONE,
    G_DRAFT_DOWN,
    G_N_SETS,
    G_ROUND,
    make_consts,
    row_width,
)
from cya_sim.engine.classic.seen import count_unseen, unseen_of
from cya_sim.engine.pcg import next_double, seed_stream
from cya_sim.game.rules import get_rules

CASES = ([(preset, p) for preset in ("classic", "guide", "basic") for p in (2, 3, 4, 6)] + [("classic", 9), ("classic", 12)]
         + [("two_player_draft", 2), ("three_player_draft", 3)]  # §7: face-up draft tops seen, face-down unseen
         + [("advanced", 3), ("advanced", 4), ("advanced", 6)]  # §6: removed action cards, Swap, improve, Penny Jar
         + [("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3)])  # §7 with §6: action cards turned up
GAMES = 150


@njit(cache=True)
def _seen_based(K, G, seat, out):
    """(T,) unseen cards of ``seat``: deck counts minus its hand, the discard pile, the challenge cards, the face-up
    draft tops (§7), the cards out of the game (§6) and the sets' seen cards."""
    L = K.lay
    t = K.cfg[C_T]
    for c in range(t):
        out[c] = K.deck_counts[c] - G[L[B_HANDS] + seat * t + c]
    for i in range(G[G_DISC_LEN]):
        out[G[L[B_DISC] + i]] -= 1
    if G[G_CH_ACTIVE]:
        for i in range(G[G_CH_LEN]):
            out[G[L[B_CHCARDS] + i]] -= 1
    for st in range(G[G_N_SETS]):
        for c in range(t):
            out[c] -= G[L[B_SCOUNTS] + st * t + c]
        if (G[L[B_SKNOWN0] + st] >> seat) & 1 == 0:
            out[G[L[B_SCARD0] + st]] += 1
    for c in range(t):  # cards out of the game face up (§6 Swap/Move)
        out[c] -= G[L[B_ADV_REMOVED] + c]
    for j in range(K.cfg[C_DRAFT_PILES]):  # a pile's top is face up unless the pile was just taken from
        n = G[L[B_DRAFT_LEN] + j]
        if n > 0 and (G[G_DRAFT_DOWN] >> j) & 1 == 0:
            out[G[L[B_DECK] + j * K.cfg[C_DRAFT_SIZE] + n - 1]] -= 1


@njit(cache=True)
def _check_row(K, G, a, b, u):
    """-1 when every seat's unseen cards from the kept counts equal both counts from scratch; else the first bad seat."""
    t = K.cfg[C_T]
    for s in range(K.cfg[C_P]):
        _seen_based(K, G, s, a)
        count_unseen(K, G, s, b)
        unseen_of(K, G, s, u)
        for c in range(t):
            if u[c] != a[c] or a[c] != b[c] or a[c] < 0:
                return s
    return -1


@njit(cache=True)
def _play_and_check(K, G, rng, last_round, ids, a, b, u, bad):
    """Play random legal actions on row ``G`` until the game ends or passes ``last_round``, checking before each.

    Returns the decisions checked; on a mismatch ``bad`` gets (round, decision, seat) and -1 is returned.
    """
    n = 0
    while G[G_DONE] == 0 and G[G_ROUND] <= last_round:
        s = _check_row(K, G, a, b, u)
        if s >= 0:
            bad[0] = G[G_ROUND]
            bad[1] = n
            bad[2] = s
            return -1
        k = legal_list(K, G, ids)
        apply_action(K, G, rng, ids[int(next_double(rng) * k)])
        n += 1
    if G[G_DONE] == 0 and _check_row(K, G, a, b, u) >= 0:
        return -1
    return n


def _scratch(k):
    t = int(k.cfg[C_T])
    return (np.zeros(int(k.cfg[C_A]), np.int64), np.zeros(t, np.int64), np.zeros(t, np.int64), np.zeros(t, np.int64),
            np.zeros(3, np.int64))


@pytest.mark.parametrize("hidden", [True, False])
@pytest.mark.parametrize("preset, players", CASES)
def test_kept_unseen_equals_recount_at_every_decision(preset, players, hidden):
    """RULES.md §10 unseen, R-HIDDEN-WILD: the kept counts equal a recount for every seat at every decision."""
    rules = get_rules(preset, hidden_wilds=hidden)
    k = make_consts(rules, players)
    ids, a, b, u, bad = _scratch(k)
    g_row = np.zeros(row_width(k), np.int64)
    rng = np.zeros(4, np.uint64)
    decisions = 0
    for g in range(GAMES):
        g_row[:] = 0
        seed_stream(rng, 20261130, g, 0)
        new_game(k, g_row, rng)
        n = _play_and_check(k, g_row, rng, 1 << 40, ids, a, b, u, bad)
        assert n >= 0, f"{preset} P={players} hidden_wilds={hidden} game {g}: kept unseen != recount " \
                       f"(round, decision, seat) = {bad.tolist()}"
        decisions += n
    assert decisions > GAMES * 20


@pytest.mark.parametrize("preset, players", [("classic", 4), ("guide", 3), ("basic", 6), ("classic", 2),
                                             ("two_player_draft", 2), ("three_player_draft", 3), ("advanced", 4),
                                             ("two_player_draft_advanced", 2), ("three_player_draft_advanced", 3)])
def test_kept_unseen_from_determinizations(preset, players):
    """The search's determinizations rebuild the seen counts (recount_seen); the rules keep it from there to the round's end."""
    from agents.classic.greedy import GreedyAgent
    from cya_sim.engine.classic.reference import apply_action as ref_apply
    from cya_sim.engine.classic.reference import new_game as ref_new_game
    from cya_sim.engine.classic.reference.observation import observe
    from cya_sim.search.classic.determinize import Determinizer

    rules = get_rules(preset)
    checked = 0
    for g in range(6):
        state = ref_new_game(rules, players, 77, g)
        greedy = GreedyAgent()
        for _ in range(10 + 7 * g):
            if state.winners is not None:
                break
            ref_apply(state, greedy.act(observe(state, state.to_act), None))
        if state.winners is not None:
            continue
        det = Determinizer(observe(state, state.to_act))
        k = det.state.consts
        ids, a, b, u, bad = _scratch(k)
        rng = np.zeros(4, np.uint64)
        seed_stream(rng, 5, g, 0)
        for sample in det.sample(rng, 20):
            row = sample["flat"]
            n = _play_and_check(k, row, rng, int(row[G_ROUND]), ids, a, b, u, bad)
            assert n >= 0, f"{preset} P={players} position {g}: kept unseen != recount, {bad.tolist()}"
            checked += n
    assert checked > 100
