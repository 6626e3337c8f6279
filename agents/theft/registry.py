"""Agents for the theft game (RULES.md §9): ``random``, ``greedy``, ``defender``, and their registry
(which also names the search agents ``ismcts`` and ``pimc`` of :mod:`cya_sim.search.theft.agent`).

Each agent sees only its seat's :class:`~cya_sim.engine.theft.observation.TheftObservation`
and returns one legal action id. Ties between equally good actions go to the
lowest action id, so every agent but ``random`` is deterministic.

Words: the *cost* of a cancel is the points it takes from the defender: a
pair from hand could have been built into an asset worth the pair's points; an
asset given up is worth its points. An asset's points, when a card is hidden,
count that card at the mean value of the asset cards the agent has not seen.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.plugin import is_compiled_function
from agents.spec import AgentSpecError, parse_agent_spec, resolve_factory
from agents.theft.view import TheftViewPolicyAgent
from cya_sim.engine.theft.observation import AssetView, TheftObservation
from cya_sim.game.rng import uniform_index


# -- shared helpers ------------------------------------------------------------------------
def hidden_card_value(obs: TheftObservation) -> float:
    """Expected points of a card the observer cannot see in an asset (numbers or gold, RULES.md §10)."""
    r = obs.rules
    unseen = obs.unseen[: r.n_asset_types].astype(np.float64)
    if unseen.sum() <= 0:
        return float(r.numbers + 1) / 2
    return float((unseen * r.values[: r.n_asset_types]).sum() / unseen.sum())


def asset_points(obs: TheftObservation, a: AssetView) -> float:
    """Points of an asset as the observer estimates them (hidden cards at :func:`hidden_card_value`)."""
    return a.value_seen + a.n_hidden * hidden_card_value(obs) if a.n_hidden else float(a.value_seen)


def _legal(obs: TheftObservation, kind: str) -> list[int]:
    sp = obs.action_space
    lo = sp.start[kind]
    hi = lo + sp.block_sizes[kind]
    return [int(a) for a in np.flatnonzero(obs.legal_action_mask[lo:hi]) + lo]


def _pair_points(obs: TheftObservation, action: int) -> int:
    v = obs.rules.values
    return int(sum(int(v[c]) for c in obs.action_space.decode(action).cards))


def _uses_gold(obs: TheftObservation, action: int) -> bool:
    return obs.rules.gold in obs.action_space.decode(action).cards


def best_build(obs: TheftObservation, actions: list[int]) -> int:
    """The build worth the most points; on equal points the one without a gold card (gold cancels gold thefts)."""
    return max(actions, key=lambda a: (_pair_points(obs, a), not _uses_gold(obs, a), -a))


def first_asset_choice(obs: TheftObservation) -> int:
    """R-T-SETUP: lay the two highest numbers that are not part of a pair, the higher one face-down;
    fall back to paired numbers, then gold (kept for building and for cancelling gold thefts)."""
    r, sp = obs.rules, obs.action_space
    hand = obs.hand
    cards = [c for c in range(r.n_asset_types) for _ in range(int(hand[c]))]

    def keep_rank(c: int) -> tuple:
        single = c < r.gold and hand[c] == 1
        return (c == r.gold, not single, -int(r.values[c]))

    down, up = sorted(cards, key=keep_rank)[:2]
    if r.values[up] > r.values[down]:
        down, up = up, down
    return sp.first_asset(down, up)


def least_useful_card(obs: TheftObservation) -> int:
    """End-of-turn discard: the lowest unpaired number first, then the lowest paired number, then gold,
    then a plain theft; the gold theft last."""
    r = obs.rules
    hand = obs.hand

    def keep(c: int) -> tuple:
        if c == r.gold_theft:
            return (4, 0)
        if c == r.theft:
            return (3, 0)
        if c == r.gold:
            return (2, 0)
        return (1 if hand[c] >= 2 else 0, int(r.values[c]))

    c = min((c for c in range(r.n_types) if hand[c] > 0), key=lambda c: (keep(c), c))
    return obs.action_space.discard(c)


def richest_theft(obs: TheftObservation, actions: list[int]) -> int:
    """The theft on the asset worth the most points; a plain theft before the gold one on the same asset."""
    sp = obs.action_space

    def points(a: int) -> tuple:
        d = sp.decode(a)
        target = obs.seat_at(d.offset)
        return (asset_points(obs, obs.assets[target][d.slot]), d.cards[0] == obs.rules.theft, -a)

    return max(actions, key=points)


def cheapest_cancel(obs: TheftObservation, pairs: list[int], assets: list[int]) -> tuple[int, float]:
    """The cancel (a pair or, under ``gold_theft_cancel = single_gold``, one gold card from hand, or an asset given
    up) that costs the fewest points, and its cost.

    Equal costs: cards from hand first (a gold card alone before a pair), then the targeted asset (it denies
    the thief).
    """
    sp = obs.action_space
    own = obs.assets[obs.seat]
    options = [(float(_pair_points(obs, a)), 0, a) for a in pairs]
    if sp.single_gold and obs.legal_action_mask[sp.cancel_gold]:
        options.append((float(obs.rules.gold_value), -1, sp.cancel_gold))
    for a in assets:
        slot = sp.decode(a).slot
        options.append((asset_points(obs, own[slot]), 1 if slot == obs.theft.slot else 2, a))
    if not options:
        return -1, float("inf")
    cost, _, a = min(options)
    return a, cost


# -- agents --------------------------------------------------------------------------------
class TheftRandomAgent:
    """``random``: uniform over the legal actions (one ``rng.random()`` draw per decision)."""

    name = "random"

    def act(self, obs: TheftObservation, rng: np.random.Generator) -> int:
        """A uniformly random legal action id."""
        legal = np.flatnonzero(obs.legal_action_mask)
        return int(legal[uniform_index(rng, len(legal))])


class TheftGreedyAgent:
    """``greedy``: build the best pair, steal the most valuable asset, cancel when it is cheaper than losing.

    Decision rule, by phase (RULES.md §9):

    * setup: :func:`first_asset_choice`;
    * play: build while it can (:func:`best_build`, one pair per decision), then
      play thefts on the most valuable asset it sees (:func:`richest_theft`), then end the turn;
    * defence: the cheapest cancel (:func:`cheapest_cancel`) when it costs less than
      letting the asset pass, which costs the asset's points twice (lost by the
      defender, won by the thief); else let it pass;
    * discard: :func:`least_useful_card`.

    The wish for a ``greedy`` that steals "the most valuable asset it can defend" is read as: the most
    valuable asset it may target (every target can be defended against by its owner
    only through the owner's own cards, which greedy cannot see).
    """

    name = "greedy"

    def act(self, obs: TheftObservation, rng: np.random.Generator) -> int:
        """A legal action id (deterministic; ``rng`` unused)."""
        sp = obs.action_space
        if obs.phase == "setup":
            return first_asset_choice(obs)
        if obs.phase == "discard":
            return least_useful_card(obs)
        if obs.phase == "defence":
            target = obs.assets[obs.seat][obs.theft.slot]
            a, cost = cheapest_cancel(obs, _legal(obs, "cancel_pair"), _legal(obs, "give_up_asset"))
            if a >= 0 and (cost < 2 * asset_points(obs, target) or not obs.legal_action_mask[sp.let_pass]):
                return a  # cheaper than losing the asset, or compulsory (compulsory_defence)
            return sp.let_pass
        builds = _legal(obs, "build")
        if builds:
            return best_build(obs, builds)
        thefts = _legal(obs, "theft")
        if thefts:
            return richest_theft(obs, thefts)
        return sp.end_turn


class TheftDefenderAgent:
    """``defender``: keeps cancelling pairs in hand and cancels every theft with one.

    Decision rule, by phase (RULES.md §9):

    * setup: :func:`first_asset_choice`;
    * play: builds only while another pair stays in hand to cancel with (it keeps
      the pair with a gold card, which also cancels the gold theft); thefts as ``greedy``;
    * defence: cancels with the cheapest pair (or gold card, under ``single_gold``) from
      hand; with none it lets the asset pass: it gives up an asset only when it must
      (``compulsory_defence``), the cheapest one;
    * discard: :func:`least_useful_card` (pairs are kept before single numbers).
    """

    name = "defender"

    def act(self, obs: TheftObservation, rng: np.random.Generator) -> int:
        """A legal action id (deterministic; ``rng`` unused)."""
        sp = obs.action_space
        if obs.phase == "setup":
            return first_asset_choice(obs)
        if obs.phase == "discard":
            return least_useful_card(obs)
        if obs.phase == "defence":
            a, _ = cheapest_cancel(obs, _legal(obs, "cancel_pair"), [])
            if a >= 0:
                return a
            if obs.legal_action_mask[sp.let_pass]:
                return sp.let_pass
            return cheapest_cancel(obs, [], _legal(obs, "give_up_asset"))[0]  # compulsory_defence
        builds = _legal(obs, "build")
        if len(builds) >= 2 and self._pairs_in_hand(obs) >= 2:
            keep = [a for a in builds if _uses_gold(obs, a)]
            choices = [a for a in builds if a not in keep[:1]] or builds
            return best_build(obs, choices)
        thefts = _legal(obs, "theft")
        if thefts:
            return richest_theft(obs, thefts)
        return sp.end_turn

    @staticmethod
    def _pairs_in_hand(obs: TheftObservation) -> int:
        """Disjoint pairs the hand holds: pairs of equal numbers, then numbers left with gold cards."""
        r = obs.rules
        h = obs.hand
        pairs = sum(int(h[c]) // 2 for c in range(r.numbers))
        singles = sum(int(h[c]) % 2 for c in range(r.numbers))
        return pairs + min(singles, int(h[r.gold]))


#: Registered theft agents by name.
THEFT_REGISTRY: dict[str, Callable | str] = {
    "random": TheftRandomAgent,
    "greedy": TheftGreedyAgent,
    "defender": TheftDefenderAgent,
    # the search agents live above this package (they search over the compiled theft kernel); named by path
    "ismcts": "cya_sim.search.theft.agent:TheftISMCTSAgent",
    "pimc": "cya_sim.search.theft.agent:TheftPIMCAgent",
}


def theft_agent_names() -> tuple[str, ...]:
    """Names of the registered theft agents."""
    return tuple(THEFT_REGISTRY)


def make_theft_agent(spec: str):
    """A new theft agent from a spec: a registered name, ``module:Class`` or a compiled theft plug-in
    ``module:function`` (:mod:`agents.theft.view`; parameters allowed).

    Raises:
        ValueError: unknown name (lists the registered theft agents), malformed spec,
            or parameters the agent does not take.
        TypeError: the class has no ``act`` method.
    """
    try:
        s = parse_agent_spec(spec)
        factory = resolve_factory(s.name, THEFT_REGISTRY)
    except AgentSpecError as e:
        raise ValueError(f"{e} (theft game agents)") from None
    if is_compiled_function(factory):  # a compiled plug-in over the theft agent view
        return TheftViewPolicyAgent(factory, s.name, **s.kwargs)
    try:
        agent = factory(**s.kwargs)
    except TypeError as e:
        raise ValueError(f"agent {spec!r}: {e}") from None
    if not callable(getattr(agent, "act", None)):
        raise TypeError(f"agent {spec!r}: {type(agent).__name__} has no act(obs, rng) method")
    return agent
