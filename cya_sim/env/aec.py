"""PettingZoo AEC environment of Cover Your Assets (every preset, the theft game too), on the reference engine.

Agents are ``player_0 .. player_{P-1}`` (seat ``s`` = ``player_s``). The agent
to act is the mover, or during a challenge the side that must answer
(R-CH-EXCHANGE), so the order of agents is the game's, not a fixed cycle.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    from gymnasium import spaces
    from gymnasium.error import ResetNeeded
    from pettingzoo import AECEnv
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from cya_sim.env.game import EnvGame, check_options, check_players, check_seed, keyword_checked, resolve_rules
from cya_sim.env.games import DEFAULT_STACK_DEPTH
from cya_sim.game.rules import RuleSet

REWARDS = ("win_share", "total_change")
#: Render modes: None, ``ansi`` (render() returns the log text), ``human`` (the log printed to stdout) and
#: ``rgb_array`` (render() returns the table drawn as the agent to act sees it, :mod:`cya_sim.render`).
RENDER_MODES = (None, "ansi", "human", "rgb_array")


@keyword_checked
class CoverYourAssetsAEC(AECEnv):
    """Cover Your Assets as a PettingZoo AEC environment (RULES.md; §10 observations).

    Args:
        rules: preset name (``classic``, ``guide``, ``basic``, ..., ``theft``) or a rule set (a
            :class:`RuleSet` or a :class:`~cya_sim.game.theft.rules.TheftRuleSet`, RULES.md §9); the game is
            reached through its :class:`~cya_sim.env.games.GameInterface`.
        n_players: P, allowed by the rules (default 4).
        reward: ``win_share`` (default): at game end each winner gets 1/k (k winners, R-TIE, R-T-END), others 0;
            ``total_change``: the win share at game end plus each change of the seat's total: in millions
            of dollars at each round end (R-SCORE), or in points at each build, theft and cancel of the
            theft game (R-T-END).
        render_mode: None, ``ansi``: :meth:`render` returns the readable log lines since the last call,
            the very lines of ``cya-sim play`` (concatenated over a game they equal its output); or
            ``human``: :meth:`reset` and :meth:`step` print those lines to stdout as they happen and
            :meth:`render` returns None (Gymnasium's and PettingZoo's meaning of ``human``); or
            ``rgb_array``: :meth:`render` returns the table as ``agent_selection`` sees it (RULES.md §10), an
            ``(H, W, 3) uint8`` array 1000 pixels wide (:func:`cya_sim.render.rgb_array`).
        seat_names: names shown in the log after each seat (default the agent names ``player_s``).
        stack_depth: top sets per stack encoded one by one (:class:`~cya_sim.env.classic.encoding.ObservationEncoder`);
            for the theft game, asset slots per seat (:class:`~cya_sim.env.theft.encoding.TheftObservationEncoder`).

    Observations: ``{"observation": (D_obs,) float32, "action_mask": (A,) int8}``, the observation in the
    finite ``Box`` of the game's encoder (``space()``, bounds derived from the rules); the mask is 1 for
    the legal actions of the agent to act and all 0 for the others (and once the game is over). The
    structured form is :meth:`structured_observation` (a :class:`~cya_sim.engine.classic.reference.observation.Observation`,
    or a :class:`~cya_sim.engine.theft.observation.TheftObservation`).
    Actions: ``Discrete(A)``, the ids of :class:`~cya_sim.game.classic.actions.ActionSpace` (theft:
    :class:`~cya_sim.game.theft.actions.TheftActionSpace`).

    Seeding: ``reset(seed=S)`` plays game 0 under seed ``S``, ``reset(seed=S, options={"game": g})``
    game ``g``, and a later ``reset()`` without a seed the next game index under the same seed, so
    successive resets play the games of ``cya-sim tournament --seed S`` in order, and game ``g`` deals
    as ``cya-sim play --seed S --game g``. :meth:`agent_rng` is the seat's own random stream, the one
    ``cya-sim play``/``tournament`` give the agent in that seat (a ``random`` agent that draws from it
    chooses exactly as the built-in ``random``).

    Ending: a game that ends by R-GAME-END (R-T-END) sets ``terminations``; a game stopped by the rules'
    ``max_rounds`` safeguard (RuleSet.max_rounds; ``max_turns`` for the theft game; not a rule of the game)
    sets ``truncations``
    instead, with ``infos[agent]["capped"] = True``; either way the rewards are the win shares of
    the totals as they stand.

    Raises:
        RulesError: unknown preset or a table size the rules do not allow.
        ValueError: unknown ``reward`` or ``render_mode``; an illegal action in :meth:`step`
            (:class:`~cya_sim.env.game.IllegalActionError`, naming the agent, seat, game and action;
            anything but an integer, 13.0 or True included, is illegal); a seed or game that is not None
            or an integer from 0 to 2**63 - 1; an agent name that is not ``player_s``.
        gymnasium.error.ResetNeeded: :meth:`step`, :meth:`observe`, :meth:`last` or :meth:`agent_rng`
            before the first :meth:`reset`.
    """

    #: PettingZoo's metadata (https://pettingzoo.farama.org/api/aec/, 1.24+): the versioned name, the render
    #: modes, and ``is_parallelizable`` False (a turn-based game: one agent acts at a time, so there is no
    #: ``parallel_env``; see :mod:`cya_sim.env.cover_your_assets_v0`). ``render_fps`` 1 as PettingZoo's text
    #: games declare it (the log is printed as it happens, not timed).
    metadata: ClassVar[dict] = {"name": "cover_your_assets_v0", "render_modes": ["ansi", "human", "rgb_array"],
                                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules: str | RuleSet = "classic", n_players: int = 4, reward: str = "win_share",
                 render_mode: str | None = None, seat_names=None, stack_depth: int | None = DEFAULT_STACK_DEPTH):
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward: {reward!r}; allowed: {', '.join(REWARDS)}")
        if render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode: {render_mode!r}; allowed: None, 'ansi', 'human', 'rgb_array'")
        self.rules = resolve_rules(rules)
        n_players = check_players(self.rules, n_players)  # before anything is sized by it
        self.n_players = n_players
        self.reward_kind = reward
        self.render_mode = render_mode
        self.possible_agents = [f"player_{s}" for s in range(n_players)]
        self._lines: list[str] = []
        self.game = EnvGame(self.rules, n_players, seat_names if seat_names is not None else self.possible_agents,
                            log=self._lines.append if render_mode is not None else None)
        self.encoder = self.game.kind.encoder(n_players, stack_depth)
        a = self.game.space.size

        def obs_space() -> spaces.Dict:
            return spaces.Dict({"observation": self.encoder.space(), "action_mask": spaces.Box(0, 1, (a,), np.int8)})

        # one space object per agent, so each can be seeded on its own
        self.observation_spaces = {ag: obs_space() for ag in self.possible_agents}
        self.action_spaces = {ag: spaces.Discrete(a) for ag in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        """The Dict space of ``agent``'s observations (same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """``Discrete(A)`` (same object every call)."""
        return self.action_spaces[agent]

    def _seat(self, agent: str) -> int:
        if not self.game.started:
            raise ResetNeeded("call reset() before step(), observe() or last()")
        if not isinstance(agent, str) or agent not in self.possible_agents:
            raise ValueError(f"agent: {agent!r}; allowed: {', '.join(self.possible_agents)}")
        return self.possible_agents.index(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a game; see the class docstring for ``seed`` and ``options={"game": g}``.

        Raises:
            ValueError: ``seed`` or ``options["game"]`` not None or an integer from 0 to 2**63 - 1
                (1.5, "3", True, -1 and 2**64 are refused, not coerced); ``options`` not a dict.
                Nothing changes (a game in progress stays as it was).
        """
        check_seed(seed)
        game = check_options(options)  # other keys are ignored (PettingZoo's api_test passes one)
        self._lines.clear()
        self.game.start(seed, game)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_act]
        if self.render_mode == "human":
            self.render()

    def structured_observation(self, agent: str):
        """The §10 observation of ``agent`` (copies, no hidden information): an
        :class:`~cya_sim.engine.classic.reference.observation.Observation` or a
        :class:`~cya_sim.engine.theft.observation.TheftObservation`."""
        return self.game.observe(self._seat(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": (D_obs,) float32, "action_mask": (A,) int8}`` of ``agent`` (RULES.md §10)."""
        obs = self.game.observe(self._seat(agent))
        return {"observation": self.encoder.encode(obs), "action_mask": obs.legal_action_mask.astype(np.int8)}

    def agent_rng(self, agent: str) -> np.random.Generator:
        """The seat's own random stream for this game (stream ``1 + seat``, :mod:`cya_sim.game.rng`)."""
        return self.game.seat_rngs[self._seat(agent)]

    def step(self, action) -> None:
        """Apply the action of ``agent_selection`` (None for an agent already terminated or truncated).

        Raises:
            IllegalActionError: the action is not legal (names the agent, seat, game and action).
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
        """
        if not self.game.started:
            raise ResetNeeded("call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        before = self.game.totals() if self.reward_kind == "total_change" else None
        self.game.step(action, who=f"agent {agent!r}")
        rewards = np.zeros(self.n_players)
        if before is not None:
            rewards += (self.game.totals() - before) * self.game.kind.total_scale  # $M, or points
        if self.game.over:
            rewards += self.game.win_shares()
            capped = self.game.capped  # the max_rounds safeguard stopped it: a truncation, not an end
            for a in self.agents:
                (self.truncations if capped else self.terminations)[a] = True
                if capped:
                    self.infos[a] = {**self.infos[a], "capped": True}
        else:
            self.agent_selection = self.possible_agents[self.game.to_act]
        self.rewards = {a: float(rewards[self._seat(a)]) for a in self.agents}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True):
        """PettingZoo's ``last``: (observation, cumulative reward, termination, truncation, info) of ``agent_selection``.

        Raises:
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
        """
        if not self.game.started:
            raise ResetNeeded("call reset() before last()")
        return super().last(observe)

    def render(self) -> str | np.ndarray | None:
        """The readable log lines since the last call: returned (``ansi``) or printed to stdout (``human``, returns None);
        with ``rgb_array``, the table as ``agent_selection`` sees it, ``(H, W, 3) uint8`` (:mod:`cya_sim.render`).

        Without a render mode: None, with Gymnasium's warning.

        Raises:
            gymnasium.error.ResetNeeded: ``rgb_array`` before the first :meth:`reset`.
        """
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = "\n".join(self._lines)
        self._lines.clear()
        if self.render_mode == "rgb_array":
            from cya_sim.render import rgb_array

            return rgb_array(self.game._need_state(), seat=self._seat(self.agent_selection),
                             names=self.game.seat_names)
        if self.render_mode == "human":
            if text:
                print(text, flush=True)
            return None
        return text

    def close(self) -> None:
        """Nothing to release."""

