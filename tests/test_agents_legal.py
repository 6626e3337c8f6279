"""Agents never return an illegal action (issue: strategy agents).

The batched engine checks every compiled agent's action against the legal
action mask (``is_legal``) before applying it and raises IllegalActionError
otherwise, so a batch of games that finishes is a batch without one illegal
action. Each agent sits in every seat (rotation) against random, greedy and
card_counter opponents, for every preset. The slow target plays 100,000 games
per agent per preset; the default run 400.
"""

from __future__ import annotations

import numpy as np
import pytest

from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.play import get_play_games

AGENTS = ["random", "greedy", "heuristic(count=true, backup=true, cover=true, pair_first=false)",
          "heuristic(let_go=true, wild_first=true, fast_first=false, save_wild=true)",
          "wild_hoarder", "card_counter", "oracle(cheats=true)"]
OPPONENTS = ["random", "greedy", "card_counter"]


def _play(agent: str, preset: str, games: int) -> None:
    pool = [agent] + [o for o in OPPONENTS if o != agent]
    line = [0, 1, 2, 3 % len(pool)] if len(pool) == 4 else [0, 1, 2, 1]
    seat_agent = np.array([np.roll(line, g % 4) for g in range(games)], np.int16)
    table = get_play_games("batched")(get_rules(preset), pool, seat_agent, root_key(77), np.arange(games))
    assert len(table) == games
    np.testing.assert_allclose(table.win_share.sum(axis=1), 1.0)


@pytest.mark.parametrize("preset", ["classic", "guide", "basic"])
@pytest.mark.parametrize("agent", AGENTS)
def test_agents_never_choose_an_illegal_action(agent, preset):
    _play(agent, preset, 400)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "guide", "basic"])
@pytest.mark.parametrize("agent", AGENTS)
def test_agents_never_choose_an_illegal_action_100k(agent, preset):
    _play(agent, preset, 100_000)
