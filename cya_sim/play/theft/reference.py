"""Play theft games with agents: one game with a readable log, or a batch into a GameTable (RULES.md §9).

This is the play layer of the theft game: it joins the reference engine
(:mod:`cya_sim.engine.theft.reference`) and the theft agents (:mod:`agents.theft.registry`).
Seeding as in :mod:`cya_sim.game.rng`: game ``g`` under root key ``key`` uses
stream 0 for the engine and stream ``1 + s`` for the agent at seat ``s``, so a
game depends only on (rules, line-up, key, g).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from agents.theft.registry import make_theft_agent
from cya_sim.engine.agent_calls import action_id, call_agent
from cya_sim.engine.table import GameTable
from cya_sim.engine.theft.observation import observe
from cya_sim.engine.theft.reference import TheftIllegalActionError, apply_action, new_game
from cya_sim.engine.theft.results import THEFT_COLUMNS
from cya_sim.game.rng import stream_generator
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.game.theft.state import TheftState


class TheftTurnCapWarning(UserWarning):
    """Some games of a batch stopped at ``rules.max_turns`` (a safeguard, not a rule)."""


@dataclass(frozen=True)
class TheftGameResult:
    """The outcome of one theft game.

    game_index: global index. first_player: the seat that moved first (R-T-SETUP).
    points: (P,) points of each seat's assets (R-T-END). winners: seats sharing the win.
    turns, thefts, cancelled, decisions: counts. largest_steal: points of the largest asset stolen.
    capped: the game stopped at ``max_turns``. actions: every action id, when recorded.
    """

    game_index: int
    first_player: int
    points: tuple[int, ...]
    winners: tuple[int, ...]
    turns: int
    thefts: int
    cancelled: int
    decisions: int
    largest_steal: int
    capped: bool
    actions: tuple[int, ...] | None = None

    @property
    def win_shares(self) -> tuple[float, ...]:
        """Per seat, 1/k if among the k winners, else 0 (R-T-END: ties share the win)."""
        k = len(self.winners)
        return tuple(1.0 / k if s in self.winners else 0.0 for s in range(len(self.points)))


def _result(state: TheftState, game_index: int, actions: list[int] | None) -> TheftGameResult:
    return TheftGameResult(game_index, state.first_player, tuple(state.scores()), tuple(state.winners),
                           state.turns, state.thefts, state.cancelled, state.decisions, state.largest_steal,
                           state.capped, tuple(actions) if actions is not None else None)


def play_game(rules: TheftRuleSet, agents: Sequence, key: int, game_index: int = 0,
              log: Callable[[str], None] | None = None, record_actions: bool = False) -> TheftGameResult:
    """Play one theft game to the end (R-T-END, or the turn cap) with one agent per seat.

    Args:
        rules: the theft rule set. agents: one agent per seat (P = len(agents)).
        key: 64-bit root key (:func:`cya_sim.game.rng.root_key`). game_index: the game's global index.
        log: optional callable receiving one readable line per event; seats are
            shown as ``seat 2 (greedy)``.
        record_actions: keep every action id in the result.

    Raises:
        RulesError: table size not allowed by the rules.
        TheftIllegalActionError: an agent returned an illegal action, or a value that is not an
            integer (a Python or NumPy integer, not a bool: 1.7, "3", True and None are refused, not
            coerced); the message names the agent, the seat, the game and the value.
        AgentError: an agent's ``act`` raised; the message names the agent, the seat and the game
            (:func:`cya_sim.engine.agent_calls.call_agent`).
    """
    if log is not None:
        raw = log

        def log(msg: str) -> None:
            for s in range(len(agents)):
                msg = msg.replace(f"seat {s} ", f"seat {s} ({agents[s].name}) ").replace(
                    f"seat {s}'s", f"seat {s} ({agents[s].name})'s")
            raw(msg)

    state = new_game(rules, len(agents), key, game_index, log)
    rngs = [stream_generator(key, game_index, 1 + s) for s in range(len(agents))]
    actions: list[int] | None = [] if record_actions else None
    while state.to_act >= 0:
        seat = state.to_act
        obs = observe(state, seat)
        legal = obs.legal_action_mask.copy()  # the engine's own: an agent may re-enable writes on the one it gets
        name = str(getattr(agents[seat], "name", type(agents[seat]).__name__))
        # the classic family's checks (cya_sim.engine.agent_calls): an exception names agent, seat and game;
        # anything but an integer id (1.7, "3", True, None) is refused, never coerced
        action = call_agent(agents[seat], name, seat, game_index, obs, rngs[seat])
        action = action_id(action, name, seat, game_index, legal.shape[0], TheftIllegalActionError)
        if not legal[action]:
            raise TheftIllegalActionError(
                f"agent {name!r} at seat {seat} in game {game_index} returned illegal action {action} "
                f"({obs.action_space.name(action)})")
        if actions is not None:
            actions.append(action)
        apply_action(state, action, log, legal_mask=legal)
    return _result(state, game_index, actions)


def play_theft_games(rules: TheftRuleSet, agents: Sequence[str], seat_agent, key: int, game_indices,
                     progress: Callable[[int], None] | None = None) -> GameTable:
    """Play a batch of theft games, one after another, into the per-game table every engine returns.

    Same signature and result type as the classic engines' ``play_games``
    (:mod:`cya_sim.engine`), so a tournament pipeline can call it at its
    engine-choice seam: the common columns (``totals`` = points, R-T-END, not dollars; ``win_share`` = 1/k per
    tied winner; ``decisions``; ``capped`` = stopped at ``rules.max_turns``, a safeguard, also warned about) and
    the theft game's own (:data:`cya_sim.engine.theft.results.THEFT_COLUMNS`: ``first_player``, ``turns``,
    ``thefts``, ``cancelled``, ``largest_steal`` in points), each read from the :class:`TheftGameResult`
    attribute of its name.

    Args:
        rules: the theft rule set. agents: agent specs (``agents.theft.registry``).
        seat_agent: (G, P) int, per game and seat an index into ``agents``.
        key: 64-bit root key. game_indices: (G,) int64 global game indices.
        progress: optional callable receiving the number of games just finished.

    Returns:
        a :class:`~cya_sim.engine.table.GameTable` in the order of ``game_indices``.

    Raises:
        ValueError: unknown agent spec; shapes that do not match.
        TheftIllegalActionError: an agent returned an illegal action or a non-integer.
        AgentError: an agent's ``act`` raised (agent, seat and game named).

    Warns:
        TheftTurnCapWarning: when games stopped at ``rules.max_turns`` (how many, which).
    """
    seat_agent = np.asarray(seat_agent, dtype=np.int16)
    game_indices = np.asarray(game_indices, dtype=np.int64)
    if seat_agent.ndim != 2 or seat_agent.shape[0] != game_indices.shape[0]:
        raise ValueError(f"seat_agent must be (G, P) with G = len(game_indices); got {seat_agent.shape}")
    g_n, p = seat_agent.shape
    rules.check_players(p)
    for name in agents:
        make_theft_agent(name)  # refuse unknown specs before playing
    cols = {c.name: np.zeros(g_n, c.dtype) for c in THEFT_COLUMNS.columns}
    decisions = np.zeros(g_n, np.int64)
    totals = np.zeros((g_n, p), np.int64)
    share = np.zeros((g_n, p), np.float64)
    capped = []
    capped_col = np.zeros(g_n, bool)
    for i in range(g_n):
        seats = [make_theft_agent(agents[j]) for j in seat_agent[i]]
        r = play_game(rules, seats, key, int(game_indices[i]))
        totals[i] = r.points
        share[i] = r.win_shares
        decisions[i] = r.decisions
        for name, column in cols.items():
            column[i] = getattr(r, name)
        if r.capped:
            capped.append(int(game_indices[i]))
            capped_col[i] = True
        if progress is not None:
            progress(1)
    if capped:
        warnings.warn(f"{len(capped)} of {g_n} theft games stopped at the turn cap max_turns={rules.max_turns} "
                      f"(game indices {capped[:10]}{' ...' if len(capped) > 10 else ''})",
                      TheftTurnCapWarning, stacklevel=2)
    return GameTable(game_indices, seat_agent, totals, share, decisions, THEFT_COLUMNS, cols, capped_col)
