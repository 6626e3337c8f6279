"""A batched Gymnasium vector environment on the compiled engine: B games stepped at once.

Each sub-environment is one row of the game's batched engine, reached through the game's bridge
(:attr:`cya_sim.env.games.GameInterface.bridge`: :mod:`cya_sim.env.classic.batched_bridge` for the classic
family, :mod:`cya_sim.env.theft.batched_bridge` for the theft game, RULES.md §9, whose docstring says
which engine does what): the learner's B actions are applied in one
compiled call, then the play layer's compiled loop (:mod:`cya_sim.play.classic.batched`)
plays every opponent seat of every row until the learner must act again; no
Python runs per game or per opponent decision. Observations are the vectors of
:class:`~cya_sim.env.classic.encoding.ObservationEncoder`, encoded for the whole batch
at once; opponents must have a compiled form (``random``, ``greedy``,
``heuristic``, ``wild_hoarder``, ``card_counter``, or a compiled plug-in, :mod:`agents.plugin`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    from gymnasium import spaces
    from gymnasium.error import ResetNeeded
    from gymnasium.vector import AutoresetMode, VectorEnv
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from cya_sim.env.errors import IllegalActionError
from cya_sim.env.game import check_int, check_players, check_seed, is_int, keyword_checked, resolve_rules
from cya_sim.env.games import DEFAULT_STACK_DEPTH, game_interface
from cya_sim.env.gym import opponent_specs
from cya_sim.game.jsontext import show
from cya_sim.game.rng import root_key
from cya_sim.game.rules import RuleSet

#: Most games stepped at once.
MAX_NUM_ENVS = 1 << 20


def check_make_vec_kwargs(max_episode_steps: Any = None, render_mode: Any = None,
                          disable_env_checker: Any = None) -> None:
    """Refuse the ``gym.make_vec`` keyword arguments the batched vector environment cannot honour (class docstring).

    Raises:
        ValueError: ``max_episode_steps`` not None, ``render_mode`` not None, ``disable_env_checker`` not None or
            a bool; the message names the field, the allowed value and ``vectorization_mode="sync"``.
    """
    sync = 'vectorization_mode="sync"'
    if max_episode_steps is not None:
        raise ValueError(f"max_episode_steps: {show(max_episode_steps, python_str=True)}; allowed: None (the batched "
                         "vector env never cuts a game by its step count: a game ends by its rules or the rules' "
                         f"max_rounds safeguard); {sync} gives each game Gymnasium's TimeLimit")
    if render_mode is not None:
        raise ValueError(f"render_mode: {show(render_mode, python_str=True)}; allowed: None (the batched vector env "
                         f"does not render); {sync} gives the single env's render modes")
    if disable_env_checker is not None and not isinstance(disable_env_checker, bool):
        raise ValueError(f"disable_env_checker: {show(disable_env_checker, python_str=True)}; allowed: None, True, "
                         "False (ignored: Gymnasium checks no vector entry point)")


@keyword_checked
class CoverYourAssetsVectorEnv(VectorEnv):
    """``num_envs`` games of one learning seat against compiled agents, on the batched engine.

    Args:
        num_envs: B, games stepped at once (>= 1). rules, n_players, seat, opponents, stack_depth: as
            :class:`~cya_sim.env.gym.CoverYourAssetsGym` (opponents must be compiled agents; for the
            theft game ``random``, ``greedy``, ``defender`` or compiled theft plug-ins).
        reward: ``win_share`` only (1/k at game end for each of the k winners, R-TIE, R-T-END).
        max_episode_steps, render_mode, disable_env_checker: the keyword arguments Gymnasium's ``gym.make_vec``
            passes on to a ``vector_entry_point`` (https://gymnasium.farama.org/api/registry/): accepted at the
            values this environment has (``max_episode_steps`` None: a game ends by its rules or the
            ``max_rounds`` safeguard, never cut by a step count; ``render_mode`` None: the batched games are not
            drawn; ``disable_env_checker`` any bool, ignored: Gymnasium applies no checker to a vector entry
            point). Anything else is refused, naming ``vectorization_mode="sync"`` (Gymnasium's ``TimeLimit``
            and the single environment's render modes).

    Spaces: ``single_observation_space`` ``Box(low, high, (D_obs,), float32)`` (finite bounds,
    :meth:`~cya_sim.env.classic.encoding.ObservationEncoder.space`), ``single_action_space``
    ``Discrete(A)``; batched: ``(B, D_obs)`` and ``MultiDiscrete([A] * B)``. :meth:`action_masks`
    is ``(B, A) bool`` (sb3-contrib's method; boolean masks, as :meth:`CoverYourAssetsGym.action_masks
    <cya_sim.env.gym.CoverYourAssetsGym.action_masks>` says), ``info["action_mask"]`` the same ``(B, A) int8``
    (PettingZoo's and Gymnasium's ``sample(mask=...)`` convention: ``single_action_space.sample(mask=m[i])``,
    ``action_space.sample(mask=tuple(m))``).

    Games and seeding: ``reset(seed=S)`` starts games ``0 .. B-1`` of seed S, one per row; a row whose
    game ends takes the next game index not yet started (``B, B+1, ...``) in the same step (Gymnasium's
    autoreset mode SAME_STEP, https://gymnasium.farama.org/main/api/vector/autoreset/: that step returns the
    new game's first observation, ``terminated`` true and the finished game's reward; as Gymnasium's
    ``SyncVectorEnv`` does, ``info["final_obs"]`` is a (B,) object array holding, for each finished
    game, the learner's (D_obs,) float32 observation of its last position (the observation the
    single-game environment returns with ``terminated``) and None for the other rows,
    ``info["final_info"]`` that game's info (``action_mask`` all false, ``game``, and ``capped`` when
    the safeguard stopped it), each with its ``_final_obs``/``_final_info`` (B,) bool mask, and
    ``info["final_game"]`` its index, -1 elsewhere). Game ``g`` deals and the opponents
    choose as in ``cya-sim play --seed S --game g`` (the batched engine equals the reference engine
    game by game). A game stopped by the rules' ``max_rounds`` safeguard (not a rule of the game)
    is reported in ``truncated`` instead of ``terminated``, with ``info["capped"]`` (B,) bool (the theft
    game's safeguard is ``max_turns``).

    Raises:
        ValueError: bad num_envs (an integer from 1 to :data:`MAX_NUM_ENVS`; True is refused), seat,
            reward, max_episode_steps, render_mode, or an opponent without a compiled form (naming it); in :meth:`reset` a seed that is
            not None or an integer from 0 to 2**63 - 1.
        RulesError: unknown preset or a table size the rules do not allow.
        IllegalActionError: (from :meth:`step`) an action outside a row's mask, naming the game,
            seat, agent and action, or actions that are not a (B,) array of integers (a float array
            such as ``legal + 0.7`` is refused, not truncated); no row is changed.
        gymnasium.error.ResetNeeded: :meth:`step` or :meth:`action_masks` before the first :meth:`reset`.
    """

    metadata: ClassVar[dict] = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int = 64, rules: str | RuleSet = "classic", n_players: int = 4, seat: int = 0,
                 opponents: str | None = None, reward: str = "win_share",
                 stack_depth: int | None = DEFAULT_STACK_DEPTH, max_episode_steps: int | None = None,
                 render_mode: str | None = None, disable_env_checker: bool | None = None) -> None:
        check_make_vec_kwargs(max_episode_steps, render_mode, disable_env_checker)
        num_envs = check_int(num_envs, "num_envs", 1, MAX_NUM_ENVS)
        if reward != "win_share":
            raise ValueError(f"reward: {reward!r}; allowed: win_share")
        self.rules = resolve_rules(rules)
        n_players = check_players(self.rules, n_players)
        seat = check_int(seat, "seat", 0, n_players - 1)
        self.kind = game_interface(self.rules)
        self.bridge = self.kind.bridge
        specs = opponent_specs(opponents, n_players - 1, self.kind)
        for s in specs:
            self.kind.check_compiled_opponent(s)
        self.num_envs, self.n_players, self.seat = num_envs, n_players, seat
        self.render_mode = render_mode  # None (Gymnasium's attribute; SB3's VecEnv reads it)
        self.opponent_specs = sorted(set(specs), key=specs.index)
        others = iter(specs)
        self._seat_agent = np.array([0 if s == seat else 1 + self.opponent_specs.index(next(others))
                                     for s in range(n_players)], np.int16)
        self.encoder = self.kind.encoder(n_players, stack_depth)
        a = self.kind.space.size
        self.single_observation_space = self.encoder.space()
        self.single_action_space = spaces.Discrete(a)
        self.observation_space = spaces.Box(np.tile(self.encoder.low, (num_envs, 1)),
                                            np.tile(self.encoder.high, (num_envs, 1)), (num_envs, self.encoder.size),
                                            np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, a))
        self._batch = None
        self._mask = np.zeros((num_envs, a), bool)

    def _observe(self) -> np.ndarray:
        ob = self.bridge.observe(self._batch)
        self._mask = ob.legal_action_mask.copy()
        return self.encoder.encode_batch(ob)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start games ``0 .. B-1`` of ``seed`` (a fresh random seed when None); return (obs, info).

        ``options`` is accepted for the Gymnasium signature and ignored.

        Raises:
            ValueError: ``seed`` not None or an integer from 0 to 2**63 - 1 (1.5, "3", True, -1, 2**64).
        """
        seed = check_seed(seed)
        key = root_key(np.random.SeedSequence() if seed is None else seed)
        self._batch = self.bridge.new_batch(self.rules, self.n_players, self.num_envs, key, self._seat_agent,
                                       self.opponent_specs)
        self.bridge.advance(self._batch)
        obs = self._observe()
        return obs, {"action_mask": self._mask.astype(np.int8), "game": self.bridge.game_index(self._batch)}

    def action_masks(self) -> np.ndarray:
        """(B, A) bool legal action masks of the learner in each row.

        Raises:
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
        """
        if self._batch is None:
            raise ResetNeeded("call reset() before action_masks()")
        return self._mask.copy()

    def _actions(self, actions) -> np.ndarray:
        """(B,) int64 of the learner's actions, or IllegalActionError: not (B,) integers (nothing is truncated).

        An array needs an integer dtype; a list or tuple must hold integers only (NumPy would read
        ``[True, 5]`` as ``[1, 5]``).
        """
        if not isinstance(actions, np.ndarray) and (not isinstance(actions, list | tuple)
                                                    or not all(is_int(x) for x in actions)):
            raise IllegalActionError(f"actions: {show(actions, python_str=True)} ({type(actions).__name__}); "
                                     f"allowed: ({self.num_envs},) integer action ids, one per row (no row was "
                                     "changed)")
        a = np.asarray(actions)
        if a.dtype.kind not in "iu" or a.shape != (self.num_envs,):
            raise IllegalActionError(f"actions: a {a.dtype} array of shape {a.shape}; allowed: ({self.num_envs},) "
                                     "integer action ids, one per row (no row was changed)")
        if a.dtype.kind == "u" and a.size and int(a.max()) >= 2**63:
            raise IllegalActionError(f"actions: {int(a.max())} does not fit int64; no row was changed")
        return a.astype(np.int64)

    def step(self, actions):
        """Apply the learner's (B,) actions, play the opponents; return (obs, reward, terminated, truncated, info).

        Raises:
            IllegalActionError: an action outside a row's mask, or ``actions`` not (B,) integers.
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
        """
        st = self._batch
        if st is None:
            raise ResetNeeded("call reset() before step()")
        actions = self._actions(actions)
        done = self.bridge.step(st, actions, self.seat, self.encoder.encode_batch)
        ended = np.zeros(self.num_envs, bool)
        ended[done.rows] = True
        reward = np.zeros(self.num_envs, np.float64)
        reward[done.rows] = done.share[:, self.seat]
        capped = np.zeros(self.num_envs, bool)
        capped[done.rows] = done.capped
        obs = self._observe()
        info = {"action_mask": self._mask.astype(np.int8), "game": self.bridge.game_index(st)}
        if ended.any():
            g0 = np.full(self.num_envs, -1, np.int64)
            g0[done.rows] = done.game
            info["final_game"] = g0
            info["_final_game"] = ended
            info["final_obs"] = np.full(self.num_envs, None, object)  # SyncVectorEnv's layout
            for i, row in enumerate(done.rows.tolist()):
                info["final_obs"][row] = done.final[i]
            info["_final_obs"] = ended.copy()
            final_info = {"action_mask": np.zeros(self._mask.shape, np.int8), "_action_mask": ended.copy(), "game": g0.copy(),
                          "_game": ended.copy()}
            if capped.any():
                final_info["capped"], final_info["_capped"] = capped.copy(), capped.copy()
            info["final_info"] = final_info
            info["_final_info"] = ended.copy()
        if capped.any():  # the max_rounds safeguard stopped these games: truncations (Gymnasium's flag for it)
            info["capped"] = capped
            info["_capped"] = capped
        return obs, reward, ended & ~capped, capped, info
