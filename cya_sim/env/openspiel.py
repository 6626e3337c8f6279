"""The OpenSpiel game of every game family (``python_cover_your_assets``): the game, its parameters, the observers,
the registration, and what every family's states share.

Game type: sequential, imperfect information, explicit chance, constant-sum (the win shares of a tie sum to 1),
terminal rewards. The game (:class:`CoverYourAssetsGame`) reaches its game family through the rule set's
:class:`~cya_sim.env.games.GameInterface` (the states, the encoder, ``max_game_length``); each family's states
(:class:`SpielState` subclasses: :mod:`cya_sim.env.classic.openspiel`, :mod:`cya_sim.env.theft.openspiel`) make
every shuffle a sequence of chance nodes and play on the family's reference engine.

Observation (string and tensor): the observation of the player (RULES.md §10; the tensor is the game's encoder's
vector, the string a canonical text of the same observation). Information state (string only): perfect recall, as
in OpenSpiel's card games: :func:`information_state_text` holds the player's current observation, its own actions so
far, and a digest (BLAKE2b, 128 bits) of the sequence of its observations at each of its decisions with the action
it took (:class:`Recall`). Two histories share an information state exactly when the player saw the same
observations at its decisions, took the same actions and sees the same now (up to a collision of the 128-bit
digest), so an information state determines every earlier one of the player and its actions (Kuhn's perfect
recall). The information state tensor is not provided: learners take the observation tensor.
:meth:`SpielState.resample_from_infostate` samples the hidden cards uniformly among the placements consistent with
the player's observation (the family's ``sample_hidden``), so OpenSpiel's ``ISMCTSBot`` runs on the game.

Parameters: ``players`` (default 4), ``rules`` (a preset of any family, default ``classic``; ``theft`` is seed 003's
theft game, RULES.md §9), ``rounds`` (0: the preset's end condition; n > 0: the game ends after n rounds,
``end_condition=rounds:n``), ``max_rounds`` (0: the preset's ``max_rounds`` safeguard, 1,000; m > 0: the game stops
after m rounds, the highest total winning, as ``RuleSet.max_rounds``), ``options`` (default ``""``: rule options,
``key:value`` with TOML values as ``cya-sim --option key=value`` reads them, separated by ``;``, e.g.
``"compulsory_defence:true;gold_theft_cancel:single_gold"``; neither ``,`` nor ``=``, which OpenSpiel's serialized
game string uses for its own parameters). The theft game has no rounds: ``rounds`` and ``max_rounds`` must stay 0
there (its safeguard is the option ``max_turns``).

The game registers itself when this module is imported, and so when :mod:`cya_sim.env` is
(:mod:`cya_sim.env.registration`): ``pyspiel.load_game("python_cover_your_assets", {...})``.
"""

from __future__ import annotations

import hashlib
import pickle
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    import pyspiel
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from cya_sim.env.game import check_int, check_players
from cya_sim.env.games import DEFAULT_STACK_DEPTH, game_interface
from cya_sim.game.jsontext import show
from cya_sim.game.limits import MAX_COUNT
from cya_sim.game.rules import RuleSet, get_rules, preset_names


class Shared:
    """Holds what every state of one game shares (the game); copying a state does not copy it (game-independent)."""

    def __init__(self, game) -> None:
        self.game = game

    def __deepcopy__(self, memo):
        return self


class Recall:
    """What one player remembers for its information state: a digest of its observations at its decisions
    with the actions it took, and those actions (immutable; a deep copy shares it).

    Attributes:
        digest: 16 bytes, BLAKE2b of the chain ``d_k = H(d_{k-1} | observation at decision k | action k)``.
        actions: the player's own action ids, in order.
        note: ``""``, or ``"resampled"`` for a recall made by :meth:`resampled`.
    """

    __slots__ = ("actions", "digest", "note")
    EMPTY: Recall

    def __init__(self, digest: bytes, actions: tuple[int, ...], note: str = "") -> None:
        self.digest, self.actions, self.note = digest, actions, note

    def __deepcopy__(self, memo) -> Recall:
        return self

    def after(self, key: tuple, action: int) -> Recall:
        """The recall once the player, observing ``key`` (:func:`view_key`), took ``action``."""
        h = hashlib.blake2b(self.digest, digest_size=16)
        h.update(pickle.dumps(key, protocol=4))  # ints, bools, strs, None and tuples: the same bytes everywhere
        h.update(b"|%d" % action)
        return Recall(h.digest(), (*self.actions, action), self.note)

    def resampled(self, seat: int) -> Recall:
        """Seat ``seat``'s recall in a state resampled from this player's information state: a digest of
        this recall and ``seat`` only, no actions (the real ones may reveal hidden cards)."""
        h = hashlib.blake2b(self.digest, digest_size=16)
        h.update(b"resampled for seat %d" % seat)
        return Recall(h.digest(), (), "resampled")


Recall.EMPTY = Recall(bytes(16), ())


def chance_distribution(first_pending: bool, n_players: int, left) -> list[tuple[int, float]]:
    """OpenSpiel's ``chance_outcomes()`` of both games: while the first seat is drawn, every seat uniformly; then
    each card type with copies ``left`` ((T,) ints), with probability copies left / cards left."""
    if first_pending:
        return [(s, 1.0 / n_players) for s in range(n_players)]
    n = int(left.sum())
    return [(int(t), float(c) / n) for t, c in enumerate(left) if c > 0]


class CheckedApply:
    """A mixin for a ``pyspiel.State``: ``apply_action`` refuses a non-integer or out-of-range action in one line
    before OpenSpiel sees it (OpenSpiel's -1 is its invalid action)."""

    def apply_action(self, action: int) -> None:
        """Apply a player's action or a chance outcome, checked first.

        Raises:
            ValueError: ``action`` is not an integer (a Python or NumPy integer, not a bool), is negative or
                beyond int64; at a chance node, an outcome not in ``chance_outcomes()``; at a player node, an
                action not legal (the game's IllegalActionError). The state does not change.
        """
        if (isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer)
                or not 0 <= action < 2**63):
            raise ValueError(f"action {show(action, python_str=True)} ({type(action).__name__}); allowed: "
                             + ("a chance outcome of chance_outcomes()" if self.is_chance_node()
                                else "an id of legal_actions()"))
        super().apply_action(int(action))


@dataclass(frozen=True)
class SpielParts:
    """A family's functions on its reference state that its OpenSpiel states use.

    legal_mask: ``state -> (A,) bool``. observe: ``(state, seat) ->`` the seat's observation. observation_text:
    ``observation ->`` its canonical one-line text (equal texts = equal observations). sample_hidden:
    ``(state, seat, numpy Generator)`` places the cards ``seat`` cannot see uniformly among the placements
    consistent with its observation, in place.
    """

    legal_mask: Callable
    observe: Callable
    observation_text: Callable
    sample_hidden: Callable


class SpielState(CheckedApply, pyspiel.State):
    """What every family's OpenSpiel state shares: the game, each seat's recall, chance nodes while a shuffle is
    placed, then the family's reference state (``ref``) played by its reference engine.

    A family's subclass gives its reference state (:attr:`ref`, None before the deal), whether the first seat is
    still to be drawn (:meth:`_first_pending`), its engine's functions (:attr:`parts`, a :class:`SpielParts`), the
    wording of its chance nodes (:attr:`FIRST_WHAT`, :attr:`CARDS_WHAT`, :attr:`CHANCE_NOTE`) and its own
    ``_apply_action``, ``_action_to_string`` and ``__str__``.
    """

    #: The family's functions on a reference state (set by the family's module).
    parts: SpielParts

    #: What the first chance node draws, and what a shuffle's chance nodes place (in refusals of an outcome).
    FIRST_WHAT = "first seat: seats"
    CARDS_WHAT = "card types with copies left to place"
    #: Appended to the observation text while chance shuffles.
    CHANCE_NOTE = " dealing"

    def __init__(self, game) -> None:
        super().__init__(game)
        self._shared = Shared(game)
        self.left: np.ndarray | None = None  # (T,) copies of each type still to place; None: no shuffle on
        self.recall = tuple(Recall.EMPTY for _ in range(game.n_players))  # per seat, for its information state

    @property
    def _g(self):
        return self._shared.game

    @property
    def ref(self):
        """The family's reference state (None before the deal)."""
        raise NotImplementedError

    def _chance(self) -> bool:
        """Chance is placing a shuffle."""
        return self.left is not None

    def _first_pending(self) -> bool:
        """The first seat (dealer, first player) is still to be drawn."""
        raise NotImplementedError

    def current_player(self) -> int:
        """The seat to act, CHANCE while chance draws the first seat or places a shuffle, TERMINAL at the end."""
        if self.ref is None or self._chance():
            return pyspiel.PlayerId.CHANCE
        if self.ref.winners is not None:
            return pyspiel.PlayerId.TERMINAL
        return self.ref.to_act

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """First seat: seats, uniform. A shuffle: card types, copies left / cards left."""
        return chance_distribution(self._first_pending(), self._g.n_players, self.left)

    def _legal_actions(self, player: int) -> list[int]:
        if self.ref is None or self._chance() or player != self.ref.to_act:
            return []
        return [int(a) for a in np.flatnonzero(self.parts.legal_mask(self.ref))]

    def _check_outcome(self, action: int) -> None:
        """Refuse a chance outcome that :meth:`chance_outcomes` does not list (ValueError, nothing changes)."""
        outcomes = [a for a, _ in self.chance_outcomes()]
        if action not in outcomes:
            what = self.FIRST_WHAT if self._first_pending() else self.CARDS_WHAT
            raise ValueError(f"chance outcome {action} is not one of chance_outcomes() ({what} "
                             f"{', '.join(map(str, outcomes))})")

    def is_terminal(self) -> bool:
        """The game is over (by its rules or by its safeguard)."""
        return self.ref is not None and not self._chance() and self.ref.winners is not None

    def returns(self) -> list[float]:
        """Win shares at the end (1/k for each of the k winners), zeros before."""
        p = self._g.n_players
        if not self.is_terminal():
            return [0.0] * p
        w = self.ref.winners
        return [1.0 / len(w) if s in w else 0.0 for s in range(p)]

    def observation(self, player: int):
        """The observation of ``player`` (None before the deal)."""
        return None if self.ref is None else self.parts.observe(self.ref, player)

    def observation_text(self, player: int) -> str:
        """The observation string of ``player`` (the family's text; :attr:`CHANCE_NOTE` while chance shuffles,
        ``p<player> dealing`` before the deal)."""
        obs = self.observation(player)
        if obs is None:
            return f"p{player} dealing"
        return self.parts.observation_text(obs) + (self.CHANCE_NOTE if self._chance() else "")

    def resample_from_infostate(self, player: int, probability_sampler=None) -> SpielState:
        """A state with the same information state for ``player`` and its hidden cards sampled uniformly among the
        placements consistent with the observation (the family's ``sample_hidden``). ``player``'s recall is kept;
        the other players' recalls, which hold what ``player`` cannot know, are replaced by a recall derived from
        ``player``'s alone (:meth:`Recall.resampled`), so the new state carries no hidden information of this one.
        """
        u = probability_sampler() if probability_sampler is not None else np.random.random()
        rng = np.random.default_rng(int(u * 2**53))
        new = self.clone()
        if new.ref is not None and not new._chance() and new.ref.winners is None:
            self.parts.sample_hidden(new.ref, player, rng)
        mine = self.recall[player]
        new.recall = tuple(mine if q == player else mine.resampled(q) for q in range(len(self.recall)))
        return new


SHORT_NAME = "python_cover_your_assets"
_DEFAULTS = {"players": 4, "rules": "classic", "rounds": 0, "max_rounds": 0, "options": ""}


def parse_options(text: str) -> dict:
    """Rule options from ``"key:value;key:value"`` (values read as TOML: ``5``, ``true``; else the text).

    Raises:
        ValueError: an entry that is not ``key:value`` (names it).
    """
    from cya_sim.tomltext import TomlTextError, toml_value

    out: dict = {}
    for item in (x.strip() for x in str(text).split(";")):
        if not item:
            continue
        key, colon, value = item.partition(":")
        if not colon or not key.strip():
            raise ValueError(f"options: {item!r} is not key:value; e.g. 'compulsory_defence:true;max_turns:200' "
                             "(not '=' or ',': OpenSpiel's game string uses them)")
        try:
            out[key.strip()] = toml_value(value.strip())
        except TomlTextError as e:
            raise ValueError(f"options: {key.strip()}: {e}") from None
    return out


def game_rules(params: dict) -> RuleSet:
    """The rule set of the game parameters ``rules``, ``rounds``, ``max_rounds`` and ``options``.

    Raises:
        RulesError: unknown preset, unknown option or bad value, or ``max_rounds`` beyond what the rules
            allow; ValueError: an unknown parameter (the allowed ones named), ``rounds`` or ``max_rounds`` not an
            integer from 0 to 2**31 - 1 (1.5, "3", True refused), ``rounds``/``max_rounds`` for a game without
            rounds (the theft game), a malformed ``options`` entry or a value of more than 4,300 digits;
            TypeError: ``rules`` or ``options`` not a str.
    """
    unknown = sorted(k for k in params if k not in _DEFAULTS)
    if unknown:
        raise ValueError(f"{unknown[0]}: unknown game parameter; allowed: {', '.join(_DEFAULTS)}")
    preset = params.get("rules", _DEFAULTS["rules"])
    if not isinstance(preset, str):
        raise TypeError(f"rules: {show(preset, python_str=True)} ({type(preset).__name__}); allowed: a preset name "
                         f"({', '.join(preset_names())})")
    options = params.get("options", "")
    if not isinstance(options, str):
        raise TypeError(f"options: {show(options, python_str=True)} ({type(options).__name__}); allowed: a string "
                         "of key:value;key:value, e.g. 'hand_size:6'")
    rules = get_rules(preset, **parse_options(options))
    # OpenSpiel's game parameters are C++ ints (int32 on the way in)
    rounds = check_int(params.get("rounds", 0), "rounds", 0, MAX_COUNT)
    cap = check_int(params.get("max_rounds", 0), "max_rounds", 0, MAX_COUNT)
    if getattr(rules, "family", "classic") != "classic":
        if rounds or cap:
            raise ValueError(f"rounds, max_rounds: {rounds}, {cap}; the {rules.family} game has no rounds: allowed 0 "
                             "(its safeguard is the option max_turns, e.g. options='max_turns=200')")
        return rules
    options = {**({"end_condition": f"rounds:{rounds}"} if rounds else {}), **({"max_rounds": cap} if cap else {})}
    return rules.with_options(**options) if options else rules


def _game_type(max_players: int) -> pyspiel.GameType:
    """Sequential, imperfect information, explicit chance, constant-sum, terminal rewards; information
    state string (perfect recall), observation string and tensor; no information state tensor."""
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Cover Your Assets (cya-sim)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS))


#: What a game derives from its parameters (:func:`_derived`); rebuilt on first use after OpenSpiel unpickles a game.
_DERIVED = ("rules", "n_players", "kind", "space", "encoder")


def _derived(params: dict) -> dict:
    """``rules``, ``n_players``, ``kind`` (the :class:`~cya_sim.env.games.GameInterface`), ``space`` and
    ``encoder`` of the game parameters.

    Raises:
        RulesError: unknown preset, option or table size; ValueError: negative ``rounds``.
    """
    rules = game_rules(params)
    n_players = check_players(rules, params["players"])
    kind = game_interface(rules)
    return {"rules": rules, "n_players": n_players, "kind": kind, "space": kind.space,
            "encoder": kind.encoder(n_players, DEFAULT_STACK_DEPTH)}


class CoverYourAssetsGame(pyspiel.Game):
    """The OpenSpiel game; see the module docstring for its type, chance nodes and parameters.

    ``pyspiel.deserialize_game_and_state`` (and pickling) rebuild the game without calling
    ``__init__``; the derived attributes (``rules``, ``n_players``, ``space``, ``encoder``) are then
    rebuilt from :meth:`get_parameters` on first use (without this, ``action_to_string`` of a deserialized
    state would raise ``AttributeError`` and the next deal would fail).
    """

    def __init__(self, params: dict | None = None) -> None:
        params = {**_DEFAULTS, **(params or {})}
        d = _derived(params)
        kind = d["kind"]
        info = pyspiel.GameInfo(num_distinct_actions=d["space"].size,
                                max_chance_outcomes=max(kind.n_card_types, d["n_players"]),
                                num_players=d["n_players"], min_utility=0.0, max_utility=1.0, utility_sum=1.0,
                                max_game_length=kind.max_game_length(d["n_players"]))
        super().__init__(_game_type(12), info, params)
        self.__dict__.update(d)

    def __getattr__(self, name: str):
        if name in _DERIVED:  # a game OpenSpiel rebuilt without __init__
            d = _derived({**_DEFAULTS, **self.get_parameters()})
            self.__dict__.update(d)
            return d[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def new_initial_state(self) -> pyspiel.State:
        """A game at its first chance node (the first dealer; the theft game's first player).

        The state class is the game family's (:meth:`cya_sim.env.games.GameInterface.spiel_state`: the classic
        family's :class:`cya_sim.env.classic.openspiel.CoverYourAssetsState`, the theft game's
        :class:`cya_sim.env.theft.openspiel.TheftSpielState`).
        """
        return self.kind.spiel_state(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer | _RecallObserver:
        """The perfect-recall observer for ``iig_obs_type.perfect_recall`` (information states), else the §10 one.

        Raises:
            ValueError: observer parameters (none are supported).
        """
        if params:
            raise ValueError(f"observer parameters: {params!r}; allowed: none")
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return _RecallObserver(self)
        return _Observer(self)


class _Observer:
    """OpenSpiel observer: the §10 observation as a tensor (:class:`ObservationEncoder`) and a string."""

    def __init__(self, game: CoverYourAssetsGame) -> None:
        self.game = game
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: SpielState, player: int) -> None:
        obs = state.observation(player)
        self.tensor[:] = 0.0 if obs is None else self.game.encoder.encode(obs)

    def string_from(self, state: SpielState, player: int) -> str:
        return state.observation_text(player)


class _RecallObserver(_Observer):
    """OpenSpiel observer of information states: perfect recall (:func:`information_state_text`); no tensor."""

    def __init__(self, game: CoverYourAssetsGame) -> None:
        self.game = game
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state: SpielState, player: int) -> None:
        """Nothing: the game provides no information state tensor."""

    def string_from(self, state: SpielState, player: int) -> str:
        return information_state_text(super().string_from(state, player), state.recall[player])


def information_state_text(observation: str, recall: Recall) -> str:
    """The information state string: the current observation text, then the player's recall.

    ``<observation> | recall: <k> decisions, actions [a1, ..., ak], digest <32 hex digits>`` (with
    ``resampled`` before ``recall`` in a state made by ``resample_from_infostate`` for another player).
    """
    note = f" {recall.note}" if recall.note else ""
    actions = ",".join(map(str, recall.actions))
    return (f"{observation} |{note} recall: {len(recall.actions)} decisions, actions [{actions}], "
            f"digest {recall.digest.hex()}")


def register_openspiel() -> None:
    """Register ``python_cover_your_assets`` with pyspiel (``pyspiel.load_game("python_cover_your_assets")``).

    Called when this module is imported; calling it again does nothing.
    """
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(12), CoverYourAssetsGame)


register_openspiel()
