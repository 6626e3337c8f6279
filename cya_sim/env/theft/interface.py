"""The theft game in the environments: its :class:`~cya_sim.env.games.GameInterface` (``INTERFACE``), found by
:func:`cya_sim.env.games.game_interface` from the game's name in :data:`cya_sim.game.registry.GAMES`."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from cya_sim.env.games import GameInterface, Log


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

    def spiel_state(self, game):
        from cya_sim.env.theft.openspiel import TheftSpielState

        return TheftSpielState(game)

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


#: The theft game's interface.
INTERFACE = TheftGame
