"""The game interface of the environments: what every RL environment needs from a game, for each game.

The environments of :mod:`cya_sim.env` (PettingZoo, Gymnasium, the batched vector env, OpenSpiel, the
human terminal) reach a game only through a :class:`GameInterface`, chosen once from the rule set by
:func:`game_interface` (the one place that looks at ``rules.family``). Two games implement it:

- :class:`ClassicGame` — the Cover Your Assets family (RULES.md §1–8; every preset of
  :data:`cya_sim.game.rules.PRESETS`), wrapping the reference engine, the §10 observation, the
  :class:`~cya_sim.env.classic.encoding.ObservationEncoder`, the batched engine bridge and the OpenSpiel state
  exactly as they were (behaviour unchanged).
- :class:`TheftGame` — seed 003's theft game (RULES.md §9, preset ``theft``), on
  :mod:`cya_sim.game.theft`'s reference engine, state, legal mask and observation, encoded by
  :class:`~cya_sim.env.theft.encoding.TheftObservationEncoder`; its vector env runs on the compiled
  theft engine (:mod:`cya_sim.env.theft.batched_bridge`) and its OpenSpiel game is
  :mod:`cya_sim.env.theft.openspiel`.

A state is the game's own object (a :class:`~cya_sim.game.classic.state.GameState` or a
:class:`~cya_sim.game.theft.state.TheftState`); the environments hold it but never read it — they ask the
interface. A third game is a recipe: a subclass here with its encoder, bridge and OpenSpiel state, one
entry in :data:`GAMES`, and the conformance tests of ``tests/test_env_conformance.py`` run over it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

Log = Callable[[str], None] | None


class GameInterface(ABC):
    """What an environment needs from one game under one rule set (abstract; see the module docstring).

    Attributes:
        rules: the rule set (a :class:`~cya_sim.game.rules.RuleSet` or a
            :class:`~cya_sim.game.theft.rules.TheftRuleSet`).
        space: the fixed action space: ``size`` (A) and ``name(action) -> str``.
        score_unit: ``"dollars"`` or ``"points"``: the unit of :meth:`totals`.
        total_scale: the factor of ``reward="total_change"``: a change of the totals times this is the
            reward (1e-6 for dollars, so rewards are in $M; 1.0 for points).
        cap_name: the rules' safeguard option that :meth:`capped` reports (``max_rounds``, ``max_turns``).
    """

    family: ClassVar[str] = ""
    score_unit: ClassVar[str] = ""
    total_scale: ClassVar[float] = 1.0
    cap_name: ClassVar[str] = ""

    def __init__(self, rules) -> None:
        self.rules = rules
        self.space = self._space()

    @abstractmethod
    def _space(self):
        raise NotImplementedError

    @property
    @abstractmethod
    def n_card_types(self) -> int:
        """T, the card types of the rules (the outcomes of one chance move of a shuffle)."""
        raise NotImplementedError

    # -- a game in progress ---------------------------------------------------------------------------
    @abstractmethod
    def new_state(self, n_players: int, key: int, game_index: int, log: Log = None):
        """Deal game ``game_index`` under the 64-bit root ``key`` (engine stream 0, :mod:`cya_sim.game.rng`),
        sending the opening lines of ``cya-sim play``'s log to ``log``.

        Raises:
            RulesError: ``n_players`` not allowed by the rules.
        """
        raise NotImplementedError

    # Both games' states share these fields (``to_act``, ``winners``, ``capped``); a game whose state does not
    # overrides them.
    def to_act(self, state) -> int:
        """Seat that must act, -1 when the game is over."""
        return state.to_act

    def over(self, state) -> bool:
        """The game has ended (by its rules or by the safeguard)."""
        return state.winners is not None

    def capped(self, state) -> bool:
        """The game was stopped by the rules' safeguard (:attr:`cap_name`), not by the rules' end."""
        return bool(state.capped)

    def winners(self, state) -> tuple[int, ...]:
        """Seats sharing the win (empty while the game is on)."""
        return tuple(state.winners or ())

    @abstractmethod
    def totals(self, state) -> np.ndarray:
        """(P,) int64 running totals, in :attr:`score_unit`."""
        raise NotImplementedError

    @abstractmethod
    def observe(self, state, seat: int):
        """What ``seat`` may see (RULES.md §10); has ``legal_action_mask`` (A,) bool, all false unless ``seat``
        is to act."""
        raise NotImplementedError

    @abstractmethod
    def legal_mask(self, state) -> np.ndarray:
        """(A,) bool legal action mask of the seat to act (all false when the game is over)."""
        raise NotImplementedError

    @abstractmethod
    def apply(self, state, action: int, log: Log = None, mask: np.ndarray | None = None) -> None:
        """Apply a legal ``action`` (already checked against ``mask``) in place, logging as ``cya-sim play``."""
        raise NotImplementedError

    def closing_line(self, state) -> str | None:
        """The game-over line the environment logs after the last action, or None when the engine logs its own."""
        return None

    def name_seats(self, msg: str, names) -> str:
        """``msg`` with each ``seat s`` followed by its name (``seat 0 (random) ...``), as ``cya-sim play`` shows it."""
        for s, name in enumerate(names):
            msg = msg.replace(f"seat {s} ", f"seat {s} ({name}) ")
        return msg

    # -- encodings, agents, engines of the other environments --------------------------------------------
    @abstractmethod
    def encoder(self, n_players: int, depth: int | None):
        """The observation encoder: ``size`` (D_obs), ``low``/``high`` (D_obs,) float32 finite bounds from the
        rules, ``space()`` (a Gymnasium Box), ``encode(obs) -> (D_obs,) float32`` and
        ``encode_batch(batch_obs) -> (B, D_obs) float32``.

        Raises:
            RulesError: ``n_players`` not allowed. ValueError: ``depth`` < 1.
        """
        raise NotImplementedError

    @abstractmethod
    def make_agent(self, spec: str):
        """An agent of this game from its spec (``act(obs, rng) -> int``).

        Raises:
            ValueError: unknown or malformed spec (names the game's agents). TypeError: a class without ``act``.
        """
        raise NotImplementedError

    def check_opponent(self, spec: str) -> None:
        """Refuse an agent the environments cannot seat (ValueError naming it); None when it can play."""
        self.make_agent(spec)

    @abstractmethod
    def check_compiled_opponent(self, spec: str) -> None:
        """Refuse (ValueError) an opponent without a compiled form: the vector env plays opponents in compiled code."""
        raise NotImplementedError

    @property
    @abstractmethod
    def bridge(self) -> ModuleType:
        """The module joining the vector env to this game's batched engine (:mod:`cya_sim.env.classic.batched_bridge`'s
        functions: ``new_batch``, ``advance``, ``observe``, ``step``, ``game_index``)."""
        raise NotImplementedError

    @abstractmethod
    def max_game_length(self, n_players: int) -> int:
        """Most chance and player moves of one game of this game's OpenSpiel form."""
        raise NotImplementedError



class ClassicGame(GameInterface):
    """The Cover Your Assets family (every classic preset) on the reference engine; totals in dollars (R-SCORE)."""

    family = "classic"
    score_unit = "dollars"
    total_scale = 1e-6
    cap_name = "max_rounds"

    def _space(self):
        from cya_sim.engine.classic.reference.legal import action_space

        return action_space(self.rules)

    @property
    def n_card_types(self) -> int:
        return self.rules.deck.n_types

    def new_state(self, n_players: int, key: int, game_index: int, log: Log = None):
        from cya_sim.engine.classic.reference import new_game
        from cya_sim.engine.classic.reference.draft import describe_tops

        state = new_game(self.rules, n_players, key, game_index)
        if log is not None:
            log(f"game {game_index}: {n_players} players, rules {self.rules.name}")
            log(f"round 1: seat {state.dealer} deals; the discard pile shows "
                f"{self.rules.deck.names[state.discard_pile[-1]]}{describe_tops(state)}")
        return state

    def totals(self, state) -> np.ndarray:
        return np.array(state.totals, np.int64)

    def observe(self, state, seat: int):
        from cya_sim.engine.classic.reference import observation

        return observation.observe(state, seat)

    def legal_mask(self, state) -> np.ndarray:
        from cya_sim.engine.classic.reference.legal import legal_action_mask

        return legal_action_mask(state)

    def apply(self, state, action: int, log: Log = None, mask: np.ndarray | None = None) -> None:
        from cya_sim.engine.classic.reference import apply_action

        apply_action(state, action, log, legal_mask=mask)

    def closing_line(self, state) -> str | None:
        return ("game over: winner(s) " + ", ".join(f"seat {s}" for s in state.winners)
                + "; final totals " + ", ".join(f"${t:,}" for t in state.totals))

    def encoder(self, n_players: int, depth: int | None):
        from cya_sim.env.classic.encoding import ObservationEncoder

        return ObservationEncoder(self.rules, n_players, depth)

    def make_agent(self, spec: str):
        from agents.classic.registry import make_agent

        return make_agent(spec)

    def check_opponent(self, spec: str) -> None:
        from agents.classic.registry import is_cheating

        self.make_agent(spec)
        if is_cheating(spec):
            raise ValueError(f"{spec!r} reads the hidden game state; allowed: agents that play on "
                             "observations (e.g. random, greedy, heuristic, card_counter)")

    def check_compiled_opponent(self, spec: str) -> None:
        from agents.classic.registry import compiled_policy

        if compiled_policy(spec) is None:
            raise ValueError(f"opponents: {spec!r} has no compiled form; the vector environment takes compiled "
                             "agents (random, greedy, heuristic, wild_hoarder, card_counter, compiled plug-ins)")

    @property
    def bridge(self) -> ModuleType:
        from cya_sim.env.classic import batched_bridge

        return batched_bridge

    def max_game_length(self, n_players: int) -> int:
        from cya_sim.env import bounds

        return bounds.max_game_length(self.rules, n_players)


class TheftGame(GameInterface):
    """Seed 003's theft game (RULES.md §9) on :mod:`cya_sim.game.theft`'s reference engine; totals in points (R-T-END).

    The turn cap ``max_turns`` (a safeguard, not a rule) is what :meth:`capped` reports: the environments
    end such a game as a truncation, as they do with the classic ``max_rounds``.
    """

    family = "theft"
    score_unit = "points"
    total_scale = 1.0
    cap_name = "max_turns"

    def _space(self):
        from cya_sim.engine.theft.legal import action_space

        return action_space(self.rules)

    @property
    def n_card_types(self) -> int:
        return self.rules.n_types

    def new_state(self, n_players: int, key: int, game_index: int, log: Log = None):
        from cya_sim.engine.theft.reference import new_game

        return new_game(self.rules, n_players, key, game_index, log)  # it logs its own opening lines

    def totals(self, state) -> np.ndarray:
        return np.array(state.scores(), np.int64)

    def observe(self, state, seat: int):
        from cya_sim.engine.theft.observation import observe

        return observe(state, seat)

    def legal_mask(self, state) -> np.ndarray:
        from cya_sim.engine.theft.legal import legal_action_mask

        return legal_action_mask(state)

    def apply(self, state, action: int, log: Log = None, mask: np.ndarray | None = None) -> None:
        from cya_sim.engine.theft.reference import apply_action

        apply_action(state, action, log, legal_mask=mask)

    def name_seats(self, msg: str, names) -> str:
        for s, name in enumerate(names):  # as cya_sim.play.theft.reference.play_game tags its log
            msg = msg.replace(f"seat {s} ", f"seat {s} ({name}) ").replace(f"seat {s}'s", f"seat {s} ({name})'s")
        return msg

    def encoder(self, n_players: int, depth: int | None):
        from cya_sim.env.theft.encoding import TheftObservationEncoder

        return TheftObservationEncoder(self.rules, n_players, depth)

    def make_agent(self, spec: str):
        from agents.theft.registry import make_theft_agent

        return make_theft_agent(spec)

    def check_compiled_opponent(self, spec: str) -> None:
        from agents.theft.compiled import theft_policy_of

        if theft_policy_of(spec)[0] < 0:
            raise ValueError(f"opponents: {spec!r} has no compiled form; the vector environment takes compiled "
                             "theft agents (random, greedy, defender, compiled theft plug-ins)")

    @property
    def bridge(self) -> ModuleType:
        from cya_sim.env.theft import batched_bridge as theft_batched_bridge

        return theft_batched_bridge

    def max_game_length(self, n_players: int) -> int:
        """Most chance and player moves of one OpenSpiel theft game (:mod:`cya_sim.env.theft.openspiel`).

        With P seats, hand size H, NC cards, T = ``max_turns`` turns at most (the safeguard) and at most
        ``d = draw_per_turn`` (+ ``hand_limit`` under ``discard_and_draw_up``) cards drawn a turn, so
        ``D = T * d`` draws in all: cards enter hands only by the deal and draws (``P * H + D``); every
        decision but ``end_turn`` (one a turn), ``let_pass`` and ``give_up_asset`` (one per theft card,
        which left a hand) takes at least one card from a hand, so there are at most
        ``2 (P * H + D) + T`` decisions (R-T-SETUP, R-T-TURN). Chance moves: the first player, the NC
        cards of the first shuffle, and the reshuffled discard piles, one move a card: a reshuffle
        happens only when the draw pile is empty, so all but the last reshuffled pile were drawn:
        at most ``D + NC`` (R-T-TURN). Hence ``1 + NC + (D + NC) + 2 (P * H + D) + T``.

        Raises:
            RulesError: ``n_players`` not allowed by the rules.
        """
        r = self.rules
        r.check_players(n_players)
        per_turn = r.draw_per_turn + (r.hand_limit if r.end_of_turn == "discard_and_draw_up" else 0)
        draws = r.max_turns * per_turn
        return 1 + r.n_cards + (draws + r.n_cards) + 2 * (n_players * r.hand_size + draws) + r.max_turns


#: The games of the environments, by ``rules.family``.
GAMES: dict[str, type[GameInterface]] = {"classic": ClassicGame, "theft": TheftGame}


def game_interface(rules: Any) -> GameInterface:
    """The :class:`GameInterface` of a rule set, chosen by its game family (``classic`` when it names none).

    Raises:
        ValueError: a family no environment plays (names the known ones).
    """
    family = getattr(rules, "family", "classic")
    if family not in GAMES:
        raise ValueError(f"rules {getattr(rules, 'name', rules)!r}: game family {family!r} has no environment; "
                         f"known: {', '.join(GAMES)}")
    return GAMES[family](rules)
