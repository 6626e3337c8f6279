"""The classic family's game in the environments: its :class:`~cya_sim.env.games.GameInterface` (``INTERFACE``), found by
:func:`cya_sim.env.games.game_interface` from the game's name in :data:`cya_sim.game.registry.GAMES`."""

from __future__ import annotations

from types import ModuleType

import numpy as np

from cya_sim.env.games import GameInterface, Log


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

    def running_scores(self, state) -> np.ndarray:
        """The totals plus, during a round, the value of each seat's stack, which R-SCORE adds at the round's end."""
        out = self.totals(state)
        if state.winners is None:  # at the end the last round's stacks are in the totals already
            v = self.rules.deck.values
            out += np.array([sum(b.value(v) for b in stack) for stack in state.stacks], np.int64)
        return out

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

    def spiel_state(self, game):
        from cya_sim.env.classic.openspiel import CoverYourAssetsState

        return CoverYourAssetsState(game)

    def max_game_length(self, n_players: int) -> int:
        from cya_sim.env import bounds

        return bounds.max_game_length(self.rules, n_players)


#: The classic family's interface.
INTERFACE = ClassicGame
