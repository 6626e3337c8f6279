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

Autoreset: the engine's queue holds one game per row and none waiting, so a row whose game ends
stops there (idle, its last position kept) instead of starting the next game inside the compiled
call. :func:`step` then reads the result and the learner's last observation of each finished game
(the vector environment's ``info["final_obs"]``) and restarts the row with the next game index
(:func:`cya_sim.engine.batched.loops.reset_row`), so rows take the games of the seed in the order the
engine's own autoreset gave them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from cya_sim.engine.batched.loops import reset_row
from cya_sim.engine.classic import batched
from cya_sim.engine.classic.batch_observation import ObservationBatch
from cya_sim.engine.classic.batched import BatchState
from cya_sim.engine.classic.layout import G_TO_ACT
from cya_sim.game.rules import RuleSet
from cya_sim.play.batched import Lineup, run_compiled
from cya_sim.play.classic.batched import PLAY

#: Agent spec of the learning seat in the batched engine (a Python seat the engine never calls itself).
LEARNER_SPEC = "cya_sim.env.classic.batched_bridge:LearnerSeat"


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
        state: the :class:`~cya_sim.engine.classic.batched.BatchState` (B rows, a queue of G games).
        lineup: the :class:`~cya_sim.play.batched.Lineup` of ``[LEARNER_SPEC] + opponent_specs``
            (the learner's policy code is -1: a Python seat).
        next_game: the game index the next restarted row takes (:func:`step`).
    """

    def __init__(self, state: BatchState, lineup: Lineup, next_game: int = 0) -> None:
        self.state, self.lineup, self.next_game = state, lineup, next_game


@dataclasses.dataclass(frozen=True)
class Finished:
    """The games that ended in one :func:`step`, n of them, in the order their rows took new games.

    rows: (n,) int64 batch rows. game: (n,) int64 game index of each finished game.
    share: (n, P) float64 win shares (R-TIE). totals: (n, P) int64 final totals in dollars.
    capped: (n,) bool stopped by the ``max_rounds`` safeguard, not R-GAME-END.
    final: (n, D) the encoded observation of the learner's seat in each finished game's last
        position (``encode`` of :func:`step` applied to an ObservationBatch whose legal masks are all
        false, the games being over), or None when :func:`step` was given no ``encode``.
    """

    rows: np.ndarray
    game: np.ndarray
    share: np.ndarray
    totals: np.ndarray
    capped: np.ndarray
    final: np.ndarray | None


def new_batch(rules: RuleSet, n_players: int, batch_size: int, key: int, seat_agent_row: np.ndarray,
              opponent_specs: list[str], first_game: int = 0) -> Batch:
    """A batch of ``batch_size`` rows playing games ``first_game .. first_game + B - 1``, one per row.

    Each row is dealt its first game (R-SETUP); call :func:`advance` to reach the learner's first decisions.
    The queue holds one slot per row (slot ``b`` is row ``b``'s game) and no game waiting, so a finished
    game stops its row, keeping its last position, until :func:`step` reads it and restarts the row.

    Args:
        rules: the rule set. n_players: P. key: 64-bit root key (:func:`cya_sim.game.rng.root_key`).
        seat_agent_row: (P,) int index per seat into ``[LEARNER_SPEC] + opponent_specs``.
        opponent_specs: agent specs with a compiled form.

    Raises:
        RulesError: ``n_players`` not allowed. ValueError: bad shapes, an unknown agent spec.
    """
    agents = (LEARNER_SPEC, *opponent_specs)
    games = np.arange(first_game, first_game + batch_size, dtype=np.int64)
    seat_agent = np.broadcast_to(np.asarray(seat_agent_row, np.int16), (batch_size, n_players)).copy()
    state = batched.init(rules, n_players, batch_size, key, games, seat_agent, agents)
    return Batch(state, Lineup(PLAY, agents, rules), first_game + batch_size)


def advance(batch: Batch) -> None:
    """Play every opponent seat of every row until the learner must act (compiled, no Python per game).

    Raises:
        IllegalActionError: a compiled opponent chose an illegal action (names agent, seat, game, action).
    """
    run_compiled(batch.state, lineup=batch.lineup)


def observe(batch: Batch):
    """:class:`~cya_sim.engine.classic.batch_observation.ObservationBatch` of each row's seat to act (the learner)."""
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


def running_scores(batch: Batch) -> np.ndarray:
    """(B, P) int64 each seat's score as it stands in each row's game, in dollars: its total plus the value of its
    stack, which R-SCORE adds at the round's end (:meth:`cya_sim.env.games.GameInterface.running_scores`)."""
    st = batch.state
    return st.totals + st.stack_value


def rows_of(batch: Batch) -> tuple[object, np.ndarray]:
    """The batched engine's constants (``Consts``) and its (B, W) int64 game rows, read in place: what the play
    loop builds a plug-in's view from (:func:`agents.classic.learned.rows_features`). Nothing here writes them."""
    return batch.state.consts, batch.state.rows


def seat_streams(batch: Batch, seat: int) -> np.ndarray:
    """(B, 4) uint64 the random streams of ``seat`` in every row, in place (a compiled agent deciding for that seat
    draws from them, as it would sitting there)."""
    return batch.state.agent_rng[:, seat]


def reference_observation_of(batch: Batch, row: int):
    """The reference :class:`~cya_sim.engine.classic.reference.observation.Observation` of the seat to act in ``row``
    (:func:`cya_sim.engine.classic.adapter.reference_observation`; for a Python agent's ``act``)."""
    from cya_sim.engine.classic.adapter import reference_observation

    return reference_observation(batch.state, row)


def _final_observations(batch: Batch, rows: np.ndarray, seat: int) -> ObservationBatch:
    """The ``seat`` observation of the finished games in ``rows`` (idle rows keep their last position).

    A copy of those rows with ``seat`` to act is observed (:func:`cya_sim.engine.classic.batch_observation.observe`); its legal
    masks are cleared, since the games are over.
    """
    st = batch.state
    sub = dataclasses.replace(st, rows=st.rows[rows].copy(), engine_rng=st.engine_rng[rows].copy(),
                              agent_rng=st.agent_rng[rows].copy())
    sub.rows[:, G_TO_ACT] = seat
    ob = batched.observe(sub)
    ob.legal_action_mask[:] = False
    return ob


def _finish(batch: Batch, seat: int, encode: Callable[[ObservationBatch], np.ndarray] | None) -> Finished:
    """Read the games that ended (idle rows) and restart each of their rows with the next game index, in row order."""
    st = batch.state
    rows = np.flatnonzero(st.queue_pos < 0)
    p = st.n_players
    if rows.size == 0:
        return Finished(rows, rows.copy(), np.zeros((0, p)), np.zeros((0, p), np.int64), np.zeros(0, bool), None)
    share, tot = finished_results(batch, rows, p)  # queue slot b is row b's game
    out = Finished(rows, st.game_index[rows].copy(), share, tot, finished_capped(batch, rows),
                   None if encode is None else encode(_final_observations(batch, rows, seat)))
    q = st.queue
    for b in rows.tolist():
        q.q_game_index[b] = batch.next_game
        q.r_done[b] = False
        batch.next_game += 1
        reset_row(st.consts, st.rows, st.engine_rng, st.agent_rng, q, b, b)
    return out


def _concat(parts: list[Finished]) -> Finished:
    if len(parts) == 1:
        return parts[0]
    finals = [f.final for f in parts]
    final = None if any(f is None for f in finals) else np.concatenate(finals)
    return Finished(*(np.concatenate([getattr(f, k) for f in parts]) for k in ("rows", "game", "share", "totals",
                                                                               "capped")), final)


def step(batch: Batch, actions: np.ndarray, seat: int,
         encode: Callable[[ObservationBatch], np.ndarray] | None = None) -> Finished:
    """Apply the learner's (B,) int64 ``actions``, play the opponents up to its next decision in every row.

    A row whose game ends (by the learner's action or an opponent's) has its result and, with ``encode``
    (e.g. :meth:`~cya_sim.env.classic.encoding.ObservationEncoder.encode_batch`), the learner's encoded
    observation of the last position read, then takes the next game index in the same
    step (Gymnasium's SAME_STEP autoreset): the rows finished by the learner's actions first, then those
    finished by opponents, each in row order (the order the engine's own autoreset gave).

    Returns:
        the :class:`Finished` games.

    Raises:
        IllegalActionError: an action outside the mask (names the game, seat, agent and action); no row changes.
        RuntimeError: a game ended without a decision of the learner (no rule allows it).
    """
    apply(batch, actions, np.ones(batch.state.batch_size, bool))
    parts = [_finish(batch, seat, encode)]
    advance(batch)
    parts.append(_finish(batch, seat, encode))
    if parts[1].rows.size:
        again = np.intersect1d(parts[0].rows, parts[1].rows)
        advance(batch)
        if again.size or idle_rows(batch).any():
            raise RuntimeError(f"a game in row(s) {np.union1d(again, np.flatnonzero(idle_rows(batch))).tolist()} "
                               "ended without a decision of the learner")
    return _concat([p for p in parts if p.rows.size] or parts[:1])
