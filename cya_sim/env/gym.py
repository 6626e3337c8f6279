"""Gymnasium single-agent environment: one seat learns, the other seats are agents given by spec.

The game runs on the reference engine exactly as ``cya-sim play`` runs it: the
same deal for the same seed and game index, and each opponent draws from its
own seat's stream (:mod:`cya_sim.game.rng`), so a game here replays with
``cya-sim play --seed S --game g`` when the learner's choices are the same.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    import gymnasium as gym
    from gymnasium import spaces
    from gymnasium.error import ResetNeeded
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from agents.spec import split_agent_list
from cya_sim.engine.agent_calls import call_agent
from cya_sim.env.errors import IllegalActionError
from cya_sim.env.features import make_encoder
from cya_sim.env.game import (
    EnvGame,
    check_int,
    check_options,
    check_players,
    check_seed,
    keyword_checked,
    resolve_rules,
)
from cya_sim.env.games import DEFAULT_STACK_DEPTH, GameInterface, game_interface
from cya_sim.env.rewards import DEFAULT_REWARD, check_reward, reward_unit, standing, uses_running_scores
from cya_sim.game.jsontext import show
from cya_sim.game.rules import RuleSet

ILLEGAL = ("end", "raise")


#: Default opponents of each game family (the theft game has its own agents, ``agents/theft/registry.py``).
DEFAULT_OPPONENTS = {"classic": "greedy,card_counter", "theft": "greedy,defender"}


def opponent_specs(opponents: str | None, n_seats: int, kind: GameInterface | None = None) -> list[str]:
    """Agent specs for ``n_seats`` opponent seats from a comma-separated list, cycled (``greedy,card_counter``).

    Args:
        opponents: the specs, or None for the game's default (:data:`DEFAULT_OPPONENTS`).
        kind: the game (:class:`~cya_sim.env.games.GameInterface`) whose agents they are; default the classic.

    The default list is cut to ``n_seats``; a list given with more specs than ``n_seats`` is refused (the extra
    specs would never play).

    Raises:
        ValueError: an empty list, more specs than ``n_seats``, an unknown agent spec (names the spec and the
            known agents), a learned model trained for other rules or another table size (``n_seats + 1``), or an agent that reads the hidden game state (``oracle``): the environments give
            agents observations only.
    """
    kind = kind if kind is not None else game_interface(resolve_rules("classic"))
    given = opponents is not None
    if opponents is None:
        opponents = DEFAULT_OPPONENTS[kind.family]
    if not isinstance(opponents, str | list | tuple) or not all(isinstance(n, str) for n in opponents):
        raise ValueError(f"opponents: {show(opponents, python_str=True)} ({type(opponents).__name__}); allowed: None "
                         "(the default), agent specs comma-separated ('greedy,card_counter') or a list of specs")
    names = split_agent_list(opponents) if isinstance(opponents, str) else list(opponents)
    if not names:
        raise ValueError("opponents: empty; give agent specs, comma-separated, e.g. 'greedy,card_counter'")
    if given and len(names) > n_seats:  # an extra spec would never play: refuse rather than drop it silently
        raise ValueError(f"opponents: {len(names)} specs given ({', '.join(names)}) but the table has "
                         f"{n_seats} other seat{'s' if n_seats != 1 else ''}; give at most {n_seats} (they are "
                         "cycled over the other seats in seat order)")
    from cya_sim.play.families import family_of

    for n in names:
        try:
            kind.check_opponent(n)
            family_of(kind.rules).check_setting(n, kind.rules, n_seats + 1)  # a learned model: its own table only
        except (ValueError, TypeError) as e:
            raise ValueError(f"opponents: {e}") from None
    return [names[i % len(names)] for i in range(n_seats)]


@keyword_checked
class CoverYourAssetsGym(gym.Env):
    """One learning seat against agents by spec (RULES.md; §10 observation), on the reference engine.

    Args:
        rules: preset name (``classic``, ``guide``, ``basic``, ..., ``theft``) or a rule set (the theft game,
            RULES.md §9, included). n_players: P.
        seat: the learning seat (0..P-1).
        opponents: agent specs for the other seats, comma-separated, cycled in seat order, at most P - 1 of
            them (default ``greedy,card_counter``, cut to P - 1; for the theft game its own agents,
            ``greedy,defender``).
        reward: ``margin_change`` (the default), ``total_change`` or ``win_share`` (:mod:`cya_sim.env.rewards`):
            each ends with the win share (1/k at game end for each of k winners, R-TIE, R-T-END);
            ``margin_change`` adds at each step the change of the learner's margin (its total plus its stack's
            value, R-SCORE, minus the mean of the other seats') in units of $100,000, ``total_change`` the change
            of its total (at each round end) in $M (both in points for the theft game); ``win_share`` is the
            sparse win share alone.
        observation: ``features`` (the learned agent's view features, a fifth to a seventh of the table vector's length
            and scaled to about one), ``table`` (the §10 vector) or None (the default): ``features`` where they
            encode the rules (the classic family without the advanced cards and draft piles), else ``table``
            (:mod:`cya_sim.env.features`). ``env.observation`` is the one chosen.
        illegal_action: ``end`` (default): an illegal action ends the episode with reward -1 and
            ``info["illegal_action"]`` naming the seat, game and action; ``raise``: raise
            :class:`~cya_sim.env.game.IllegalActionError` with that message.
        render_mode: None, ``ansi`` (:meth:`render` returns the readable log lines of ``cya-sim play``
            since the last call) or ``human`` (:meth:`reset` and :meth:`step` print them to stdout as
            they happen; :meth:`render` returns None, Gymnasium's meaning of ``human``) or ``rgb_array``
            (:meth:`render` returns the table as the learner's seat sees it, RULES.md §10: an
            ``(H, W, 3) uint8`` array 1000 pixels wide, :func:`cya_sim.render.rgb_array`).
        stack_depth: see :class:`~cya_sim.env.classic.encoding.ObservationEncoder` (the ``table`` observation's).

    Spaces: observation ``Box(low, high, (D_obs,), float32)`` with finite bounds derived from the rules
    (:meth:`~cya_sim.env.classic.encoding.ObservationEncoder.space`,
    :meth:`~cya_sim.env.features.ViewFeatureEncoder.space`), action ``Discrete(A)``. The legal action
    mask is ``info["action_mask"]`` ((A,) int8, 1 = legal: PettingZoo's convention and what Gymnasium's
    ``Discrete.sample(mask=...)`` takes) and :meth:`action_masks` ((A,) bool, the method sb3-contrib's
    MaskablePPO calls; through wrappers ``env.get_wrapper_attr("action_masks")()``). Seeding as :class:`~cya_sim.env.aec.CoverYourAssetsAEC`: ``reset(seed=S)`` is
    game 0 under S, ``options={"game": g}`` game g, a later ``reset()`` the next game.

    Ending: ``terminated`` when the game ends by R-GAME-END (R-T-END); ``truncated`` (and
    ``info["capped"] = True``) when the rules' ``max_rounds`` safeguard stopped it
    (RuleSet.max_rounds; the theft game's ``max_turns``; not a rule of the game); the reward ends with
    the win share either way.

    Raises:
        ValueError: bad seat (an integer from 0 to P-1; 1.5 and True are refused), opponents, reward, observation
            (``features`` for rules they do not encode among them), illegal_action or render_mode (naming the field); in :meth:`reset`, a seed or game that is
            not None or an integer from 0 to 2**63 - 1.
        RulesError: unknown preset or a table size the rules do not allow.
        gymnasium.error.ResetNeeded: :meth:`step` or :meth:`action_masks` before the first :meth:`reset`.
    """

    #: Gymnasium's metadata (https://gymnasium.farama.org/api/env/, 1.0+); ``render_fps`` 1 as the AEC env's
    #: (the log is printed as it happens, not timed; Gymnasium's checker asks for the key).
    metadata: ClassVar[dict] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, rules: str | RuleSet = "classic", n_players: int = 4, seat: int = 0,
                 opponents: str | None = None, reward: str = DEFAULT_REWARD, observation: str | None = None,
                 illegal_action: str = "end", render_mode: str | None = None,
                 stack_depth: int | None = DEFAULT_STACK_DEPTH) -> None:
        self.rules = resolve_rules(rules)
        n_players = check_players(self.rules, n_players)
        seat = check_int(seat, "seat", 0, n_players - 1)
        reward = check_reward(reward)
        if illegal_action not in ILLEGAL:
            raise ValueError(f"illegal_action: {illegal_action!r}; allowed: {', '.join(ILLEGAL)}")
        if render_mode not in (None, "ansi", "human", "rgb_array"):
            raise ValueError(f"render_mode: {render_mode!r}; allowed: None, 'ansi', 'human', 'rgb_array'")
        self.n_players, self.seat, self.reward_kind, self.illegal_action = n_players, seat, reward, illegal_action
        self.render_mode = render_mode
        kind = game_interface(self.rules)
        self._unit = reward_unit(kind, reward)
        specs = opponent_specs(opponents, n_players - 1, kind)
        self.seat_specs = specs[:seat] + ["learner"] + specs[seat:]
        self._opponents = {s: kind.make_agent(self.seat_specs[s]) for s in range(n_players) if s != seat}
        self._lines: list[str] = []
        self.game = EnvGame(self.rules, n_players, self.seat_specs,
                            log=self._lines.append if render_mode is not None else None)
        self.observation, self.encoder = make_encoder(kind, n_players, observation, stack_depth)
        self.observation_space = self.encoder.space()
        self.action_space = spaces.Discrete(self.game.space.size)
        self._mask = np.zeros(self.game.space.size, bool)

    def _play_opponents(self) -> None:
        g = self.game
        while not g.over and g.to_act != self.seat:
            s = g.to_act
            # an opponent's exception (a write into its read-only mask among them) names it, its seat and the game
            action = call_agent(self._opponents[s], self.seat_specs[s], s, g.game_index, g.observe(s), g.seat_rngs[s])
            g.step(action, who=f"agent {self.seat_specs[s]!r}")

    def _obs_info(self) -> tuple[np.ndarray, dict]:
        obs = self.game.observe(self.seat)
        self._mask = obs.legal_action_mask
        return self.encoder.encode(obs), {"action_mask": self._mask.astype(np.int8), "game": self.game.game_index}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal a game and play the opponents up to the learner's first decision; return (obs, info).

        Raises:
            ValueError: ``seed`` or ``options["game"]`` not None or an integer from 0 to 2**63 - 1
                (1.5, "3", True, -1 and 2**64 are refused, not coerced); ``options`` not a dict.
        """
        seed = check_seed(seed)
        game = check_options(options)
        super().reset(seed=seed)
        self._lines.clear()
        self.game.start(seed, game)
        self._play_opponents()
        out = self._obs_info()
        self._render_human()
        return out

    def action_masks(self, env: Any = None) -> np.ndarray:
        """(A,) bool legal action mask of the learner's current decision (sb3-contrib's ``action_masks`` method).

        ``env`` is ignored: sb3-contrib's ``ActionMasker(env, "action_masks")`` calls the method it names with the
        environment as argument, so that form works too.

        Bool, not the int8 of ``info["action_mask"]``: masks from this method are used as boolean masks
        (``~mask``, ``actions[mask]``), which an int8 array would silently get wrong; ``astype(np.int8)`` gives
        the int8 form. Through wrappers: ``env.get_wrapper_attr("action_masks")()``.

        Raises:
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
        """
        if not self.game.started:
            raise ResetNeeded("call reset() before action_masks()")
        return self._mask.copy()

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's action, play the opponents to its next decision or the game end.

        Returns:
            (obs, reward, terminated, truncated, info); reward as ``reward`` says (class docstring).

        Raises:
            IllegalActionError: with ``illegal_action="raise"``, an action outside the mask or anything but
                an integer (13.0, "13", True, None); with ``"end"`` these end the episode instead.
            gymnasium.error.ResetNeeded: before the first :meth:`reset`.
            AgentError: an opponent's ``act`` raised (a write into its read-only mask among them): names the
                opponent, its seat and the game (:func:`cya_sim.engine.agent_calls.call_agent`).
        """
        g = self.game
        if not g.started:
            raise ResetNeeded("call reset() before step()")
        before = self._standing()
        try:
            g.step(action, who="learner")
        except IllegalActionError as e:
            if self.illegal_action == "raise":
                raise
            obs, info = self._obs_info()
            self._render_human()
            return obs, -1.0, True, False, {**info, "illegal_action": str(e)}
        self._play_opponents()
        reward = float(self._standing() - before) / self._unit  # $M, or points; 0.0 for win_share
        if g.over:
            reward += float(g.win_shares()[self.seat])
        obs, info = self._obs_info()
        capped = g.over and g.capped  # the max_rounds safeguard: a truncation (Gymnasium's flag for it)
        if capped:
            info["capped"] = True
        self._render_human()
        return obs, reward, g.over and not capped, capped, info

    def _standing(self) -> float:
        """The learner's standing whose changes the reward pays (:func:`cya_sim.env.rewards.standing`)."""
        g = self.game
        scores = g.kind.running_scores(g.state) if uses_running_scores(self.reward_kind) else g.totals()
        return float(standing(self.reward_kind, scores, self.seat))

    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The readable log lines since the last call: returned (``ansi``) or printed to stdout (``human``, returns None);
        with ``rgb_array``, the table as the learner's seat sees it, ``(H, W, 3) uint8`` (:mod:`cya_sim.render`).

        Without a render mode: None, with Gymnasium's warning.

        Raises:
            gymnasium.error.ResetNeeded: ``rgb_array`` before the first :meth:`reset`.
        """
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        text = "\n".join(self._lines)
        self._lines.clear()
        if self.render_mode == "rgb_array":
            if not self.game.started:
                raise ResetNeeded("call reset() before render()")
            from cya_sim.render import rgb_array

            return rgb_array(self.game.state, seat=self.seat, names=self.game.seat_names)
        if self.render_mode == "human":
            if text:
                print(text, flush=True)
            return None
        return text
