"""The game interface of the environments: what every RL environment needs from a game, for each game.

The environments of :mod:`cya_sim.env` (PettingZoo, Gymnasium, the batched vector env, OpenSpiel, the
human terminal) reach a game only through a :class:`GameInterface`, chosen once from the rule set by
:func:`game_interface` (the one place that looks at ``rules.family``), each game's in its own folder
(``cya_sim/env/<family>/interface.py``, found by the game's name in :data:`cya_sim.game.registry.GAMES`). Two games
implement it:

- :class:`~cya_sim.env.classic.interface.ClassicGame` — the Cover Your Assets family (RULES.md §1–8; every preset of
  :data:`cya_sim.game.rules.PRESETS`), wrapping the reference engine, the §10 observation, the
  :class:`~cya_sim.env.classic.encoding.ObservationEncoder`, the batched engine bridge and the OpenSpiel state
  exactly as they were (behaviour unchanged).
- :class:`~cya_sim.env.theft.interface.TheftGame` — seed 003's theft game (RULES.md §9, preset ``theft``), on
  :mod:`cya_sim.game.theft`'s reference engine, state, legal mask and observation, encoded by
  :class:`~cya_sim.env.theft.encoding.TheftObservationEncoder`; its vector env runs on the compiled
  theft engine (:mod:`cya_sim.env.theft.batched_bridge`) and its OpenSpiel game is
  :mod:`cya_sim.env.theft.openspiel`.

A state is the game's own object (a :class:`~cya_sim.game.classic.state.GameState` or a
:class:`~cya_sim.game.theft.state.TheftState`); the environments hold it but never read it — they ask the
interface. A third game is a recipe: a subclass in its folder with its encoder, bridge and OpenSpiel state, and the
conformance tests of ``tests/test_env_conformance.py`` run over it (docs/layout.md, "Adding a game").
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from cya_sim.game.registry import GAMES, game_part

Log = Callable[[str], None] | None

#: Depth of the default observation encoding of every game: the top sets (assets) of each stack (seat) given one
#: by one (:meth:`GameInterface.encoder`).
DEFAULT_STACK_DEPTH = 8


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

    def running_scores(self, state) -> np.ndarray:
        """(P,) int64 each seat's score as it stands, in :attr:`score_unit`: what it would have if the game were
        scored now (the reward ``margin_change``, :mod:`cya_sim.env.rewards`). The totals, for a game that scores
        as it goes."""
        return self.totals(state)

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
        functions: ``new_batch``, ``advance``, ``observe``, ``step``, ``game_index``, ``totals``, ``running_scores``)."""
        raise NotImplementedError

    @abstractmethod
    def spiel_state(self, game):
        """A new state of the OpenSpiel game ``game`` (:class:`cya_sim.env.openspiel.CoverYourAssetsGame`) at its
        first chance node: the game's :class:`~cya_sim.env.openspiel.SpielState` subclass."""
        raise NotImplementedError

    def max_game_length(self, n_players: int) -> int:
        """Most chance and player moves of one game of this game's OpenSpiel form."""
        raise NotImplementedError


def game_interface(rules: Any) -> GameInterface:
    """The :class:`GameInterface` of a rule set, chosen by its game family (``classic`` when it names none): the
    ``INTERFACE`` of ``cya_sim/env/<family>/interface.py`` for a family of :data:`cya_sim.game.registry.GAMES`.

    Raises:
        ValueError: a family no environment plays (names the known ones).
    """
    family = getattr(rules, "family", "classic")
    if family not in GAMES:
        raise ValueError(f"rules {getattr(rules, 'name', rules)!r}: game family {family!r} has no environment; "
                         f"known: {', '.join(GAMES)}")
    return game_part("env.interface", family).INTERFACE(rules)
