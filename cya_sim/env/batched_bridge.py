"""Every use the environments make of the compiled batched engine, in one module.

The vector environment (:mod:`cya_sim.env.vector`) calls only the functions
here, so a change of the batched engine's internals touches this file alone.
The learning seat is a Python seat of the batched engine (an agent without a
compiled form, :class:`LearnerSeat`): the compiled loop plays every opponent
seat of every row and stops in each row where the learner must act
(:func:`cya_sim.engine.batched.run_compiled`), exactly as the engine's adapter
for Python agents does (:mod:`cya_sim.engine.batched.adapter`).
"""

from __future__ import annotations

import numpy as np

from cya_sim.engine import batched
from cya_sim.rules import RuleSet

#: Agent spec of the learning seat in the batched engine (a Python seat the engine never calls itself).
LEARNER_SPEC = "cya_sim.env.batched_bridge:LearnerSeat"

#: Queue fields (first axis G) shifted together when the queue is recycled.
_QUEUE_FIELDS = ("q_game_index", "q_seat_agent", "q_agent_kind", "r_done", "r_first_dealer", "r_totals",
                 "r_winners", "r_rounds", "r_turns", "r_challenges", "r_decisions", "r_largest_steal")


class LearnerSeat:
    """Marks the learning seat of a vector environment; its actions come from ``step``, never from ``act``."""

    name = "learner"

    def act(self, obs, rng) -> int:
        """Never called by the environments.

        Raises:
            RuntimeError: always (the learner's actions are given to the vector environment's ``step``).
        """
        raise RuntimeError("the learner seat of a vector environment acts through env.step(actions)")


def new_batch(rules: RuleSet, n_players: int, batch_size: int, key: int, seat_agent_row: np.ndarray,
              opponent_specs: list[str], first_game: int, queue_len: int):
    """A batch with ``queue_len`` queued games ``first_game, first_game + 1, ...`` at its first learner decisions.

    Args:
        seat_agent_row: (P,) int index per seat into ``[LEARNER_SPEC] + opponent_specs``.
    """
    agents = (LEARNER_SPEC, *opponent_specs)
    games = np.arange(first_game, first_game + queue_len, dtype=np.int64)
    seat_agent = np.broadcast_to(np.asarray(seat_agent_row, np.int16), (queue_len, n_players)).copy()
    state = batched.init(rules, n_players, batch_size, key, games, seat_agent, agents)
    return state


def advance(state) -> None:
    """Play every opponent seat of every row until the learner must act (compiled, no Python per game)."""
    batched.run_compiled(state)


def observe(state):
    """:class:`~cya_sim.engine.batched.ObservationBatch` of each row's seat to act (the learner)."""
    return batched.observe(state)


def apply(state, actions: np.ndarray, rows: np.ndarray) -> None:
    """Apply the learner's ``actions`` (B,) in ``rows`` (B,) bool; finished games auto-reset.

    Raises:
        IllegalActionError: an action outside the mask (names the game, seat, agent and action).
    """
    batched.step(state, actions, rows)


def queue_pos(state) -> np.ndarray:
    """(B,) int64 queue position of each row's game (-1 idle)."""
    return state.queue_pos.copy()


def game_index(state) -> np.ndarray:
    """(B,) int64 global game index of each row's game."""
    return state.game_index.copy()


def finished_results(state, q: np.ndarray, n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, P) win shares (R-TIE) and (n, P) int64 final totals of the finished queued games ``q``."""
    bits = (state.r_winners[q][:, None] >> np.arange(n_players)[None, :]) & 1
    share = bits / np.maximum(bits.sum(1, keepdims=True), 1)
    return share, state.r_totals[q].copy()


def idle_rows(state) -> np.ndarray:
    """(B,) bool rows without a game (the queue ran out)."""
    return state.queue_pos < 0


def totals(state) -> np.ndarray:
    """(B, P) int64 running totals of each row's game in dollars."""
    return state.totals.copy()


def recycle_queue(state, min_free: int) -> None:
    """Keep at least ``min_free`` queued games not yet started: drop finished games from the queue's front.

    The queue positions before every row's current game are finished and read; they are dropped,
    the rest is moved to the front, and the freed tail gets the next game indices in order (with
    the same seat assignment), so rows go on taking games ``0, 1, 2, ...`` of the seed.

    When the games in progress span so much of the queue that fewer are freed, as many as possible are.
    """
    g = state.q_game_index.shape[0]
    nxt = int(state.q_next[0])
    if g - nxt >= min_free:
        return
    active = state.queue_pos[state.queue_pos >= 0]
    lo = int(active.min()) if active.size else nxt
    if lo == 0:
        return
    keep = g - lo
    last_game = int(state.q_game_index[g - 1])
    for name in _QUEUE_FIELDS:
        a = getattr(state, name)
        a[:keep] = a[lo:].copy()
        if name == "q_game_index":
            a[keep:] = np.arange(last_game + 1, last_game + 1 + lo)
        elif name in ("q_seat_agent", "q_agent_kind"):
            a[keep:] = a[0]
        else:
            a[keep:] = 0
    state.queue_pos[state.queue_pos >= 0] -= lo
    state.q_next[0] = nxt - lo
