"""Every use the vector environment makes of the compiled theft engine, in one module (RULES.md §9).

The theft game's counterpart of :mod:`cya_sim.env.classic.batched_bridge`, with the same functions
(``new_batch``, ``advance``, ``observe``, ``step``, ``game_index``, ``totals``, ``running_scores``), which
:class:`~cya_sim.env.vector.CoverYourAssetsVectorEnv` reaches through
:attr:`cya_sim.env.theft.interface.TheftGame.bridge`.

Which engine does what, and why:

- **Stepping and opponents: the compiled theft engine.** The learner's B actions are checked and
  applied in one compiled call (:func:`cya_sim.engine.theft.batched.step`), then the compiled theft play loop
  (:func:`cya_sim.play.batched.run_compiled`) plays every opponent seat of every row until the
  learner must act again; the learner is a Python seat of that loop (policy code -1), exactly as a
  ``module:Class`` theft agent is. Opponents must have a compiled form (``random``, ``greedy``,
  ``defender``, compiled theft plug-ins). The compiled engine equals the reference engine game by game
  (``tests/test_theft_differential.py``), so game ``g`` deals and the opponents choose as in
  ``cya-sim play --rules theft --seed S --game g``.
- **Observations: the reference observation, row by row.** What a seat may see is the reference
  rule :func:`cya_sim.engine.theft.observation.observe` (RULES.md §10 for §9: the face-down card of a first
  asset, the first assets hidden during set-up, the thief's knowledge after a theft); each learner row
  is read back into a reference state (:func:`cya_sim.engine.theft.rows.row_to_state`, tested equal to the
  reference engine position by position) and observed there, rather than writing the §10 rules a third
  time on rows (ARCHITECTURE.md: two implementations of each rule, never three). This costs Python per
  row per learner step, not per opponent decision: observing and encoding 256 rows at 4 seats took
  about 41 ms (160 µs a row; about 3,200 learner steps a second in all, on the shared 2-core machine).

Autoreset: the queue holds one game per row and none waiting, so a finished game leaves its row idle
with its last position, :func:`step` reads its result and the learner's last observation, and restarts
the row with the next game index (as :mod:`cya_sim.env.classic.batched_bridge` does for the classic family).
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace

import numpy as np

from agents.theft.compiled import new_theft_scratch
from cya_sim.engine.batched.loops import reset_row
from cya_sim.engine.batched.state import BatchState
from cya_sim.engine.theft import batched
from cya_sim.engine.theft.batched import TheftIllegalBatchActionError
from cya_sim.engine.theft.layout import A_VALUE, G_TO_ACT
from cya_sim.engine.theft.observation import observe as reference_observe
from cya_sim.engine.theft.rows import row_to_state
from cya_sim.env.classic.batched_bridge import Finished
from cya_sim.env.errors import IllegalActionError
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.play.batched import Lineup
from cya_sim.play.loop import advance as compiled_advance
from cya_sim.play.theft.batched import PLAY

#: Name of the learning seat in the batched theft engine's messages (a Python seat the loop never plays).
LEARNER_NAME = "learner"


class Batch:
    """The batched theft engine's state of a vector environment and how its opponents are played.

    Attributes:
        state: the :class:`~cya_sim.engine.batched.state.BatchState` (B rows, a queue of B games).
        codes, addrs, params: the compiled policy of each agent of ``[learner] + opponent_specs`` (the
            learner's code is -1: a Python seat), as a :class:`~cya_sim.play.batched.Lineup`.
        next_game: the game index the next restarted row takes (:func:`step`).
    """

    def __init__(self, state: BatchState, lineup: Lineup, next_game: int) -> None:
        self.state = state
        self.codes = np.concatenate([[-1], lineup.codes]).astype(np.int64)
        self.addrs = np.concatenate([[0], lineup.addrs]).astype(np.int64)
        self.params = np.concatenate([np.zeros((1, lineup.params.shape[1])), lineup.params]).astype(np.float64)
        self.scratch = new_theft_scratch(state.consts)
        self.next_game = next_game


def new_batch(rules: TheftRuleSet, n_players: int, batch_size: int, key: int, seat_agent_row: np.ndarray,
              opponent_specs: list[str], first_game: int = 0) -> Batch:
    """A batch of ``batch_size`` rows playing theft games ``first_game .. first_game + B - 1``, one per row.

    Args:
        rules: the theft rule set. n_players: P. key: 64-bit root key.
        seat_agent_row: (P,) int index per seat into ``[learner] + opponent_specs``.
        opponent_specs: theft agent specs with a compiled form.

    Raises:
        RulesError: ``n_players`` not allowed. ValueError: bad shapes, an unknown agent spec.
    """
    games = np.arange(first_game, first_game + batch_size, dtype=np.int64)
    seat_agent = np.broadcast_to(np.asarray(seat_agent_row, np.int16), (batch_size, n_players)).copy()
    state = batched.init(rules, n_players, batch_size, key, games, seat_agent, (LEARNER_NAME, *opponent_specs))
    return Batch(state, Lineup(PLAY, opponent_specs, rules), first_game + batch_size)


def advance(batch: Batch) -> None:
    """Play every opponent seat of every row until the learner must act (compiled, no Python per decision).

    Raises:
        TheftIllegalBatchActionError: a compiled opponent chose an illegal action (names agent, seat, game, action).
        RuntimeError: the action log is full (no log is kept here, so never).
    """
    st = batch.state
    waiting = compiled_advance(st.consts, st.rows, st.engine_rng, st.agent_rng, st.queue, batch.codes, batch.addrs,
                               batch.params, batch.scratch)
    if waiting < 0:
        batched.raise_illegal(st, int(st.err[1]), int(st.err[2]))


def _observations(state: BatchState, rows: np.ndarray, seat: int | None) -> SimpleNamespace:
    """The reference observations of ``rows`` (of ``seat``, default each row's seat to act; None for idle rows)."""
    obs = []
    for b in rows.tolist():
        to_act = int(state.rows[b, G_TO_ACT])
        s = to_act if seat is None else seat
        obs.append(None if s < 0 else reference_observe(row_to_state(state.rules, state.consts, state.rows[b]), s))
    a = state.action_space.size
    mask = np.zeros((len(obs), a), bool)
    for i, o in enumerate(obs):
        if o is not None and seat is None:
            mask[i] = o.legal_action_mask
    return SimpleNamespace(obs=obs, seat=np.array([-1 if o is None else o.seat for o in obs], np.int64),
                           legal_action_mask=mask)


def observe(batch: Batch) -> SimpleNamespace:
    """The observation of each row's seat to act (the learner): ``obs`` (B observations, None for an idle row),
    ``seat`` (B,) int64, ``legal_action_mask`` (B, A) bool; what
    :meth:`~cya_sim.env.theft.encoding.TheftObservationEncoder.encode_batch` reads."""
    return _observations(batch.state, np.arange(batch.state.batch_size), None)


def game_index(batch: Batch) -> np.ndarray:
    """(B,) int64 global game index of each row's game."""
    return batch.state.game_index.copy()


def totals(batch: Batch) -> np.ndarray:
    """(B, P) int64 points of each seat's assets in each row's game as they stand (R-T-END sums them at the end, as
    :func:`cya_sim.engine.theft.kernel` does; the reference state's ``scores()`` during the game)."""
    st = batch.state
    held = np.arange(st.assets.shape[2])[None, None, :] < st.n_assets[:, :, None]  # (B, P, S) slots in use
    return np.where(held, st.assets[..., A_VALUE], 0).sum(2)


running_scores = totals  # the score as it stands is the points (cya_sim.env.games.GameInterface.running_scores)


def _finish(batch: Batch, seat: int, encode: Callable | None) -> Finished:
    """Read the games that ended (idle rows) and restart each of their rows with the next game index, in row order."""
    st = batch.state
    rows = np.flatnonzero(st.queue_pos < 0)
    p = st.n_players
    if rows.size == 0:
        return Finished(rows, rows.copy(), np.zeros((0, p)), np.zeros((0, p), np.int64), np.zeros(0, bool), None)
    bits = (st.r_winners[rows][:, None] >> np.arange(p)[None, :]) & 1  # queue slot b is row b's game
    share = bits / np.maximum(bits.sum(1, keepdims=True), 1)
    final = None if encode is None else encode(_observations(st, rows, seat))
    out = Finished(rows, st.game_index[rows].copy(), share, st.r_points[rows].copy(), st.r_capped[rows].copy(), final)
    q = st.queue
    for b in rows.tolist():
        q.q_game_index[b] = batch.next_game
        q.r_done[b] = False
        batch.next_game += 1
        reset_row(st.consts, st.rows, st.engine_rng, st.agent_rng, q, b, b)
    return out


def step(batch: Batch, actions: np.ndarray, seat: int, encode: Callable | None = None) -> Finished:
    """Apply the learner's (B,) int64 ``actions``, play the opponents up to its next decision in every row.

    As :func:`cya_sim.env.classic.batched_bridge.step`: a finished row's result and (with ``encode``) the learner's
    encoded last observation are read, then the row takes the next game index in the same step.

    Returns:
        the :class:`~cya_sim.env.classic.batched_bridge.Finished` games (``totals`` in points, R-T-END).

    Raises:
        IllegalActionError: an action outside a row's mask (names the game, seat, agent and action); no row changes.
        RuntimeError: a game ended without a decision of the learner (no rule allows it).
    """
    try:
        batched.step(batch.state, actions)
    except TheftIllegalBatchActionError as e:
        raise IllegalActionError(str(e)) from e
    parts = [_finish(batch, seat, encode)]
    advance(batch)
    parts.append(_finish(batch, seat, encode))
    if parts[1].rows.size:
        again = np.intersect1d(parts[0].rows, parts[1].rows)
        advance(batch)
        idle = batch.state.queue_pos < 0
        if again.size or idle.any():
            raise RuntimeError(f"a game in row(s) {np.union1d(again, np.flatnonzero(idle)).tolist()} "
                               "ended without a decision of the learner")
    parts = [p for p in parts if p.rows.size] or parts[:1]
    if len(parts) == 1:
        return parts[0]
    finals = [f.final for f in parts]
    final = None if any(f is None for f in finals) else np.concatenate(finals)
    return Finished(*(np.concatenate([getattr(f, k) for f in parts]) for k in ("rows", "game", "share", "totals",
                                                                               "capped")), final)
