"""Agents never return an illegal action (issue: strategy agents; issue 13 for the new presets).

The batched engine checks every compiled agent's action against the legal
action mask (``is_legal``) before applying it and raises IllegalActionError
otherwise, so a batch of games that finishes is a batch without one illegal
action. Each agent sits in every seat (rotation) against random, greedy and
card_counter opponents, for every preset: the classic family at 4 players;
the presets of issue 13 (``advanced`` at 2–6 players, ``two_player_draft`` and
``two_player_draft_advanced`` at 2, ``three_player_draft`` and ``three_player_draft_advanced``
at 3) at each of their table sizes. The slow target
plays 100,000 games per agent per preset (``advanced``: 20,000 per table size);
the default run 400. Every registered agent with a compiled form is listed
(``heuristic`` with its defaults and two other switch settings); the search
agents ``ismcts`` and ``pimc`` are not: they spend thousands of rollouts a
decision, far too slow for 100,000 games (their legality: tests/test_search_ismcts.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.play import get_play_games

AGENTS = ["random", "greedy", "heuristic", "heuristic(count=true, backup=true, cover=true, pair_first=false)",
          "heuristic(let_go=true, wild_first=true, fast_first=false, save_wild=true)",
          "wild_hoarder", "card_counter", "oracle(cheats=true)"]
OPPONENTS = ["random", "greedy", "card_counter"]
#: The presets of issue 13 and their table sizes; a new preset is one more line.
NEW_PRESETS = (("advanced", (2, 3, 4, 5, 6)), ("two_player_draft", (2,)), ("three_player_draft", (3,)),
               ("two_player_draft_advanced", (2,)), ("three_player_draft_advanced", (3,)))


def _play(agent: str, preset: str, games: int) -> None:
    pool = [agent] + [o for o in OPPONENTS if o != agent]
    line = [0, 1, 2, 3 % len(pool)] if len(pool) == 4 else [0, 1, 2, 1]
    seat_agent = np.array([np.roll(line, g % 4) for g in range(games)], np.int16)
    table = get_play_games("batched")(get_rules(preset), pool, seat_agent, root_key(77), np.arange(games))
    assert len(table) == games
    np.testing.assert_allclose(table.win_share.sum(axis=1), 1.0)


def _play_sizes(agent: str, preset: str, sizes: tuple[int, ...], games: int) -> None:
    """``games`` games of ``preset`` split over ``sizes``: ``agent`` at seat g % P of game g, the other seats
    filled with the opponents in turn (an opponent equal to ``agent`` is left out of the pool)."""
    pool = [agent] + [o for o in OPPONENTS if o != agent]
    for p in sizes:
        n = games // len(sizes)
        g = np.arange(n)
        sa = (1 + (g[:, None] // p + np.arange(p)[None, :]) % (len(pool) - 1)).astype(np.int16)
        sa[g, g % p] = 0
        table = get_play_games("batched")(get_rules(preset), pool, sa, root_key(77), g + p * 10_000_000)
        assert len(table) == n
        assert (table.decisions > 0).all()
        np.testing.assert_allclose(table.win_share.sum(axis=1), 1.0)


@pytest.mark.parametrize("preset", ["classic", "guide", "basic"])
@pytest.mark.parametrize("agent", AGENTS)
def test_agents_never_choose_an_illegal_action(agent, preset):
    _play(agent, preset, 400)


@pytest.mark.parametrize(("preset", "sizes"), NEW_PRESETS, ids=[p for p, _ in NEW_PRESETS])
@pytest.mark.parametrize("agent", AGENTS)
def test_agents_never_choose_an_illegal_action_new_presets(agent, preset, sizes):
    """RULES.md §6, §7: no illegal action in 400 games per agent of ``advanced`` and each draft."""
    _play_sizes(agent, preset, sizes, 400)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "guide", "basic"])
@pytest.mark.parametrize("agent", AGENTS)
def test_agents_never_choose_an_illegal_action_100k(agent, preset):
    _play(agent, preset, 100_000)


@pytest.mark.slow
@pytest.mark.parametrize(("preset", "sizes"), NEW_PRESETS, ids=[p for p, _ in NEW_PRESETS])
@pytest.mark.parametrize("agent", AGENTS)
def test_agents_never_choose_an_illegal_action_new_presets_100k(agent, preset, sizes):
    """Issue 13: no illegal action in 100,000 games per agent per new preset (``advanced``: 20,000 at each of
    2–6 players)."""
    _play_sizes(agent, preset, sizes, 100_000)
