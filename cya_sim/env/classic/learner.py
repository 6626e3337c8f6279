"""The learned agents' training environment: the play loop's own view features, any table size, classic or advanced.

:class:`LearnerVectorEnv` is the batched vector environment of :mod:`cya_sim.env.vector` (B games of one
learning seat against compiled opponents, played inside the compiled loop) whose observations are
:func:`agents.classic.learned.features` of the learner's agent view as the play loop builds it for a plug-in
(:func:`agents.classic.learned.rows_features`, :func:`agents.classic.compiled_strategy.view_row`): a network trained here reads at
play exactly what it read in training, under the classic rules and under the advanced rules (RULES.md §6), at
every table size. Draft piles (RULES.md §7) and the theft game are refused (the features do not encode them).

Rewards: ``"dense"`` — at every learner step the change in the learner's running total (R-SCORE) since its
previous step, in millions of dollars times ``dense_weight``, plus the final win share (R-TIE) when the game
ends, the reward the committed models were trained with (``experiments/train_learned.py``); ``"win_share"`` —
the final win share only. Every keyword is this class's own, so a change of another environment's defaults does
not change a training run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    from gymnasium import spaces
    from gymnasium.error import ResetNeeded
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from agents.classic.learned import n_features, rows_features, rows_policy_actions
from cya_sim.env.classic import batched_bridge as bridge
from cya_sim.env.game import keyword_checked, resolve_rules
from cya_sim.env.vector import CoverYourAssetsVectorEnv
from cya_sim.game.classic.actions import ActionSpace
from cya_sim.game.jsontext import show

#: The rewards of :class:`LearnerVectorEnv`.
LEARNER_REWARDS = ("dense", "win_share")


def learner_refusal(rules: Any) -> str | None:
    """Why :func:`agents.classic.learned.features` cannot encode ``rules`` (one line), or None when they can: the classic
    family with or without the advanced cards (RULES.md §6), without draft piles (§7)."""
    if getattr(rules, "family", "classic") != "classic":
        return (f"rules: {getattr(rules, 'name', rules)!r}; the learned agents' features encode the classic "
                "family's agent view, not this game's")
    if ActionSpace.for_rules(rules).draft:
        return f"rules: {rules.name!r}; the learned agents' features do not encode draft piles (RULES.md §7)"
    return None


class _RowFeatures:
    """The encoder :class:`LearnerVectorEnv` gives the vector environment: the learner's features of the finished
    games' last positions (the ``encode`` of the bridge's ``step``), read from the rows (:meth:`encode_batch`)."""

    def __init__(self, env: LearnerVectorEnv, size: int) -> None:
        self.env, self.size = env, size
        self.low = np.full(size, -np.inf, np.float32)
        self.high = np.full(size, np.inf, np.float32)

    def space(self) -> spaces.Box:
        """``Box(-inf, inf, (F,), float32)``."""
        return spaces.Box(-np.inf, np.inf, (self.size,), np.float32)

    def encode_batch(self, ob) -> np.ndarray:
        """(n, F) float32 the learner's features of the n finished games of ``ob`` (an ObservationBatch of them).

        The bridge reads a finished game while its row still holds the last position (the rows waiting for a new
        game, in row order); the features are read from those rows, as :meth:`LearnerVectorEnv._observe` reads
        the others'.

        Raises:
            RuntimeError: the finished games are not those rows (the bridge's order changed: said, never guessed).
        """
        batch = self.env._batch
        rows = np.flatnonzero(bridge.idle_rows(batch))
        if not np.array_equal(bridge.game_index(batch)[rows], ob.game_index):
            raise RuntimeError("the finished games are not the idle rows in row order (cya_sim.env.classic.batched_bridge)")
        consts, game_rows = bridge.rows_of(batch)
        return rows_features(consts, game_rows[rows], self.env.seat)[0]


@keyword_checked
class LearnerVectorEnv(CoverYourAssetsVectorEnv):
    """B games of one learning seat on the batched engine, observed as a plug-in sees them (module docstring).

    The vector environment (its games, autoreset, infos and ``total_change`` reward) with the play loop's view
    features as observations.

    Args:
        num_envs, rules, n_players, seat, opponents: as :class:`~cya_sim.env.vector.CoverYourAssetsVectorEnv`
            (opponents: compiled agents, comma-separated specs cycled over the other seats).
        reward: ``"dense"`` (the vector environment's ``total_change`` times ``dense_weight``) or ``"win_share"``.
        dense_weight: factor of the change in total ($M) of ``"dense"``.

    Spaces: ``single_observation_space`` ``Box(-inf, inf, (F,), float32)``, F = :func:`agents.classic.learned.n_features`
    of the rules and table size; ``single_action_space`` ``Discrete(A)``; :meth:`action_masks` ``(B, A) bool``.

    Raises:
        ValueError: a reward not in :data:`LEARNER_REWARDS`, a dense weight that is not a finite number, rules the
            features do not encode (:func:`learner_refusal`), and what the vector environment refuses.
    """

    def __init__(self, num_envs: int = 64, rules: Any = "classic", n_players: int = 2, seat: int = 0,
                 opponents: str = "card_counter", reward: str = "dense", dense_weight: float = 1.0) -> None:
        if reward not in LEARNER_REWARDS:
            raise ValueError(f"reward: {show(reward, python_str=True)}; allowed: {', '.join(LEARNER_REWARDS)}")
        w = dense_weight
        number = isinstance(w, int | float | np.integer | np.floating) and not isinstance(w, bool | np.bool_)
        if not number or not (abs(int(w)) < 2**1023 if isinstance(w, int | np.integer) else math.isfinite(w)):
            raise ValueError(f"dense_weight: {show(dense_weight, python_str=True)} ({type(dense_weight).__name__}); "
                             "allowed: a finite number (the weight of the dense reward)")
        why = learner_refusal(resolve_rules(rules))
        if why:
            raise ValueError(why)
        super().__init__(num_envs=num_envs, rules=rules, n_players=n_players, seat=seat, opponents=opponents,
                         reward="total_change" if reward == "dense" else "win_share", observation="table")
        self.dense_weight = self._weight = float(dense_weight)
        d = self.rules.deck
        self.n_features = n_features(self.n_players, d.n_types, d.n_assets, ActionSpace.for_rules(self.rules).advanced_on)
        self.encoder = _RowFeatures(self, self.n_features)
        self.single_observation_space = self.encoder.space()
        self.observation_space = spaces.Box(-np.inf, np.inf, (num_envs, self.n_features), np.float32)
        self._experts: dict[str, Any] = {}  # agents without a compiled form, built once (expert_actions)

    def _observe(self) -> np.ndarray:
        obs, self._mask = rows_features(*bridge.rows_of(self._batch), self.seat)
        return obs

    def expert_actions(self, spec: str, rng: np.random.Generator | None = None) -> np.ndarray:
        """(B,) int64 the actions agent ``spec`` would take in the learner's place in each row: the labels of
        imitation learning.

        A compiled agent decides in compiled code (:func:`agents.classic.learned.rows_policy_actions`) with the learner
        seat's own random streams, so stepping with its labels plays exactly the games it would play in that seat;
        any other agent (a search agent: ``ismcts``, ``pimc``) is built once (:func:`agents.classic.registry.make_agent`)
        and asked ``act(observation, rng)`` on each row's reference observation of the learner (RULES.md §10).

        Raises:
            ValueError: ``rng`` missing for an agent without a compiled form; an unknown agent.
            gymnasium.error.ResetNeeded: before :meth:`reset`.
        """
        from agents.classic.registry import make_agent, policy_of

        if self._batch is None:
            raise ResetNeeded("call reset() before expert_actions()")
        policy = policy_of(spec, self.rules)
        if policy[0] >= 0:
            return rows_policy_actions(*bridge.rows_of(self._batch), self.seat, policy,
                                       bridge.seat_streams(self._batch, self.seat))
        if rng is None:
            raise ValueError(f"expert: {spec!r} has no compiled form; give rng (a numpy Generator) for its act()")
        if spec not in self._experts:
            self._experts[spec] = make_agent(spec)
        agent = self._experts[spec]
        return np.array([agent.act(bridge.reference_observation_of(self._batch, b), rng)
                         for b in range(self.num_envs)], np.int64)
