"""Playing games on the reference engine: each seat's agent made from its spec, one game after another."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from agents.classic.registry import make_agent
from cya_sim.engine.classic.reference import play_game
from cya_sim.engine.classic.results import CLASSIC_COLUMNS
from cya_sim.engine.table import GameTable
from cya_sim.game.rules import RuleSet


def play_games(
    rules: RuleSet,
    agents: Sequence[str],
    seat_agent,
    key: int,
    game_indices,
    progress: Callable[[int], None] | None = None,
):
    """Play many games on the reference engine, one after another.

    Args:
        rules: the rule set.
        agents: agent specs (registered names, see ``agents.classic.registry.make_agent``).
        seat_agent: (G, P) int, for each game and seat an index into ``agents``.
        key: 64-bit root key. game_indices: (G,) int64 global game indices.
        progress: optional callable receiving the number of games just finished.

    Returns:
        a :class:`~cya_sim.engine.table.GameTable` in the order of ``game_indices``: totals in dollars and the
        classic family's own columns (:data:`cya_sim.engine.classic.results.CLASSIC_COLUMNS`), each read from
        the :class:`~cya_sim.engine.classic.reference.game.GameResult` attribute of its name.

    Raises:
        ValueError: unknown agent name; shapes that do not match.
        IllegalActionError: an agent returned an illegal action or a value that is not an integer
            (names agent, seat, game and value; :mod:`cya_sim.engine.agent_calls`).
        AgentError: an agent's ``act`` raised (names agent, seat and game).
    """
    seat_agent = np.asarray(seat_agent, dtype=np.int16)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent.ndim != 2 or seat_agent.shape[0] != game_indices.shape[0]:
        raise ValueError(f"seat_agent must be (G, P) with G = len(game_indices); got {seat_agent.shape}")
    g_n, p = seat_agent.shape
    rules.check_players(p)
    for name in agents:
        make_agent(name)  # refuse unknown names before playing
    cols = {c.name: np.zeros(g_n, c.dtype) for c in CLASSIC_COLUMNS.columns}
    decisions = np.zeros(g_n, np.int64)
    capped = np.zeros(g_n, bool)
    totals = np.zeros((g_n, p), np.int64)
    share = np.zeros((g_n, p), np.float64)
    for i in range(g_n):
        seats = [make_agent(agents[j]) for j in seat_agent[i]]
        r = play_game(rules, seats, key, int(game_indices[i]))
        totals[i] = r.totals
        share[i] = r.win_shares
        decisions[i] = r.decisions
        capped[i] = r.capped
        for name, column in cols.items():
            column[i] = getattr(r, name)
        if progress is not None:
            progress(1)
    return GameTable(game_indices, seat_agent, totals, share, decisions, CLASSIC_COLUMNS, cols, capped)
