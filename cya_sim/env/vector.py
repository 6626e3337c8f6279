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
from cya_sim.env.features import make_encoder
from cya_sim.env.game import check_int, check_players, check_seed, is_int, keyword_checked, resolve_rules
from cya_sim.env.games import DEFAULT_STACK_DEPTH, game_interface
from cya_sim.env.gym import CoverYourAssetsGym, opponent_specs
from cya_sim.env.rewards import DEFAULT_REWARD, check_reward, reward_unit, standing, uses_running_scores
from cya_sim.game.jsontext import show
from cya_sim.game.rng import root_key
from cya_sim.game.rules import RuleSet

#: Most games stepped at once.
MAX_NUM_ENVS = 1 << 20


def check_make_vec_kwargs(max_episode_steps: Any = None, render_mode: Any = None,
                          disable_env_checker: Any = None) -> None:
    """Refuse the ``gym.make_vec`` keyword arguments the batched vector environment cannot honour (class docstring).

    Raises:
        ValueError: ``max_episode_steps`` not None, ``render_mode`` not None or ``"rgb_array"``,
            ``disable_env_checker`` not None or a bool; the message names the field, the allowed values and
            ``vectorization_mode="sync"``.
    """
    sync = 'vectorization_mode="sync"'
    if max_episode_steps is not None:
        raise ValueError(f"max_episode_steps: {show(max_episode_steps, python_str=True)}; allowed: None (the batched "
                         "vector env never cuts a game by its step count: a game ends by its rules or the rules' "
                         f"max_rounds safeguard); {sync} gives each game Gymnasium's TimeLimit")
    if render_mode is not None and render_mode != "rgb_array":
        raise ValueError(f"render_mode: {show(render_mode, python_str=True)}; allowed: None, 'rgb_array' (a frame per "
                         f"row); {sync} gives the single env's text modes ('ansi', 'human')")
    if disable_env_checker is not None and not isinstance(disable_env_checker, bool):
        raise ValueError(f"disable_env_checker: {show(disable_env_checker, python_str=True)}; allowed: None, True, "
                         "False (ignored: Gymnasium checks no vector entry point)")


@keyword_checked
class CoverYourAssetsVectorEnv(VectorEnv):
    """``num_envs`` games of one learning seat against compiled agents, on the batched engine.

    Args:
        num_envs: B, games stepped at once (>= 1). rules, n_players, seat, opponents, reward, observation,
            stack_depth: as :class:`~cya_sim.env.gym.CoverYourAssetsGym`, with the same defaults, so
            ``gym.make_vec`` and ``gym.make`` give the same observations and rewards (opponents must be compiled
            agents; for the theft game ``random``, ``greedy``, ``defender`` or compiled theft plug-ins).
        max_episode_steps, render_mode, disable_env_checker: the keyword arguments Gymnasium's ``gym.make_vec``
            passes on to a ``vector_entry_point`` (https://gymnasium.farama.org/api/registry/): accepted at the
            values this environment has (``max_episode_steps`` None: a game ends by its rules or the
            ``max_rounds`` safeguard, never cut by a step count; ``render_mode`` None or ``"rgb_array"``
            (:meth:`render`); ``disable_env_checker`` any bool, ignored: Gymnasium applies no checker to a vector
            entry point). Anything else is refused, naming ``vectorization_mode="sync"`` (Gymnasium's
            ``TimeLimit`` and the single environment's text render modes).

    Spaces: ``single_observation_space`` ``Box(low, high, (D_obs,), float32)`` (finite bounds, the single
    environment's for the same ``observation``), ``single_action_space``
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
    ``info["final_game"]`` its index, -1 elsewhere, ``info["final_total"]`` and ``info["final_share"]`` the learner's
    final total (dollars; the theft game's points) and win share, NaN elsewhere). Game ``g`` deals and the opponents
    choose as in ``cya-sim play --seed S --game g`` (the batched engine equals the reference engine
    game by game). A game stopped by the rules' ``max_rounds`` safeguard (not a rule of the game)
    is reported in ``truncated`` instead of ``terminated``, with ``info["capped"]`` (B,) bool (the theft
    game's safeguard is ``max_turns``).

    Rendering: with ``render_mode="rgb_array"``, :meth:`render` returns a tuple of B frames, row ``b``'s table as
    the learner sees it (Gymnasium's ``VectorEnv.render``; each ``(H, W, 3) uint8``, the frame of
    :class:`~cya_sim.env.gym.CoverYourAssetsGym`). The batched engine keeps rows, not states, so each row's game
    is replayed on the reference engine from its deal and the learner's recorded actions (the engines play the
    same games, tested); :meth:`render` costs about what stepping B single environments costs.

    Raises:
        ValueError: bad num_envs (an integer from 1 to :data:`MAX_NUM_ENVS`; True is refused), seat,
            reward, observation, max_episode_steps, render_mode, or an opponent without a compiled form (naming
            it); in :meth:`reset` a seed that is not None or an integer from 0 to 2**63 - 1.
        RulesError: unknown preset or a table size the rules do not allow.
        IllegalActionError: (from :meth:`step`) an action outside a row's mask, naming the game,
            seat, agent and action, or actions that are not a (B,) array of integers (a float array
            such as ``legal + 0.7`` is refused, not truncated); no row is changed.
        gymnasium.error.ResetNeeded: :meth:`step`, :meth:`action_masks` or :meth:`render` before the first
            :meth:`reset`.
    """

    #: Gymnasium's metadata; ``render_fps`` as the single environment's (Gymnasium's vector ``HumanRendering``
    #: wrapper asks for the key).
    metadata: ClassVar[dict] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": ["rgb_array"],
                                "render_fps": 1}

    def __init__(self, num_envs: int = 64, rules: str | RuleSet = "classic", n_players: int = 4, seat: int = 0,
                 opponents: str | None = None, reward: str = DEFAULT_REWARD, observation: str | None = None,
                 stack_depth: int | None = DEFAULT_STACK_DEPTH, max_episode_steps: int | None = None,
                 render_mode: str | None = None, disable_env_checker: bool | None = None) -> None:
        check_make_vec_kwargs(max_episode_steps, render_mode, disable_env_checker)
        num_envs = check_int(num_envs, "num_envs", 1, MAX_NUM_ENVS)
        self.reward_kind = check_reward(reward)
        self.rules = resolve_rules(rules)
        n_players = check_players(self.rules, n_players)
        seat = check_int(seat, "seat", 0, n_players - 1)
        self.kind = game_interface(self.rules)
        self.bridge = self.kind.bridge
        specs = opponent_specs(opponents, n_players - 1, self.kind)
        for s in specs:
            self.kind.check_compiled_opponent(s)
        self.num_envs, self.n_players, self.seat = num_envs, n_players, seat
        self.render_mode = render_mode  # Gymnasium's attribute; SB3's VecEnv reads it
        self._specs = specs
        self.opponent_specs = sorted(set(specs), key=specs.index)
        others = iter(specs)
        self._seat_agent = np.array([0 if s == seat else 1 + self.opponent_specs.index(next(others))
                                     for s in range(n_players)], np.int16)
        self.observation, self.encoder = make_encoder(self.kind, n_players, observation, stack_depth)
        self._unit, self._weight = reward_unit(self.kind, self.reward_kind), 1.0
        a = self.kind.space.size
        self.single_observation_space = self.encoder.space()
        self.single_action_space = spaces.Discrete(a)
        self.observation_space = spaces.Box(np.tile(self.encoder.low, (num_envs, 1)),
                                            np.tile(self.encoder.high, (num_envs, 1)), (num_envs, self.encoder.size),
                                            np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, a))
        self._batch = None
        self._mask = np.zeros((num_envs, a), bool)
        self._prev = np.zeros(num_envs, np.float64)
        self._key = 0
        self._trails: list[list[int]] = [[] for _ in range(num_envs)]  # rgb_array: the learner's actions per row
        self._shadows: list[CoverYourAssetsGym | None] = [None] * num_envs
        self._shadow_at = [(-1, -1, 0)] * num_envs  # (reset count, game, actions applied) of each shadow
        self._resets = 0

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
        self._prev = self._standing()
        self._key, self._trails, self._resets = key, [[] for _ in range(self.num_envs)], self._resets + 1
        return obs, {"action_mask": self._mask.astype(np.int8), "game": self.bridge.game_index(self._batch)}

    def _standing(self) -> np.ndarray:
        """(B,) float64 the learner's standing in each row's game (:func:`cya_sim.env.rewards.standing`)."""
        b = self._batch
        scores = self.bridge.running_scores(b) if uses_running_scores(self.reward_kind) else self.bridge.totals(b)
        return standing(self.reward_kind, scores, self.seat)

    def _reward(self, done) -> np.ndarray:
        """(B,) float64 rewards of one step (:mod:`cya_sim.env.rewards`): the change of the standing since the last
        step times the weight (1 here), in $M or points, plus the win share of each finished game. A finished row's
        change is to its game's final standing; its new game's standing is the base of the next change."""
        reward = np.zeros(self.num_envs, np.float64)
        if self.reward_kind != "win_share":
            now = self._standing()
            change = now - self._prev
            if done.rows.size:
                change[done.rows] = standing(self.reward_kind, done.totals, self.seat) - self._prev[done.rows]
            reward = self._weight * change / self._unit
            self._prev = now
        reward[done.rows] += done.share[:, self.seat]
        return reward

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
        if self.render_mode is not None:  # what render() replays: each row's game so far
            for b, a in enumerate(actions.tolist()):
                if ended[b]:
                    self._trails[b] = []
                else:
                    self._trails[b].append(a)
        reward = self._reward(done)
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
            info["final_total"] = np.full(self.num_envs, np.nan)
            info["final_share"] = np.full(self.num_envs, np.nan)
            info["final_total"][done.rows] = done.totals[:, self.seat]
            info["final_share"][done.rows] = done.share[:, self.seat]
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

    def render(self) -> tuple[np.ndarray, ...] | None:
        """B frames, row ``b``'s table as the learner sees it, each ``(H, W, 3) uint8`` (``render_mode="rgb_array"``).

        Each row's game is replayed on the reference engine (class docstring): the learner's recorded actions of
        the game in progress, applied to the single environment's game of the same key and index. Without a
        render mode: None, with Gymnasium's warning.

        Raises:
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
            RuntimeError: a replay whose legal actions differ from the row's (the engines would disagree).
        """
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("render() called without a render_mode; pass render_mode='rgb_array'")
            return None
        if self._batch is None:
            raise ResetNeeded("call reset() before render()")
        games = self.bridge.game_index(self._batch)
        return tuple(self._replay(b, int(games[b])).render() for b in range(self.num_envs))

    def _replay(self, b: int, game: int) -> CoverYourAssetsGym:
        """The single environment at row ``b``'s position: game ``game`` of the reset's key, its trail applied.

        The single environment of a row is kept with (reset count, game, actions applied): a trail only grows within
        one game of one reset, so only the actions it has not applied yet are played.
        """
        if self._shadows[b] is None:
            self._shadows[b] = CoverYourAssetsGym(self.rules, self.n_players, self.seat, self._specs,
                                                  reward="win_share", observation="table", render_mode="rgb_array")
        env, trail = self._shadows[b], self._trails[b]
        epoch, at, applied = self._shadow_at[b]
        if (epoch, at) != (self._resets, game) or applied > len(trail):
            env.game.key = self._key  # the reset's root key: game `game` deals as in the row (EnvGame.start)
            env.reset(options={"game": game})
            applied = 0
        for a in trail[applied:]:
            env.step(a)
        self._shadow_at[b] = (self._resets, game, len(trail))
        if not np.array_equal(env.action_masks(), self._mask[b]):
            raise RuntimeError(f"render: the replay of row {b} (game {game}) left the row's position; its legal "
                               "actions differ")
        return env
