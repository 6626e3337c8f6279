"""Every use the environments make of the compiled batched engine, in one module.

The vector environment (:mod:`cya_sim.env.vector`) calls only the functions
here, so a change of the batched engine's internals touches this file alone.
The batched engine (:mod:`cya_sim.engine.batched`) only applies actions; the
opponents' compiled policies are joined to it by the play layer's compiled loop
(:func:`cya_sim.play.batched.run_compiled` with a :class:`~cya_sim.play.batched.Lineup`).
The learning seat is a Python seat of that line-up (an agent without a
compiled form, :class:`LearnerSeat`): the compiled loop plays every opponent
seat of every row and stops in each row where the learner must act, exactly
as it stops for any Python agent (:func:`cya_sim.play.batched.play_with_python_agents`).
"""

from __future__ import annotations

import numpy as np

from cya_sim.engine import batched
from cya_sim.engine.batched import BatchState
from cya_sim.game.rules import RuleSet
from cya_sim.play.batched import Lineup, run_compiled

#: Agent spec of the learning seat in the batched engine (a Python seat the engine never calls itself).
LEARNER_SPEC = "cya_sim.env.batched_bridge:LearnerSeat"

#: Per-game queue fields (first axis G, :class:`cya_sim.engine.batched.state.Queue`) shifted together when the
#: queue is recycled (the environments keep no action log, so ``log_actions``/``log_len`` are empty).
_QUEUE_FIELDS = ("q_game_index", "q_seat_agent", "r_done", "r_first_dealer", "r_totals", "r_winners", "r_rounds",
                 "r_turns", "r_challenges", "r_decisions", "r_largest_steal", "r_capped")


class LearnerSeat:
    """Marks the learning seat of a vector environment; its actions come from ``step``, never from ``act``."""

    name = "learner"

    def act(self, obs, rng) -> int:
        """Never called by the environments.

        Raises:
            RuntimeError: always (the learner's actions are given to the vector environment's ``step``).
        """
        raise RuntimeError("the learner seat of a vector environment acts through env.step(actions)")


class Batch:
    """The batched engine's state of a vector environment and the line-up that plays its opponents.

    Attributes:
        state: the :class:`~cya_sim.engine.batched.BatchState` (B rows, a queue of G games).
        lineup: the :class:`~cya_sim.play.batched.Lineup` of ``[LEARNER_SPEC] + opponent_specs``
            (the learner's policy code is -1: a Python seat).
    """

    def __init__(self, state: BatchState, lineup: Lineup) -> None:
        self.state, self.lineup = state, lineup


def new_batch(rules: RuleSet, n_players: int, batch_size: int, key: int, seat_agent_row: np.ndarray,
              opponent_specs: list[str], first_game: int, queue_len: int) -> Batch:
    """A batch of ``batch_size`` rows fed by ``queue_len`` queued games ``first_game, first_game + 1, ...``.

    Each row is dealt its first game (R-SETUP); call :func:`advance` to reach the learner's first decisions.

    Args:
        rules: the rule set. n_players: P. key: 64-bit root key (:func:`cya_sim.game.rng.root_key`).
        seat_agent_row: (P,) int index per seat into ``[LEARNER_SPEC] + opponent_specs``.
        opponent_specs: agent specs with a compiled form.

    Raises:
        RulesError: ``n_players`` not allowed. ValueError: bad shapes, an unknown agent spec.
    """
    agents = (LEARNER_SPEC, *opponent_specs)
    games = np.arange(first_game, first_game + queue_len, dtype=np.int64)
    seat_agent = np.broadcast_to(np.asarray(seat_agent_row, np.int16), (queue_len, n_players)).copy()
    state = batched.init(rules, n_players, batch_size, key, games, seat_agent, agents)
    return Batch(state, Lineup(agents, rules))


def advance(batch: Batch) -> None:
    """Play every opponent seat of every row until the learner must act (compiled, no Python per game).

    Raises:
        IllegalActionError: a compiled opponent chose an illegal action (names agent, seat, game, action).
    """
    run_compiled(batch.state, lineup=batch.lineup)


def observe(batch: Batch):
    """:class:`~cya_sim.engine.batched.ObservationBatch` of each row's seat to act (the learner)."""
    return batched.observe(batch.state)


def apply(batch: Batch, actions: np.ndarray, rows: np.ndarray) -> None:
    """Apply the learner's ``actions`` (B,) int64 in ``rows`` (B,) bool; finished games auto-reset.

    Raises:
        IllegalActionError: an action outside the mask (names the game, seat, agent and action); no row changes.
    """
    batched.step(batch.state, actions, rows)


def queue_pos(batch: Batch) -> np.ndarray:
    """(B,) int64 queue position of each row's game (-1 idle)."""
    return batch.state.queue_pos.copy()


def game_index(batch: Batch) -> np.ndarray:
    """(B,) int64 global game index of each row's game."""
    return batch.state.game_index.copy()


def finished_results(batch: Batch, q: np.ndarray, n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """(n, P) float64 win shares (R-TIE) and (n, P) int64 final totals in dollars of the finished queued games ``q`` (n,)."""
    st = batch.state
    bits = (st.r_winners[q][:, None] >> np.arange(n_players)[None, :]) & 1
    share = bits / np.maximum(bits.sum(1, keepdims=True), 1)
    return share, st.r_totals[q].copy()


def finished_capped(batch: Batch, q: np.ndarray) -> np.ndarray:
    """(n,) bool: the finished queued games ``q`` (n,) were stopped by the ``max_rounds`` safeguard, not R-GAME-END."""
    return batch.state.r_capped[q].copy()


def idle_rows(batch: Batch) -> np.ndarray:
    """(B,) bool rows without a game (the queue ran out)."""
    return batch.state.queue_pos < 0


def totals(batch: Batch) -> np.ndarray:
    """(B, P) int64 running totals of each row's game in dollars."""
    return batch.state.totals.copy()


def recycle_queue(batch: Batch, min_free: int) -> None:
    """Keep at least ``min_free`` queued games not yet started: drop finished games from the queue's front.

    The queue positions before every row's current game are finished and read; they are dropped,
    the rest is moved to the front, and the freed tail gets the next game indices in order (with
    the same seat assignment), so rows go on taking games ``0, 1, 2, ...`` of the seed.

    When the games in progress span so much of the queue that fewer are freed, as many as possible are.
    """
    st = batch.state
    g = st.q_game_index.shape[0]
    nxt = int(st.q_next[0])
    if g - nxt >= min_free:
        return
    active = st.queue_pos[st.queue_pos >= 0]
    lo = int(active.min()) if active.size else nxt
    if lo == 0:
        return
    keep = g - lo
    last_game = int(st.q_game_index[g - 1])
    for name in _QUEUE_FIELDS:
        a = getattr(st.queue, name)
        a[:keep] = a[lo:].copy()
        if name == "q_game_index":
            a[keep:] = np.arange(last_game + 1, last_game + 1 + lo)
        elif name == "q_seat_agent":
            a[keep:] = a[0]
        else:
            a[keep:] = 0  # False for r_capped
    qp = st.queue_pos
    qp[qp >= 0] -= lo
    st.q_next[0] = nxt - lo
