"""The observations an environment offers, and the view features a small network learns from.

Two observations, chosen by the environments' ``observation`` argument (:func:`make_encoder`):

- ``"table"``: the §10 observation as a ``float32`` vector (:class:`~cya_sim.env.classic.encoding.ObservationEncoder`;
  the theft game's :class:`~cya_sim.env.theft.encoding.TheftObservationEncoder`): every card count, stack and
  set the seat may know, in counts and $M. Every game and preset has it.
- ``"features"``: the view features of the learned agent (:func:`agents.classic.learned.features`) of the seat's agent
  view (:mod:`agents.classic.view`), :class:`ViewFeatureEncoder`: a fifth to a seventh of the table vector's length, every
  entry scaled to about one (cards / 4, dollars / $100,000, ...). The very function an exported policy runs
  inside the compiled loop (:func:`agents.classic.learned.write_plugin`), so a network trained on it plays as a plug-in.
  The classic family without the advanced cards and draft piles only (the features encode that agent view).

``None`` (the default of every environment that takes ``observation``) is :func:`default_observation`:
``"features"`` where the game has them, ``"table"`` elsewhere. With sb3-contrib's standard recipe and the margin
reward (docs/rl.md, ``experiments/rl_recipe*.md``) a network learned more from the features than from the table
vector in 20,000 steps: a held-out win share against ``greedy`` of 0.804 against 0.629 (means of seeds 1-3).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.classic.learned import DOLLAR_SCALE, features, n_features
from agents.classic.view import (
    H_CH_ACTIVE,
    H_CH_ASSET,
    H_CH_CHALLENGER,
    H_CH_DEFENDER,
    H_CH_LEN,
    H_CH_POT_VALUE,
    H_DRAW,
    H_NA,
    H_NW,
    H_P,
    H_ROUND,
    H_SEAT,
    H_TOP_DISCARD,
    N_HDR,
    N_SEATCOL,
    S_HAND_SIZE,
    S_STACK_LEN,
    S_TOP_ASSET,
    S_TOP_HIDDEN,
    S_TOP_SIZE,
    S_TOP_VALUE_SEEN,
    build_view,
)
from cya_sim.env import bounds
from cya_sim.game.rules import RuleSet

#: The observations of :func:`make_encoder` (``None`` is :func:`default_observation`).
OBSERVATIONS = ("features", "table")


@njit(cache=True)
def _batch_features(seat, phase, hand, unseen, hand_sizes, stack_len, set_asset, set_size, set_n_hidden,
                    top_value_seen, discard_pile, discard_len, draw_size, rnd, ch_challenger, ch_defender, ch_asset,
                    ch_cards, ch_len, gave_up, values, na, nw, nf):
    b_rows, p = hand_sizes.shape
    out = np.zeros((b_rows, nf), np.float32)
    for b in range(b_rows):
        if seat[b] < 0:
            continue
        hdr = np.zeros(N_HDR, np.int64)
        hdr[H_SEAT], hdr[H_P], hdr[H_NA], hdr[H_NW] = seat[b], p, na, nw
        hdr[H_DRAW], hdr[H_ROUND] = draw_size[b], rnd[b]
        hdr[H_TOP_DISCARD] = discard_pile[b, discard_len[b] - 1] if discard_len[b] > 0 else -1
        hdr[H_CH_CHALLENGER] = hdr[H_CH_DEFENDER] = hdr[H_CH_ASSET] = -1
        if phase[b] == 1:
            hdr[H_CH_ACTIVE], hdr[H_CH_ASSET] = 1, ch_asset[b]
            hdr[H_CH_CHALLENGER], hdr[H_CH_DEFENDER] = ch_challenger[b], ch_defender[b]
            pot = 0
            for j in range(ch_len[b]):
                pot += values[ch_cards[b, j]]
            hdr[H_CH_POT_VALUE], hdr[H_CH_LEN] = pot, ch_len[b]
        seats = np.zeros((p, N_SEATCOL), np.int64)
        for s in range(p):
            seats[s, S_HAND_SIZE] = hand_sizes[b, s]
            n = stack_len[b, s]
            seats[s, S_STACK_LEN] = n
            seats[s, S_TOP_ASSET] = -1
            if n > 0:
                seats[s, S_TOP_ASSET] = set_asset[b, s, n - 1]
                seats[s, S_TOP_VALUE_SEEN] = top_value_seen[b, s]
                seats[s, S_TOP_HIDDEN] = set_n_hidden[b, s, n - 1]
                seats[s, S_TOP_SIZE] = set_size[b, s, n - 1]
        h = hand[b].astype(np.int64)
        u = unseen[b].astype(np.int64)
        f = features(hdr, h, values, u, seats, gave_up[b])
        for i in range(nf):
            out[b, i] = f[i]
    return out


def batch_features(ob) -> np.ndarray:
    """(B, F) float32 :func:`agents.classic.learned.features` of every row's seat to act, from an
    :class:`~cya_sim.engine.classic.batch_observation.ObservationBatch` (classic rules; the view fields the features read are
    built from the batch's arrays as :func:`agents.classic.view.build_view` builds them; tests check equality).
    Rows with ``seat = -1`` are zeros."""
    d = ob.rules.deck
    nf = n_features(ob.n_players, d.n_types, d.n_assets)
    return _batch_features(ob.seat, ob.phase, ob.hand, ob.unseen, ob.hand_sizes, ob.stack_len, ob.set_asset,
                           ob.set_size, ob.set_n_hidden, ob.top_value_seen, ob.discard_pile, ob.discard_len,
                           ob.draw_size, ob.round, ob.ch_challenger, ob.ch_defender, ob.ch_asset, ob.ch_cards,
                           ob.ch_len, ob.gave_up, np.asarray(ob.values, np.int64), d.n_assets, d.n_wilds, nf)


def features_refusal(rules: Any) -> str | None:
    """Why the view features cannot encode ``rules`` (one line), or None when they can.

    They encode the classic family's agent view without the advanced cards (§6) and the draft piles (§7).
    """
    if getattr(rules, "family", "classic") != "classic":
        return (f"rules {getattr(rules, 'name', rules)!r}: the view features encode the classic game's agent view; "
                "use observation='table'")
    from cya_sim.game.classic.actions import ActionSpace

    sp = ActionSpace.for_rules(rules)
    if sp.advanced_on or sp.draft:
        return (f"rules {rules.name!r}: the view features encode the classic game without the advanced cards and "
                "draft piles; use observation='table'")
    return None


def default_observation(rules: Any) -> str:
    """The observation an environment gives by default: ``"features"`` where they encode ``rules``, else ``"table"``."""
    return "table" if features_refusal(rules) else "features"


class ViewFeatureEncoder:
    """Encode a seat's classic observation as the view features ``(F,) float32`` (module docstring).

    Args:
        rules: classic rules without the advanced cards and draft piles. n_players: P.

    Attributes:
        size: F = :func:`agents.classic.learned.n_features` (P, T card types, nA assets). low, high: ``(F,) float32``
            finite bounds of every vector (:meth:`_bounds`).

    Raises:
        ValueError: rules the features do not encode (:func:`features_refusal`). RulesError: ``n_players`` not
            allowed by ``rules``.
    """

    def __init__(self, rules: RuleSet, n_players: int) -> None:
        why = features_refusal(rules)
        if why:
            raise ValueError(f"observation: 'features'; {why}")
        rules.check_players(n_players)
        self.rules, self.n_players = rules, n_players
        d = rules.deck
        self.t, self.na = d.n_types, d.n_assets
        self.size = n_features(n_players, self.t, self.na)
        self.low, self.high = self._bounds()

    def _bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)``, each ``(F,) float32``, from the rules, in the block order of :func:`agents.classic.learned.features`.

        Low is 0 (counts, one-hots and dollars are never negative). High: 1 for a flag or one-hot; a count of one
        card type at most its copies in play; a count of cards at most N (cards in play); a stack at most N // 2
        sets; a round at most :func:`~cya_sim.env.bounds.max_rounds`; dollars at most the value of every card in
        play (``RuleSet.round_total``); each divided by the feature's own scale.
        """
        p, t, na = self.n_players, self.t, self.na
        counts = self.rules.deck_counts(p).astype(np.float64)
        n = float(counts.sum())
        money = float(self.rules.round_total(p)) / DOLLAR_SCALE
        seat = np.concatenate([[n / 5.0, (n // 2) / 10.0, 1.0, money, n, n / 4.0], np.ones(na)])
        high = np.concatenate([
            np.ones(3), counts / 4.0, counts / 8.0, [n / 40.0, bounds.max_rounds(self.rules, p) / 5.0], np.ones(t),
            np.ones(na), [money, n / 6.0], np.ones(2 * p), np.tile(seat, p), np.ones(p * t)])
        assert high.shape == (self.size,)  # one bound per feature, in the order of agents.classic.learned.features
        return np.zeros(self.size, np.float32), high.astype(np.float32)

    def space(self):
        """The ``gymnasium.spaces.Box(low, high, (F,), float32)`` of these vectors."""
        from gymnasium import spaces

        return spaces.Box(self.low, self.high, (self.size,), np.float32)

    def encode(self, obs) -> np.ndarray:
        """``(F,) float32`` features of one reference :class:`~cya_sim.engine.classic.reference.observation.Observation`."""
        hdr, hand, values, unseen, seats, _mask = build_view(obs)
        return features(hdr, hand, values, unseen, seats, np.asarray(obs.gave_up, bool)).astype(np.float32)

    def encode_batch(self, ob) -> np.ndarray:
        """``(B, F) float32`` features of an :class:`~cya_sim.engine.classic.batch_observation.ObservationBatch` (:func:`batch_features`)."""
        return batch_features(ob)


def make_encoder(kind, n_players: int, observation: str | None, stack_depth: int | None):
    """The encoder of ``observation`` for the game ``kind`` (a :class:`~cya_sim.env.games.GameInterface`).

    Args:
        observation: ``"features"``, ``"table"`` or None (:func:`default_observation`).
        stack_depth: the table vector's (:class:`~cya_sim.env.classic.encoding.ObservationEncoder`); unused by the features.

    Returns:
        (the observation's name, its encoder: ``size``, ``low``/``high``, ``space()``, ``encode(obs)``,
        ``encode_batch(batch_obs)``).

    Raises:
        ValueError: ``observation`` not one of :data:`OBSERVATIONS` or None; ``"features"`` for rules they do not
            encode (names the rules and ``observation='table'``); a bad ``stack_depth``.
    """
    if observation is not None and (not isinstance(observation, str) or observation not in OBSERVATIONS):
        from cya_sim.game.jsontext import show

        raise ValueError(f"observation: {show(observation, python_str=True)}; allowed: None (the game's default), "
                         f"{', '.join(repr(o) for o in OBSERVATIONS)}")
    table = kind.encoder(n_players, stack_depth)  # checks the table size and stack_depth whichever is chosen
    name = default_observation(kind.rules) if observation is None else observation
    return name, (ViewFeatureEncoder(kind.rules, n_players) if name == "features" else table)
