"""The search steps the one compiled rules kernel, and its rollouts play the batched engine's games (issue 12).

Lockstep test: a game of the batched engine is played with random legal
actions up to a random point (checking at every step that the ordered legal
ids of :func:`~cya_sim.engine.classic.kernel.legal_list` are exactly the ids
:func:`~cya_sim.engine.classic.kernel.is_legal` accepts, R-TURN). Then a copy
of its row and of its engine stream is played to the end of the game by the
search's rollout (:func:`cya_sim.search.kernels.rollout`, ``win`` utility) with
a compiled policy, while the batched engine plays the original with the same
policy in every seat (:func:`cya_sim.play.loop.advance`). Both must end in
the identical game row (every hand, stack, set, total and counter), because
they run the same kernel and the same policy function (RULES.md §3–5).
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.classic.compiled import N_AGENT_PARAMS, POLICY_GREEDY, new_scratch
from agents.classic.registry import policy_of
from cya_sim.engine.classic.batched import init, step
from cya_sim.engine.classic.kernel import is_legal, legal_list
from cya_sim.engine.classic.layout import C_A, G_DONE, G_QUEUE_POS, G_ROUND, G_TO_ACT
from cya_sim.game.rules import get_rules
from cya_sim.play.loop import advance
from cya_sim.search.classic.kernels import UTIL_WIN, rollout


def _lockstep(preset: str, players: int, games: int, seed: int) -> int:
    rules = get_rules(preset)
    rng = np.random.default_rng(seed)
    checked = 0
    for g in range(games):
        state = init(rules, players, 1, 4242 + seed, game_indices=np.array([g]),
                     agents=("random", "greedy", "card_counter"))
        k = state.consts
        a_n = int(k.cfg[C_A])
        ids = np.zeros(a_n, np.int64)
        prefix = int(rng.integers(0, 120))
        for _ in range(prefix):
            row = state.rows[0]
            if row[G_DONE]:
                break
            n = legal_list(k, row, ids)
            assert [a for a in range(a_n) if is_legal(k, row, a)] == ids[:n].tolist(), (preset, players, g)
            step(state, np.array([ids[int(rng.integers(n))]]))
        if state.rows[0, G_DONE]:
            continue
        policy, addr, params = policy_of("greedy" if g % 2 == 0 else "card_counter", rules)
        gw = state.rows[0].copy()
        srng = state.engine_rng[0].copy()
        sc = new_scratch(k.cfg)
        rollout(k, gw, srng, sc, gw[G_ROUND], policy, addr, params, UTIL_WIN)
        slots = [policy_of(a, rules) for a in ("random", "greedy", "card_counter")]
        codes = np.array([c for c, _, _ in slots], np.int64)
        addrs = np.array([a for _, a, _ in slots], np.int64)
        state.q_seat_agent[:] = 1 if policy == POLICY_GREEDY else 2
        assert advance(k, state.rows, state.engine_rng, state.agent_rng, state.queue, codes, addrs,
                       np.zeros((3, N_AGENT_PARAMS)), sc) == 0
        assert bool(state.r_done[0]) and gw[G_DONE] == 1 and gw[G_TO_ACT] == -1
        mine, theirs = state.rows[0].copy(), gw
        mine[G_QUEUE_POS] = theirs[G_QUEUE_POS] = 0  # the row's bookkeeping: idle after the queue ran out
        assert np.array_equal(mine, theirs), (preset, players, g, np.flatnonzero(mine != theirs)[:10])
        checked += 1
    return checked


@pytest.mark.parametrize("preset, players", [("classic", 4), ("classic", 2), ("guide", 3), ("basic", 5)])
def test_search_rollouts_play_the_batched_engines_games(preset, players):
    assert _lockstep(preset, players, games=30, seed=players) >= 20


@pytest.mark.slow
@pytest.mark.parametrize("preset, players", [("classic", p) for p in range(2, 13)] + [("guide", 4), ("basic", 6)])
def test_search_rollouts_play_the_batched_engines_games_many(preset, players):
    assert _lockstep(preset, players, games=2_000, seed=100 + players) >= 1_500
