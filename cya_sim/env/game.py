"""One game on a reference engine for the environments: seeding, steps, results and the readable log.

The PettingZoo and Gymnasium environments and the terminal game all drive a
reference engine through :class:`EnvGame` (the classic family's or the theft
game's, reached through :mod:`cya_sim.env.games`), so they deal, move and log
exactly as ``cya-sim play`` does: game ``g`` under seed ``S`` has the cards of
the engine's ``new_game`` with key ``root_key(S)`` and index ``g``, and the
seat ``s`` stream ``stream_generator(key, g, 1 + s)`` is the one
``cya-sim play``/``tournament`` give the agent at seat ``s`` (:mod:`cya_sim.game.rng`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence

import numpy as np

from cya_sim.env.errors import IllegalActionError, NotStartedError
from cya_sim.env.games import game_interface
from cya_sim.game.errors import RulesError
from cya_sim.game.jsontext import field_name, show
from cya_sim.game.limits import MAX_SEED
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import RuleSet, get_rules, preset_names
from cya_sim.game.theft.rules import TheftRuleSet


def is_int(v: object) -> bool:
    """``v`` is an integer: a Python ``int`` or a NumPy integer, never a ``bool`` (nothing else is coerced)."""
    return isinstance(v, int | np.integer) and not isinstance(v, bool | np.bool_)


def check_int(v: object, field: str, lo: int, hi: int, none_ok: bool = False) -> int | None:
    """``v`` as a Python int when it is an integer (:func:`is_int`) from ``lo`` to ``hi`` (or None with ``none_ok``).

    Raises:
        ValueError: anything else (a float such as 1.5 or 3.0, a str, a bool, an out-of-range integer); the
            message names ``field`` and the allowed values.
    """
    if v is None and none_ok:
        return None
    if not is_int(v) or not lo <= int(v) <= hi:
        allowed = f"an integer from {lo} to {hi:,}" + (" or None" if none_ok else "")
        raise ValueError(f"{field}: {show(v, python_str=True)} ({type(v).__name__}); allowed: {allowed}")
    return int(v)


def check_seed(seed: object) -> int | None:
    """A ``reset`` seed: None (a fresh random seed) or an integer from 0 to 2**63 - 1, as ``cya-sim --seed``.

    Raises:
        ValueError: anything else (names the field ``seed`` and the allowed values).
    """
    return check_int(seed, "seed", 0, MAX_SEED, none_ok=True)


def check_options(options: object) -> int | None:
    """The game index of ``reset(options=...)``: None or a dict whose ``"game"`` is None or 0..2**63 - 1.

    Other keys are ignored (PettingZoo's ``api_test`` passes one).

    Raises:
        ValueError: ``options`` not a dict, or its ``game`` not such an integer (names the field).
    """
    if options is None:
        return None
    if not isinstance(options, dict):
        raise ValueError(f"options: {show(options, python_str=True)} ({type(options).__name__}); "  # noqa: TRY004
                         "allowed: None or a dict such as {'game': 3}")
    return check_int(options.get("game"), "options['game']", 0, MAX_SEED, none_ok=True)


def resolve_rules(rules: str | RuleSet | TheftRuleSet) -> RuleSet | TheftRuleSet:
    """A rule set from a preset name (``classic``, ``guide``, ``basic``, ``theft``, ...) or a rule set (R-PRESETS).

    Raises:
        RulesError: unknown preset name.
        TypeError: ``rules`` neither a str nor a rule set (``rules=3``); names the argument and the presets.
    """
    if isinstance(rules, str):
        return get_rules(rules)
    if isinstance(rules, RuleSet | TheftRuleSet):
        return rules
    raise TypeError(f"rules: {show(rules, python_str=True)} ({type(rules).__name__}); allowed: a preset name "
                    f"({', '.join(preset_names())}) or a RuleSet / TheftRuleSet")


def keyword_checked(cls: type) -> type:
    """Class decorator: an unknown keyword argument of ``cls(...)`` raises a TypeError that lists the allowed ones.

    Python's own message names only the bad keyword (``got an unexpected keyword argument 'n_player'``); the
    environments' constructors are a public API, so the refusal says what is allowed, like every other argument
    check here. The signature seen by ``inspect`` is unchanged.
    """
    init = cls.__init__
    params = inspect.signature(init).parameters
    allowed = [n for n, p in params.items() if n != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return cls

    @functools.wraps(init)
    def checked(self, *args, **kwargs):
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"{field_name(k)}: unknown argument of {cls.__name__}; allowed: {', '.join(allowed)}")
        init(self, *args, **kwargs)

    cls.__init__ = checked
    return cls


def check_players(rules: RuleSet | TheftRuleSet, n_players: object) -> int:
    """``n_players`` as an int when it is an integer (:func:`is_int`) the rules allow (``min_players`` to ``max_players``).

    Checked before anything is sized by it (a table of 10**400 seats is refused, not allocated).

    Raises:
        ValueError: a str (``"4"``), a float or a bool; RulesError (a ValueError) an integer outside the rules'
            table sizes, as before. The message names ``n_players`` and the allowed range.
    """
    try:
        return check_int(n_players, "n_players", rules.min_players, rules.max_players)
    except ValueError as e:
        if is_int(n_players):
            raise RulesError(str(e)) from None
        raise


def check_seat_names(names: object, n_players: int) -> tuple[str, ...] | None:
    """``seat_names`` as a tuple of ``n_players`` strings, or None.

    Raises:
        ValueError: not None and not a list or tuple of exactly ``n_players`` strings (names the argument).
    """
    if names is None:
        return None
    if not isinstance(names, list | tuple) or len(names) != n_players or not all(isinstance(n, str) for n in names):
        raise ValueError(f"seat_names: {show(names, python_str=True)} ({type(names).__name__}); allowed: None or "
                         f"a list of {n_players} strings (one per seat)")
    return tuple(names)


class EnvGame:
    """A game in progress with its seed, game index, seat streams and readable log, for every game.

    The game is reached through its :class:`~cya_sim.env.games.GameInterface` (``self.kind``, chosen
    once from the rule set): the classic family's reference engine or the theft game's (RULES.md §9).

    Args:
        rules: the rule set (any game family). n_players: P.
        seat_names: names shown in the log after each seat (``seat 0 (random) ...``); default ``player_s``.
        log: callable receiving each readable line as it happens (the lines of ``cya-sim play``), or None.

    Attributes:
        kind: the :class:`~cya_sim.env.games.GameInterface`. space: its action space (``size`` A, ``name``).
        state: the game's state (hidden information included; environments never hand it to agents).
        key: 64-bit root key. game_index: int. seat_rngs: P numpy Generators.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``.
        ValueError: ``seat_names`` not P names; a rule set of a game family no environment plays.
    """

    def __init__(self, rules: RuleSet, n_players: int, seat_names: Sequence[str] | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        rules = resolve_rules(rules)
        n_players = check_players(rules, n_players)
        self.rules, self.n_players = rules, n_players
        self.kind = game_interface(rules)
        self.space = self.kind.space
        names = check_seat_names(seat_names, n_players)
        self.seat_names = names if names is not None else tuple(f"player_{s}" for s in range(n_players))
        self._log = log
        self.key: int | None = None
        self.game_index = -1
        self.state = None
        self.seat_rngs: list[np.random.Generator] = []

    def say(self, msg: str) -> None:
        """Log one line with each seat tagged by its name, as ``cya-sim play`` does."""
        if self._log is None:
            return
        self._log(self.kind.name_seats(msg, self.seat_names))

    def start(self, seed: int | None = None, game_index: int | None = None) -> None:
        """Deal a game (R-SETUP, R-T-SETUP): under ``seed`` (new root key) or the current one; game
        ``game_index`` (default: 0 after a new seed, else the next index). No seed ever given: a fresh
        random seed.

        Raises:
            ValueError: ``seed`` or ``game_index`` not None or an integer from 0 to 2**63 - 1 (a float,
                a str, a bool, a negative or too large integer: nothing is coerced); nothing changes.
        """
        seed = check_seed(seed)
        game_index = check_int(game_index, "options['game']", 0, MAX_SEED, none_ok=True)
        if seed is not None:
            self.key = root_key(seed)
            self.game_index = -1
        elif self.key is None:
            self.key = root_key(np.random.SeedSequence())
        g = self.game_index + 1 if game_index is None else game_index
        if g > MAX_SEED:
            raise ValueError(f"options['game']: the next game would be {g:,}; allowed: up to {MAX_SEED:,}; give a "
                             "seed or a game")
        self.game_index = g
        self.state = self.kind.new_state(self.n_players, self.key, g, self.say if self._log is not None else None)
        self.seat_rngs = [stream_generator(self.key, g, 1 + s) for s in range(self.n_players)]

    @property
    def started(self) -> bool:
        """A game has been dealt (:meth:`start`)."""
        return self.state is not None

    def _need_state(self):
        if self.state is None:
            raise NotStartedError("no game has been dealt yet; call reset() (or EnvGame.start) first")
        return self.state

    @property
    def over(self) -> bool:
        """The game has ended (R-GAME-END, R-T-END, or the safeguard).

        Raises:
            NotStartedError: before :meth:`start`.
        """
        return self.kind.over(self._need_state())

    @property
    def capped(self) -> bool:
        """The game was stopped by the rules' safeguard (``max_rounds``; ``max_turns`` for theft), not by its end."""
        return self.kind.capped(self._need_state())

    @property
    def to_act(self) -> int:
        """Seat that must act, -1 when the game is over."""
        return self.kind.to_act(self._need_state())

    def observe(self, seat: int):
        """The §10 observation of ``seat`` (its mask is all false unless it is the seat to act): an
        :class:`~cya_sim.engine.classic.reference.observation.Observation` or a
        :class:`~cya_sim.engine.theft.observation.TheftObservation`.

        Raises:
            NotStartedError: before :meth:`start`. ValueError: ``seat`` not an integer from 0 to P-1.
        """
        state = self._need_state()
        return self.kind.observe(state, check_int(seat, "seat", 0, self.n_players - 1))

    def legal_mask(self) -> np.ndarray:
        """(A,) bool legal action mask of the seat to act (all false when the game is over)."""
        if self.over:
            return np.zeros(self.space.size, bool)
        return self.kind.legal_mask(self.state)

    def step(self, action: int, who: str = "") -> None:
        """Apply ``action`` for the seat to act; log the game-over line at the end (R-GAME-END, R-T-END).

        Raises:
            NotStartedError: before :meth:`start`.
            IllegalActionError: the game is over, or the action is not an integer (a Python or NumPy
                integer, not a bool: 13.0, "13", True and None are refused, not coerced) in the legal
                action mask; the message names ``who``, the seat, the game and the action.
        """
        seat = self.to_act
        mask = self.legal_mask()
        a = int(action) if is_int(action) else None
        ok = a is not None and 0 <= a < self.space.size and bool(mask[a])
        if not ok:
            if a is None:
                shown = f"{type(action).__name__}, not an action id: give an int"
            else:
                shown = self.space.name(a) if 0 <= a < self.space.size else "outside the action space"
            legal = ", ".join(f"{i} ({self.space.name(i)})" for i in np.flatnonzero(mask))
            raise IllegalActionError(
                f"{who or 'agent'} at seat {seat} in game {self.game_index} chose illegal action "
                f"{show(action, python_str=True)} ({shown}); legal: {legal or 'none, the game is over'}")
        self.kind.apply(self.state, a, self.say if self._log is not None else None, mask)
        if self.over and self._log is not None:
            line = self.kind.closing_line(self.state)
            if line is not None:
                self._log(line)

    def win_shares(self) -> np.ndarray:
        """(P,) float64: 1/k for each of the k winners, else 0 (R-TIE, R-T-END); zeros while the game is on."""
        out = np.zeros(self.n_players)
        if self.over:
            w = list(self.kind.winners(self.state))
            out[w] = 1.0 / len(w)
        return out

    def totals(self) -> np.ndarray:
        """(P,) int64 running totals: dollars (R-SCORE) or, for the theft game, points (R-T-END)."""
        return self.kind.totals(self._need_state())
