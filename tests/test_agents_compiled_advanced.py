"""``greedy`` under the advanced rules (RULES.md §6): the row-reading compiled form equals the view form at every decision.

:func:`agents.classic.compiled_advanced.greedy_advanced_act` takes ``greedy``'s §6 decision from the game row
without building the agent view; the ``heuristic`` view policy with ``greedy``'s switches
(:func:`agents.classic.compiled.policy_act` with its C address) takes it over the view (``advanced_first``, ``heuristic_decide``, ``advanced_last``, the
same functions the single-game :class:`agents.classic.greedy.GreedyAgent` runs). These tests play games in
which every decision is asked of both and one of the two answers, or a uniformly random legal
action, is played, so that the positions reach every §6 decision (Swap, Move, deep challenges,
improve, two cards owed, ``end_turn``, hands of only action cards). Every answer must be equal and
legal, for the ``advanced`` preset at 2–6 players and for its options (R-ADV-DEEP ``one_for_one``,
one action a turn, more action cards, no hidden wilds, a Penny Jar worth more than other wilds, the
§6 cards without the §6 actions). The reference engine's Python ``greedy`` is compared with the
compiled one game by game in ``tests/test_batched_differential.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

# A compiled harness of its own (the rules kernel inlined once, the view policy called by its C address):
# about 6 s to compile on a cold cache since the kernel no longer inlines its callees at numba's IR level.
from agents.classic.compiled import GREEDY_AS_HEURISTIC, POLICY_VIEW, new_scratch, policy_act
from agents.classic.compiled_advanced import covers, greedy_advanced_act
from agents.classic.compiled_strategy import STRATEGY_HEURISTIC, strategy_address
from cya_sim.engine.classic.kernel import apply_action, is_legal, legal_list, new_game
from cya_sim.engine.classic.layout import (
    C_ADV_DC,
    C_ADV_END,
    C_ADV_IM,
    C_ADV_MV,
    C_ADV_R2,
    C_ADV_SW,
    C_CH,
    C_DI,
    C_GU,
    C_RE,
    G_ADV_OWED,
    G_CH_ACTIVE,
    G_DONE,
    G_TO_ACT,
    make_consts,
    row_width,
)
from cya_sim.engine.pcg import next_double, seed_stream
from cya_sim.game.rules import get_rules

#: Kinds of decision counted (index into the ``kinds`` array).
KINDS = ("pair", "challenge", "discard", "respond", "give_up", "end_turn", "improve", "swap", "move", "deep",
         "pay_two")


@njit(cache=True)
def _kind(K, G, a):
    """Index into :data:`KINDS` of action ``a`` (a Penny Jar alone or a pay-two pair, when two cards are owed, is ``pay_two``)."""
    cfg = K.cfg
    if G[G_CH_ACTIVE] and G[G_ADV_OWED] >= 2 and a != cfg[C_GU]:
        return 10
    if a < cfg[C_CH]:
        return 0
    if a < cfg[C_DI]:
        return 1
    if a < cfg[C_RE]:
        return 2
    if a < cfg[C_GU]:
        return 3
    if a == cfg[C_GU]:
        return 4
    if a < cfg[C_ADV_IM]:
        return 5
    if a < cfg[C_ADV_SW]:
        return 6
    if a < cfg[C_ADV_MV]:
        return 7
    if a < cfg[C_ADV_DC]:
        return 8
    if a < cfg[C_ADV_R2]:
        return 9
    return 10 if a < cfg[C_ADV_END] else -1


@njit(cache=True)
def _play_and_compare(K, G, rng, addr, params, sc, ids, p_random, kinds, bad):
    """Play row ``G`` to the game's end, asking both forms at every decision; the decisions compared, or -1.

    Each decision plays a uniformly random legal action with probability ``p_random``, else the choice.
    ``kinds`` counts the kinds of the compared choices; on a mismatch or an illegal choice ``bad`` gets
    (decision, row form's id, view form's id) and -1 is returned.
    """
    n = 0
    while G[G_DONE] == 0:
        seat = G[G_TO_ACT]
        fast = greedy_advanced_act(K, G, seat)
        slow = policy_act(POLICY_VIEW, addr, K, G, seat, params, rng, sc)
        if fast != slow or not is_legal(K, G, fast):
            bad[0] = n
            bad[1] = fast
            bad[2] = slow
            return -1
        kinds[_kind(K, G, fast)] += 1
        a = fast
        if next_double(rng) < p_random:
            k = legal_list(K, G, ids)
            a = ids[int(next_double(rng) * k)]
        apply_action(K, G, rng, a)
        n += 1
    return n


def _compare(rules, players: int, games: int, p_random: float, key: int) -> np.ndarray:
    """Play ``games`` games; assert equal, legal choices; the kind counts."""
    k = make_consts(rules, players)
    assert covers(k)
    sc = new_scratch(k.cfg)
    ids = np.zeros(int(k.cfg[16]), np.int64)
    row = np.zeros(row_width(k), np.int64)
    rng = np.zeros(4, np.uint64)
    kinds = np.zeros(len(KINDS), np.int64)
    bad = np.zeros(3, np.int64)
    params = np.zeros(16, np.float64)
    params[: GREEDY_AS_HEURISTIC.shape[0]] = GREEDY_AS_HEURISTIC
    addr = strategy_address(STRATEGY_HEURISTIC)
    for g in range(games):
        row[:] = 0
        seed_stream(rng, key, g, 0)
        new_game(k, row, rng)
        n = _play_and_compare(k, row, rng, addr, params, sc, ids, p_random, kinds, bad)
        assert n >= 0, (f"{rules.name} P={players} game {g}: at decision {bad[0]} the row form chose {bad[1]}, "
                        f"the view form {bad[2]} (or the row form's choice is illegal)")
    return kinds


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_greedy_advanced_row_form_equals_view_form(players):
    """R-ADV-TWO … R-ADV-SETUP: same greedy choice from the row as from the view, at every decision of 120 games."""
    kinds = _compare(get_rules("advanced"), players, 120, 0.35, 20261130 + players)
    seen = dict(zip(KINDS, kinds.tolist()))
    for kind in KINDS:  # every §6 decision was compared, not only the classic ones
        assert seen[kind] > 0, f"no {kind} choice compared at {players} players: {seen}"


OPTIONS = [
    {"deep_challenge_costs": "one_for_one"},
    {"actions_per_turn": 1},
    {"action_card_counts": (4, 4, 4)},
    {"hidden_wilds": False},
    {"penny_jar_value": 50_000},
    {"advanced_actions": False},
    {"action_card_counts": (0, 0, 2), "advanced_actions": False},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_greedy_advanced_row_form_equals_view_form_options(options):
    """The §6 options change which blocks exist and what is cheapest; the two forms still agree at every decision."""
    kinds = _compare(get_rules("advanced", **options), 4, 60, 0.35, 7 + len(options))
    assert kinds.sum() > 60 * 100
