"""One game on the reference engine for the environments: seeding, steps, results and the readable log.

The PettingZoo, Gymnasium and OpenSpiel environments and the terminal game all
drive the reference engine through :class:`EnvGame`, so they deal, move and log
exactly as ``cya-sim play`` does: game ``g`` under seed ``S`` has the cards of
:func:`cya_sim.engine.reference.new_game` with key ``root_key(S)`` and index
``g``, and the seat ``s`` stream ``stream_generator(key, g, 1 + s)`` is the one
``cya-sim play``/``tournament`` give the agent at seat ``s`` (:mod:`cya_sim.game.rng`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from cya_sim.engine.reference import apply_action, new_game
from cya_sim.engine.reference import observation as observation_module
from cya_sim.engine.reference.draft import describe_tops
from cya_sim.engine.reference.legal import action_space, legal_action_mask
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import RuleSet, get_rules
from cya_sim.game.state import GameState


class IllegalActionError(ValueError):
    """An environment got an action outside the legal action mask; the message names seat, game and action."""


def resolve_rules(rules: str | RuleSet) -> RuleSet:
    """A :class:`RuleSet` from a preset name (``classic``, ``guide``, ``basic``) or a RuleSet (R-PRESETS).

    Raises:
        RulesError: unknown preset name.
    """
    return get_rules(rules) if isinstance(rules, str) else rules


class EnvGame:
    """A game in progress with its seed, game index, seat streams and readable log.

    Args:
        rules: the rule set. n_players: P.
        seat_names: names shown in the log after each seat (``seat 0 (random) ...``); default ``player_s``.
        log: callable receiving each readable line as it happens (the lines of ``cya-sim play``), or None.

    Attributes:
        state: the :class:`~cya_sim.game.state.GameState` (hidden information included; environments never
            hand it to agents). key: 64-bit root key. game_index: int. seat_rngs: P numpy Generators.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``.
    """

    def __init__(self, rules: RuleSet, n_players: int, seat_names: Sequence[str] | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        rules.check_players(n_players)
        self.rules, self.n_players = rules, n_players
        self.space = action_space(rules)
        self.seat_names = tuple(seat_names) if seat_names is not None else tuple(
            f"player_{s}" for s in range(n_players))
        if len(self.seat_names) != n_players:
            raise ValueError(f"seat_names: {len(self.seat_names)} names for {n_players} seats")
        self._log = log
        self.key: int | None = None
        self.game_index = -1
        self.state: GameState | None = None
        self.seat_rngs: list[np.random.Generator] = []

    def say(self, msg: str) -> None:
        """Log one line with each seat tagged by its name, as ``cya-sim play`` does."""
        if self._log is None:
            return
        for s in range(self.n_players):
            msg = msg.replace(f"seat {s} ", f"seat {s} ({self.seat_names[s]}) ")
        self._log(msg)

    def start(self, seed: int | None = None, game_index: int | None = None) -> None:
        """Deal a game (R-SETUP): under ``seed`` (new root key) or the current one; game ``game_index``
        (default: 0 after a new seed, else the next index). No seed ever given: a fresh random seed.

        Raises:
            ValueError: a negative ``seed`` or ``game_index``.
        """
        if seed is not None:
            if int(seed) < 0:
                raise ValueError(f"seed: {seed!r}; allowed: an int >= 0")
            self.key = root_key(int(seed))
            self.game_index = -1
        elif self.key is None:
            self.key = root_key(np.random.SeedSequence())
        g = self.game_index + 1 if game_index is None else int(game_index)
        if g < 0:
            raise ValueError(f"game: {game_index!r}; allowed: an int >= 0")
        self.game_index = g
        self.state = new_game(self.rules, self.n_players, self.key, g)
        self.seat_rngs = [stream_generator(self.key, g, 1 + s) for s in range(self.n_players)]
        if self._log is not None:
            names = self.rules.deck.names
            self._log(f"game {g}: {self.n_players} players, rules {self.rules.name}")
            self.say(f"round 1: seat {self.state.dealer} deals; the discard pile shows "
                     f"{names[self.state.discard_pile[-1]]}{describe_tops(self.state)}")

    @property
    def over(self) -> bool:
        """The game has ended (R-GAME-END)."""
        return self.state.winners is not None

    @property
    def to_act(self) -> int:
        """Seat that must act, -1 when the game is over."""
        return self.state.to_act

    def observe(self, seat: int) -> observation_module.Observation:
        """The §10 observation of ``seat`` (its mask is all false unless it is the seat to act)."""
        return observation_module.observe(self.state, seat)

    def legal_mask(self) -> np.ndarray:
        """(A,) bool legal action mask of the seat to act (all false when the game is over)."""
        if self.over:
            return np.zeros(self.space.size, bool)
        return legal_action_mask(self.state)

    def step(self, action: int, who: str = "") -> None:
        """Apply ``action`` for the seat to act; log the game-over line at the end (R-GAME-END).

        Raises:
            IllegalActionError: the game is over, or the action is not an int in the legal action mask;
                the message names ``who``, the seat, the game and the action.
        """
        seat = self.to_act
        mask = self.legal_mask()
        try:
            a = int(action)
            ok = 0 <= a < self.space.size and bool(mask[a]) and a == action
        except (TypeError, ValueError):
            a, ok = None, False
        if not ok:
            shown = self.space.name(a) if a is not None and 0 <= a < self.space.size else "outside the action space"
            legal = ", ".join(f"{i} ({self.space.name(i)})" for i in np.flatnonzero(mask))
            raise IllegalActionError(
                f"{who or 'agent'} at seat {seat} in game {self.game_index} chose illegal action {action!r} "
                f"({shown}); legal: {legal or 'none, the game is over'}")
        apply_action(self.state, a, self.say, legal_mask=mask)
        if self.over and self._log is not None:
            self._log("game over: winner(s) " + ", ".join(f"seat {s}" for s in self.state.winners)
                      + "; final totals " + ", ".join(f"${t:,}" for t in self.state.totals))

    def win_shares(self) -> np.ndarray:
        """(P,) float64: 1/k for each of the k winners, else 0 (R-TIE); zeros while the game is on."""
        out = np.zeros(self.n_players)
        if self.over:
            out[list(self.state.winners)] = 1.0 / len(self.state.winners)
        return out

    def totals(self) -> np.ndarray:
        """(P,) int64 running totals in dollars (R-SCORE)."""
        return np.array(self.state.totals, np.int64)
