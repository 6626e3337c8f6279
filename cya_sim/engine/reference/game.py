"""A whole game with agents on the reference engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cya_sim import observation  # module import: observation itself imports this package
from cya_sim.engine.reference.setup import new_game
from cya_sim.engine.reference.step import IllegalActionError, apply_action
from cya_sim.rng import stream_generator
from cya_sim.rules import RuleSet
from cya_sim.state import GameState

__all__ = ["GameResult", "IllegalActionError", "play_game", "result_of"]


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game.

    game_index: the game's global index. first_dealer: seat.
    totals: final totals in dollars, one per seat.
    winners: seats sharing the win (R-TIE ``share``: each gets 1/k).
    rounds, turns, challenges, decisions: counts over the game.
    largest_steal: dollars, the largest set won by a challenger.
    actions: every action id in order, when recorded, else None.
    """

    game_index: int
    first_dealer: int
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int
    turns: int
    challenges: int
    decisions: int
    largest_steal: int
    actions: tuple[int, ...] | None = None

    @property
    def win_shares(self) -> tuple[float, ...]:
        """Per seat, 1/k if among the k winners, else 0 (R-TIE)."""
        k = len(self.winners)
        return tuple(1.0 / k if s in self.winners else 0.0 for s in range(len(self.totals)))


def result_of(state: GameState, game_index: int, actions: list[int] | None = None) -> GameResult:
    """The :class:`GameResult` of a finished game state."""
    return GameResult(
        game_index=game_index,
        first_dealer=state.first_dealer,
        totals=tuple(state.totals),
        winners=tuple(state.winners or ()),
        rounds=state.round,
        turns=state.turns,
        challenges=state.challenges,
        decisions=state.decisions,
        largest_steal=state.largest_steal,
        actions=tuple(actions) if actions is not None else None,
    )


def play_game(
    rules: RuleSet,
    agents: Sequence,
    key: int,
    game_index: int = 0,
    log: Callable[[str], None] | None = None,
    record_actions: bool = False,
) -> GameResult:
    """Play one game to the end (R-GAME-END) with one agent per seat.

    Args:
        rules: the rule set. agents: one agent per seat (P = len(agents)).
        key: 64-bit root key (:func:`cya_sim.rng.root_key`).
        game_index: the game's global index; fixes the deal and agent streams.
        log: optional callable receiving one readable line per event.
        record_actions: keep every action id in ``GameResult.actions``.

    Raises:
        RulesError: table size not allowed by the rules.
        IllegalActionError: an agent returned an illegal action; the message
            names the agent, the seat, the game and the action.
    """
    state = new_game(rules, len(agents), key, game_index)
    rngs = [stream_generator(key, game_index, 1 + s) for s in range(len(agents))]
    names = rules.deck.names
    actions: list[int] | None = [] if record_actions else None
    if log:
        log(f"game {game_index}: {len(agents)} players, rules {rules.name}")
        log(f"round 1: seat {state.dealer} deals; the discard pile shows {names[state.discard_pile[-1]]}")
        seat_log = log

        def tagged(msg: str) -> None:
            for s in range(len(agents)):
                msg = msg.replace(f"seat {s} ", f"seat {s} ({agents[s].name}) ")
            seat_log(msg)

        log = tagged
    while state.to_act >= 0:
        seat = state.to_act
        obs = observation.observe(state, seat)
        if getattr(agents[seat], "sees_hidden", False):  # a labelled cheating baseline (agents/oracle.py)
            action = agents[seat].act(obs, rngs[seat], state)
        else:
            action = agents[seat].act(obs, rngs[seat])
        try:
            action = int(action)
            ok = bool(obs.legal_action_mask[action]) if 0 <= action < len(obs.legal_action_mask) else False
        except (TypeError, ValueError):
            ok = False
        if not ok:
            sp = obs.action_space
            shown = sp.name(action) if isinstance(action, int) and 0 <= action < sp.size else "outside the action space"
            raise IllegalActionError(
                f"agent {getattr(agents[seat], 'name', type(agents[seat]).__name__)!r} at seat {seat} "
                f"in game {game_index} returned illegal action {action!r} ({shown})"
            )
        if actions is not None:
            actions.append(action)
        apply_action(state, action, log, legal_mask=obs.legal_action_mask)
    if log:
        log("game over: winner(s) " + ", ".join(f"seat {s}" for s in state.winners)
            + "; final totals " + ", ".join(f"${t:,}" for t in state.totals))
    return result_of(state, game_index, actions)
