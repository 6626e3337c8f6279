"""The classic family's states of the OpenSpiel game ``python_cover_your_assets`` (:mod:`cya_sim.env.openspiel`), on
the reference engine.

Chance nodes are the shuffles: the first dealer (R-SETUP: ``P`` outcomes, uniform) and, at the start of every round,
the deck order card by card (outcome = card type, probability = copies of it left / cards left), which gives each
order of the cards with the probability of a uniform shuffle (R-NEW-ROUND). The order is then dealt by the reference
engine's own round setup (:func:`cya_sim.engine.classic.reference.setup.start_round`, fed the order through the
inverse of its Fisher–Yates shuffle), so dealing, play and scoring are the reference engine's.

Observation: the §10 observation of the player (the tensor is
:class:`~cya_sim.env.classic.encoding.ObservationEncoder`'s vector, the string :func:`observation_text`). What the
player saw between two of its decisions is kept in its recall as far as the §10 observation at the next decision
holds it (every discard, set and challenge card of the round, R-HIDDEN-WILD; :func:`view_key`).

:meth:`~cya_sim.env.openspiel.SpielState.resample_from_infostate` samples a determinization (the hidden cards:
opponents' hands, the draw pile, each hidden set card, an asset of its set's type or a wild, R-HIDDEN-WILD) uniformly
among the placements consistent with the player's observation (:func:`sample_hidden`), as
:mod:`cya_sim.search.classic.determinize` does for our own search.

``max_game_length`` is derived from the rules (:func:`cya_sim.env.bounds.max_game_length`):
``1 + R * (N + D)`` with R the most rounds (``rounds``, else ``max_rounds``), N the cards shuffled
each round (one chance move each) and D a bound on the decisions of one round; e.g. 329 for
``classic`` at 4 players with ``rounds = 1``, 328,001 with the default 1,000-round safeguard.
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
from cya_sim.env.openspiel import SpielParts, SpielState
from cya_sim.game.rng import shuffle_uniforms


class _ShuffleFeed:
    """Stands in for the engine's random stream: returns the uniforms that make
    :func:`cya_sim.game.rng.shuffle_in_place` produce a given order (zeros when none is queued)."""

    def __init__(self) -> None:
        self.queue: list[float] = []

    def random(self, size=None):
        n = 1 if size is None else int(size)
        out = np.array([self.queue.pop(0) if self.queue else 0.0 for _ in range(n)])
        return out[0] if size is None else out


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


class CoverYourAssetsState(SpielState):
    """A classic game state (:class:`~cya_sim.env.openspiel.SpielState`): chance nodes while dealing (the first
    dealer, then each round's deck order), then the reference engine's game."""

    FIRST_WHAT = "first dealer: seats"
    CARDS_WHAT = "card types with copies left to deal"
    CHANCE_NOTE = " dealing"

    def __init__(self, game) -> None:
        super().__init__(game)
        self._box = _Box(None)  # the reference GameState once round 1 is dealt
        self.dealer = -1
        self.order: list[int] = []  # the deck order drawn so far by chance

    @property
    def gs(self):
        """The reference :class:`~cya_sim.game.classic.state.GameState` (None before round 1 is dealt)."""
        return self._box.gs

    ref = gs

    # -- chance -----------------------------------------------------------------------------
    def _dealing(self) -> bool:
        return self._chance()

    def _first_pending(self) -> bool:
        return self.dealer < 0

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
        self.gs.rng.queue = shuffle_uniforms(sorted(self.order), self.order)  # the deck in type-id order
        start_round(self.gs)
        self.left = None

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

    def __str__(self) -> str:
        """The whole state, one line per seat and its sets (:func:`cya_sim.render.state_text`, the full view:
        every hand, a card not every seat knows marked ``*``); while chance deals, the deal so far."""
        if self.gs is None:
            return "dealing round 1"
        if self._dealing():
            return f"dealing round {self.gs.round}: {len(self.order)} cards of the deck order placed so far"
        from cya_sim.render import state_text

        return state_text(self.gs)


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


#: The classic family's functions its OpenSpiel states use.
CoverYourAssetsState.parts = SpielParts(legal_action_mask, observe, observation_text, sample_hidden)
