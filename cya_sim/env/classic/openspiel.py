"""Cover Your Assets as an OpenSpiel Python game (``python_cover_your_assets``), on the reference engine.

Game type: sequential, imperfect information, explicit chance, constant-sum (the
win shares of R-TIE sum to 1), terminal rewards. Chance nodes are the shuffles:
the first dealer (R-SETUP: ``P`` outcomes, uniform) and, at the start of every
round, the deck order card by card (outcome = card type, probability = copies
of it left / cards left), which gives each order of the cards with the
probability of a uniform shuffle (R-NEW-ROUND). The order is then dealt by the
reference engine's own round setup (:func:`cya_sim.engine.classic.reference.setup.start_round`,
fed the order through the inverse of its Fisher–Yates shuffle), so dealing,
play and scoring are the reference engine's.

Observation (string and tensor): the §10 observation of the player, what
RULES.md §10 says a player sees and remembers now (the tensor is
:class:`~cya_sim.env.classic.encoding.ObservationEncoder`'s vector, the string
:func:`observation_text`, a canonical text of the same observation).

Information state (string only): perfect recall, as in OpenSpiel's card games.
:func:`information_state_text` holds the player's current observation, its own
actions so far, and a digest (BLAKE2b, 128 bits) of the sequence of its
observations at each of its decisions with the action it took. Two histories
share an information state exactly when the player saw the same observations at
its decisions, took the same actions and sees the same now (up to a collision of
the 128-bit digest), so an information state determines every earlier one of the
player and its actions (Kuhn's perfect recall). What the player saw between two
of its decisions is kept as far as the §10 observation at the next decision
holds it (every discard, set and challenge card of the round, R-HIDDEN-WILD). The
information state tensor is not provided (``GameType.provides_information_state_tensor``
is False): a fixed-size tensor holding a history of up to ``max_game_length``
moves is not practical; learners take the observation tensor.

:meth:`CoverYourAssetsState.resample_from_infostate` samples a determinization
(the hidden cards: opponents' hands, the draw pile, each hidden set card, an
asset of its set's type or a wild, R-HIDDEN-WILD) uniformly among the
placements consistent with the player's observation, as
:mod:`cya_sim.search.classic.determinize` does for our own search, so OpenSpiel's
``ISMCTSBot`` can run on the game.

Parameters: ``players`` (default 4), ``rules`` (preset, default ``classic``; ``theft`` is seed 003's
theft game, RULES.md §9, whose states are :class:`cya_sim.env.theft.openspiel.TheftSpielState`),
``rounds`` (0: the preset's end condition; n > 0: the game ends after n rounds,
``end_condition=rounds:n``), ``max_rounds`` (0: the preset's ``max_rounds`` safeguard, 1,000; m > 0:
the game stops after m rounds, the highest total winning, as ``RuleSet.max_rounds``), ``options``
(default ``""``: rule options, ``key:value`` with TOML values as ``cya-sim --option key=value`` reads
them, separated by ``;``, e.g. ``"compulsory_defence:true;gold_theft_cancel:single_gold"``; neither
``,`` nor ``=``, which OpenSpiel's serialized game string uses for its own parameters). The theft game has
no rounds: ``rounds`` and ``max_rounds`` must stay 0 there (its safeguard is the option ``max_turns``).
The game is reached through its :class:`~cya_sim.env.games.GameInterface` (the states, the
encoder, ``max_game_length``).

``max_game_length`` is derived from the rules (:func:`cya_sim.env.bounds.max_game_length`):
``1 + R * (N + D)`` with R the most rounds (``rounds``, else ``max_rounds``), N the cards shuffled
each round (one chance move each) and D a bound on the decisions of one round; e.g. 329 for
``classic`` at 4 players with ``rounds = 1``, 328,001 with the default 1,000-round safeguard.

The game registers itself when this module is imported, and so when :mod:`cya_sim.env` is
(:mod:`cya_sim.env.registration`): ``pyspiel.load_game("python_cover_your_assets", {...})``.
"""

from __future__ import annotations

import copy
import math

import numpy as np

from cya_sim.env.errors import missing_extra

try:
    import pyspiel
except ModuleNotFoundError as _e:  # one line naming the extra to install
    raise missing_extra(_e) from None

from cya_sim.engine.classic.reference import apply_action, legal_action_mask, new_game
from cya_sim.engine.classic.reference.draft import face_up_top
from cya_sim.engine.classic.reference.observation import Observation, observe
from cya_sim.engine.classic.reference.setup import start_round
from cya_sim.env.classic.encoding import DEFAULT_STACK_DEPTH
from cya_sim.env.game import check_int, check_players
from cya_sim.env.games import game_interface
from cya_sim.env.openspiel_recall import CheckedApply, Recall, Shared, chance_distribution
from cya_sim.game.jsontext import show
from cya_sim.game.limits import MAX_COUNT
from cya_sim.game.rules import RuleSet, get_rules, preset_names

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


class _ShuffleFeed:
    """Stands in for the engine's random stream: returns the uniforms that make
    :func:`cya_sim.game.rng.shuffle_in_place` produce a given order (zeros when none is queued)."""

    def __init__(self) -> None:
        self.queue: list[float] = []

    def random(self, size=None):
        n = 1 if size is None else int(size)
        out = np.array([self.queue.pop(0) if self.queue else 0.0 for _ in range(n)])
        return out[0] if size is None else out

    @staticmethod
    def uniforms_for(order: list[int]) -> list[float]:
        """Uniforms ``u`` such that the Fisher–Yates of :func:`cya_sim.game.rng.shuffle_in_place` turns the cards
        in type-id order into ``order`` (``j = floor(u * (i + 1))`` picks a card equal to ``order[i]``)."""
        cards = sorted(order)
        us = []
        for i in range(len(cards) - 1, 0, -1):
            j = cards.index(order[i], 0, i + 1)
            us.append((j + 0.5) / (i + 1))
            cards[i], cards[j] = cards[j], cards[i]
        return us


class _Box:
    """Holds a reference :class:`~cya_sim.game.classic.state.GameState`; a deep copy shares its frozen RuleSet."""

    def __init__(self, gs) -> None:
        self.gs = gs

    def __deepcopy__(self, memo):
        if self.gs is None:
            return _Box(None)
        memo[id(self.gs.rules)] = self.gs.rules
        memo[id(self.gs.deck_counts)] = self.gs.deck_counts
        return _Box(copy.deepcopy(self.gs, memo))


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

        The state class is the game family's: :class:`CoverYourAssetsState`, or the theft game's
        :class:`cya_sim.env.theft.openspiel.TheftSpielState`.
        """
        if self.kind.family == "theft":
            from cya_sim.env.theft.openspiel import TheftSpielState

            return TheftSpielState(self)
        return CoverYourAssetsState(self)

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


class CoverYourAssetsState(CheckedApply, pyspiel.State):
    """A game state: chance nodes while dealing, then the reference engine's game."""

    def __init__(self, game: CoverYourAssetsGame) -> None:
        super().__init__(game)
        self._shared = Shared(game)
        self._box = _Box(None)  # the reference GameState once round 1 is dealt
        self.dealer = -1
        self.order: list[int] = []  # the deck order drawn so far by chance
        self.left = None  # (T,) copies of each type not yet placed in the order
        self.recall = tuple(Recall.EMPTY for _ in range(game.n_players))  # per seat, for its information state

    @property
    def _g(self) -> CoverYourAssetsGame:
        return self._shared.game

    @property
    def gs(self):
        """The reference :class:`~cya_sim.game.classic.state.GameState` (None before round 1 is dealt)."""
        return self._box.gs

    # -- chance -----------------------------------------------------------------------------
    def _dealing(self) -> bool:
        return self.left is not None

    def current_player(self) -> int:
        """The seat to act, CHANCE while dealing, TERMINAL at the end."""
        if self.gs is None or self._dealing():
            return pyspiel.PlayerId.CHANCE
        if self.gs.winners is not None:
            return pyspiel.PlayerId.TERMINAL
        return self.gs.to_act

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """First dealer: seats, uniform. Deck order: card types, copies left / cards left."""
        return chance_distribution(self.dealer < 0, self._g.n_players, self.left)

    def _start_deal(self) -> None:
        self.order = []
        self.left = self._g.rules.deck_counts(self._g.n_players).astype(np.int64)

    def _finish_deal(self) -> None:
        g = self._g
        if self.gs is None:
            self._box.gs = new_game(g.rules, g.n_players, 0, 0)  # then re-dealt below from the chance outcomes
            self.gs.dealer = self.gs.first_dealer = self.dealer
            self.gs.rng = _ShuffleFeed()
        self.gs.round -= 1  # start_round counts the round again
        self.gs.rng.queue = _ShuffleFeed.uniforms_for(self.order)
        start_round(self.gs)
        self.left = None

    def _legal_actions(self, player: int) -> list[int]:
        if self.gs is None or self._dealing() or player != self.gs.to_act:
            return []
        return [int(a) for a in np.flatnonzero(legal_action_mask(self.gs))]

    def _check_outcome(self, action: int) -> None:
        """Refuse a chance outcome that :meth:`chance_outcomes` does not list (ValueError, nothing changes)."""
        outcomes = [a for a, _ in self.chance_outcomes()]
        if action not in outcomes:
            what = "first dealer: seats" if self.dealer < 0 else "card types with copies left to deal"
            raise ValueError(f"chance outcome {action} is not one of chance_outcomes() ({what} "
                             f"{', '.join(map(str, outcomes))})")

    def _apply_action(self, action: int) -> None:
        if self.gs is None and self.dealer < 0:
            self._check_outcome(int(action))
            self.dealer = int(action)
            self._start_deal()
            return
        if self._dealing():
            self._check_outcome(int(action))
            self.order.append(int(action))
            self.left[int(action)] -= 1
            if not self.left.any():
                self._finish_deal()
            return
        before = self.gs.round
        seat = self.gs.to_act
        remembered = self.recall[seat].after(view_key(self.gs, seat), int(action))
        apply_action(self.gs, int(action))
        self.recall = self.recall[:seat] + (remembered,) + self.recall[seat + 1:]
        if self.gs.winners is None and self.gs.round != before:  # a new round: its shuffle is chance's
            self._start_deal()

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"first dealer: seat {action}" if self.dealer < 0 else f"deal {self._g.rules.deck.names[action]}"
        return self._g.space.name(action)

    def is_terminal(self) -> bool:
        """The game is over (R-GAME-END)."""
        return self.gs is not None and not self._dealing() and self.gs.winners is not None

    def returns(self) -> list[float]:
        """Win shares at the end (1/k for each of the k winners, R-TIE), zeros before."""
        p = self._g.n_players
        if not self.is_terminal():
            return [0.0] * p
        w = self.gs.winners
        return [1.0 / len(w) if s in w else 0.0 for s in range(p)]

    def observation(self, player: int) -> Observation | None:
        """The §10 observation of ``player`` (None before round 1 is dealt)."""
        if self.gs is None:
            return None
        return observe(self.gs, player)

    def observation_text(self, player: int) -> str:
        """The observation string of ``player`` (:func:`observation_text`, ``dealing`` while chance deals)."""
        obs = self.observation(player)
        if obs is None:
            return f"p{player} dealing"
        return observation_text(obs) + (" dealing" if self._dealing() else "")

    def __str__(self) -> str:
        """The whole state, one line per seat and its sets (:func:`cya_sim.render.state_text`, the full view:
        every hand, a card not every seat knows marked ``*``); while chance deals, the deal so far."""
        if self.gs is None:
            return "dealing round 1"
        if self._dealing():
            return f"dealing round {self.gs.round}: {len(self.order)} cards of the deck order placed so far"
        from cya_sim.render import state_text

        return state_text(self.gs)

    # -- determinization ------------------------------------------------------------------------
    def resample_from_infostate(self, player: int, probability_sampler=None) -> CoverYourAssetsState:
        """A state with the same information state for ``player`` and its hidden cards sampled uniformly.

        Hidden cards are the other players' hands, the draw pile order and every set card ``player``
        does not know (R-HIDDEN-WILD: an asset of its set's type or a wild); they are placed uniformly
        among the placements consistent with the observation (:func:`sample_hidden`). ``player``'s recall
        is kept; the other players' recalls, which hold what ``player`` cannot know, are replaced by
        a recall derived from ``player``'s alone (:meth:`Recall.resampled`), so the new state carries no
        hidden information of this one (their current observations are of the sampled cards).
        """
        u = probability_sampler() if probability_sampler is not None else np.random.random()
        rng = np.random.default_rng(int(u * 2**53))
        new = self.clone()
        if new.gs is not None and not new._dealing() and new.gs.winners is None:
            sample_hidden(new.gs, player, rng)
        mine = self.recall[player]
        new.recall = tuple(mine if q == player else mine.resampled(q) for q in range(len(self.recall)))
        return new


def _ff(x: int, k: int) -> float:
    """Falling factorial (x)_k, 0 when k > x."""
    return 0.0 if k > x else float(math.perm(x, k))


def sample_hidden(gs, player: int, rng: np.random.Generator) -> None:
    """Replace, in place, every card of ``gs`` that ``player`` cannot see by a uniform consistent placement.

    With ``n_a`` hidden set cards over asset ``a``, ``U_a`` unseen copies of ``a`` and ``W`` unseen
    wilds, ``j_a`` of group ``a``'s hidden cards are wilds with probability proportional to
    ``prod_a C(n_a, j_a) (U_a)_(n_a - j_a) * (W)_J`` (J = sum j_a), the same law as
    :mod:`cya_sim.search.classic.determinize`; the rest of the unseen cards are shuffled into the other
    hands (sizes kept), the face-down draft cards (§7) and the draw pile.
    """
    obs = observe(gs, player)
    deck = gs.rules.deck
    na = deck.n_assets
    unseen = obs.unseen.astype(np.int64).copy()
    bit = 1 << player
    slots: dict[int, list[tuple[int, int, int]]] = {}
    for owner, stack in enumerate(gs.stacks):
        for si, s in enumerate(stack):
            for ci, k in enumerate(s.known_by):
                if not k & bit:
                    slots.setdefault(s.asset, []).append((owner, si, ci))
    groups = sorted(slots)
    w_total = int(unseen[na:].sum())
    f = [[1.0] + [0.0] * w_total]
    for a in groups:
        n_a, u_a = len(slots[a]), int(unseen[a])
        row = [0.0] * (w_total + 1)
        for j_prev, v in enumerate(f[-1]):
            if v:
                for j in range(min(n_a, w_total - j_prev) + 1):
                    row[j_prev + j] += v * math.comb(n_a, j) * _ff(u_a, n_a - j)
        f.append(row)
    weights = np.array([f[-1][j] * _ff(w_total, j) for j in range(w_total + 1)])
    left = int(rng.choice(w_total + 1, p=weights / weights.sum()))
    wilds = [c for c in range(na, deck.n_types) for _ in range(int(unseen[c]))]
    rng.shuffle(wilds)
    wi = 0
    for gi in range(len(groups), 0, -1):
        a = groups[gi - 1]
        n_a, u_a = len(slots[a]), int(unseen[a])
        wj = np.array([math.comb(n_a, j) * _ff(u_a, n_a - j) * f[gi - 1][left - j] if 0 <= left - j else 0.0
                       for j in range(min(n_a, left) + 1)])
        j = int(rng.choice(len(wj), p=wj / wj.sum()))
        left -= j
        wild_slots = set(rng.choice(n_a, size=j, replace=False).tolist()) if j else set()
        for i, (owner, si, ci) in enumerate(slots[a]):
            card = wilds[wi] if i in wild_slots else a
            if i in wild_slots:
                wi += 1
            gs.stacks[owner][si].cards[ci] = card
            unseen[card] -= 1
    rest = [c for c in range(deck.n_types) for _ in range(int(unseen[c]))]
    rng.shuffle(rest)
    k = 0
    for s in range(gs.n_players):
        if s == player:
            continue
        n = sum(gs.hands[s])
        hand = [0] * deck.n_types
        for c in rest[k:k + n]:
            hand[c] += 1
        gs.hands[s] = hand
        k += n
    for j, pile in enumerate(gs.draft_piles):  # §7: the face-down draft cards, dealt like the others
        n = len(pile) - (1 if pile and not gs.draft_down[j] else 0)
        pile[:n] = rest[k:k + n]
        k += n
    gs.draw_pile = rest[k:]


def view_key(gs, seat: int) -> tuple:
    """Every field of the §10 observation of ``seat`` (:func:`~cya_sim.engine.classic.reference.observation.observe`)
    as a tuple, read from the state without building the observation (its derived fields left out:
    unseen cards, set values, the legal mask, the draft reach).

    Equal keys for equal observations, different keys for different ones; ``tests/test_env_openspiel.py``
    checks it against :func:`observation_key` of the observation itself.
    """
    bit = 1 << seat
    stacks = tuple(tuple((s.asset, len(s.cards), tuple(sorted([c for c, w in zip(s.cards, s.known_by) if w & bit])))
                         for s in st) for st in gs.stacks)
    ch = gs.challenge
    chv = None if ch is None else (ch.challenger, ch.defender, ch.asset, tuple(ch.cards), tuple(ch.players),
                                   ch.to_act, ch.depth, ch.owed)
    draft = ()
    if gs.draft_piles:
        draft = (tuple(face_up_top(gs, j) for j in range(len(gs.draft_piles))),
                 tuple(len(pile) for pile in gs.draft_piles), tuple(gs.draft_offer), tuple(gs.draft_move),
                 tuple(gs.draft_then))
    gave_up = tuple((s, c) for s, row in enumerate(gs.gave_up) for c, x in enumerate(row) if x)
    return (seat, tuple(gs.hands[seat]), tuple(sum(h) for h in gs.hands), tuple(gs.discard_pile), len(gs.draw_pile),
            tuple(gs.totals), gs.round, gs.dealer, gs.current_player, gs.phase, chv, gave_up,
            tuple(sorted(gs.removed)), gs.actions_left, gs.no_challenge, tuple(gs.turn_defenders),
            tuple(bool(x) for x in gs.played_this_turn), draft, stacks)


def observation_key(obs: Observation) -> tuple:
    """:func:`view_key`'s tuple built from the observation itself (the reference the fast key is tested against)."""
    stacks = tuple(tuple((v.asset, v.size, tuple(c for c, k in enumerate(v.known) for _ in range(k)))
                         for v in st) for st in obs.stacks)
    ch = obs.challenge
    chv = None if ch is None else (ch.challenger, ch.defender, ch.asset, tuple(ch.cards), tuple(ch.players),
                                   ch.to_act, ch.depth, ch.owed)
    draft = ((tuple(obs.draft_tops), tuple(obs.draft_sizes), tuple(obs.draft_offer), tuple(obs.draft_move),
              tuple(obs.draft_then)) if obs.draft_sizes else ())
    gave_up = tuple((int(s), int(c)) for s, c in np.argwhere(obs.gave_up))
    return (obs.seat, tuple(int(x) for x in obs.hand), tuple(int(x) for x in obs.hand_sizes), tuple(obs.discard_pile),
            obs.draw_size, tuple(int(x) for x in obs.totals), obs.round, obs.dealer, obs.current_player, obs.phase,
            chv, gave_up, tuple(obs.removed), obs.actions_left, obs.no_challenge, tuple(obs.turn_defenders),
            tuple(obs.played_this_turn), draft, stacks)


class _Observer:
    """OpenSpiel observer: the §10 observation as a tensor (:class:`ObservationEncoder`) and a string."""

    def __init__(self, game: CoverYourAssetsGame) -> None:
        self.game = game
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CoverYourAssetsState, player: int) -> None:
        obs = state.observation(player)
        self.tensor[:] = 0.0 if obs is None else self.game.encoder.encode(obs)

    def string_from(self, state: CoverYourAssetsState, player: int) -> str:
        return state.observation_text(player)


class _RecallObserver(_Observer):
    """OpenSpiel observer of information states: perfect recall (:func:`information_state_text`); no tensor."""

    def __init__(self, game: CoverYourAssetsGame) -> None:
        self.game = game
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state: CoverYourAssetsState, player: int) -> None:
        """Nothing: the game provides no information state tensor."""

    def string_from(self, state: CoverYourAssetsState, player: int) -> str:
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


def observation_text(obs: Observation) -> str:
    """A canonical one-line text of a §10 observation (equal texts = equal observations)."""
    stacks = ";".join("|".join(f"{v.asset}:{v.size}:{','.join(map(str, v.known))}:{v.n_hidden}" for v in st)
                      for st in obs.stacks)
    ch = obs.challenge
    chs = "-" if ch is None else (f"{ch.challenger}>{ch.defender}:{ch.asset}:{ch.cards}:{ch.players}:{ch.to_act}"
                                  f":{ch.depth}:{ch.owed}")
    draft = (f" draft{list(obs.draft_tops)}{list(obs.draft_sizes)} offer{list(obs.draft_offer)}"
             f" move{list(obs.draft_move)} then{list(obs.draft_then)}" if obs.draft_sizes else "")
    return (f"p{obs.seat} r{obs.round} d{obs.dealer} c{obs.current_player} {obs.phase} "
            f"hand{obs.hand.tolist()} sizes{obs.hand_sizes.tolist()} totals{obs.totals.tolist()} "
            f"draw{obs.draw_size} discard{list(obs.discard_pile)} stacks[{stacks}] ch[{chs}] "
            f"gaveup{np.flatnonzero(obs.gave_up).tolist()} removed{list(obs.removed)} left{obs.actions_left} "
            f"nochal{obs.no_challenge} defenders{list(obs.turn_defenders)} "
            f"played{[int(x) for x in obs.played_this_turn]}{draft}")


def register_openspiel() -> None:
    """Register ``python_cover_your_assets`` with pyspiel (``pyspiel.load_game("python_cover_your_assets")``).

    Called when this module is imported; calling it again does nothing.
    """
    if SHORT_NAME not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(12), CoverYourAssetsGame)


register_openspiel()
