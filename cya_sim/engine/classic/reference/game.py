"""A whole game with agents on the reference engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from cya_sim.engine.agent_calls import AgentError, action_id, call_agent
from cya_sim.engine.classic.reference import observation
from cya_sim.engine.classic.reference.draft import describe_tops
from cya_sim.engine.classic.reference.setup import new_game
from cya_sim.engine.classic.reference.step import IllegalActionError, apply_action
from cya_sim.game.classic.state import GameState
from cya_sim.game.rng import stream_generator
from cya_sim.game.rules import RuleSet

__all__ = ["AgentError", "GameResult", "IllegalActionError", "play_game", "result_of"]


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game.

    game_index: the game's global index. first_dealer: seat.
    totals: final totals in dollars, one per seat.
    winners: seats sharing the win (R-TIE ``share``: each gets 1/k).
    rounds, turns, challenges, decisions: counts over the game.
    largest_steal: dollars, the largest set won by a challenger.
    actions: every action id in order, when recorded, else None.
    capped: the game was stopped by the ``max_rounds`` cap, not by R-GAME-END.
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
    capped: bool = False

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
        capped=state.capped,
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
        key: 64-bit root key (:func:`cya_sim.game.rng.root_key`).
        game_index: the game's global index; fixes the deal and agent streams.
        log: optional callable receiving one readable line per event.
        record_actions: keep every action id in ``GameResult.actions``.

    Raises:
        RulesError: table size not allowed by the rules.
        IllegalActionError: an agent returned an illegal action, or a value that is
            not an integer (nothing is coerced); the message names the agent, the
            seat, the game and the value.
        AgentError: an agent's ``act`` raised; the message names the agent, seat and game.
    """
    state = new_game(rules, len(agents), key, game_index)
    rngs = [stream_generator(key, game_index, 1 + s) for s in range(len(agents))]
    names = rules.deck.names
    actions: list[int] | None = [] if record_actions else None
    labels = [str(getattr(a, "name", type(a).__name__)) for a in agents]
    if log:
        seat_log = log

        def tagged(msg: str) -> None:
            for s in range(len(agents)):
                msg = msg.replace(f"seat {s} ", f"seat {s} ({labels[s]}) ")
            seat_log(msg)

        log = tagged
        log(f"game {game_index}: {len(agents)} players, rules {rules.name}")
        log(f"round 1: seat {state.dealer} deals; the discard pile shows {names[state.discard_pile[-1]]}"
            + describe_tops(state))
    while state.to_act >= 0:
        seat = state.to_act
        obs = observation.observe(state, seat)
        legal = obs.legal_action_mask.copy()  # the engine's own: an agent may re-enable writes on the one it gets
        if getattr(agents[seat], "sees_hidden", False):  # a labelled cheating baseline (agents/classic/oracle.py)
            action = call_agent(agents[seat], labels[seat], seat, game_index, obs, rngs[seat], state)
        else:
            action = call_agent(agents[seat], labels[seat], seat, game_index, obs, rngs[seat])
        action = action_id(action, labels[seat], seat, game_index, len(legal), IllegalActionError)
        if not legal[action]:
            raise IllegalActionError(
                f"agent {labels[seat]!r} at seat {seat} in game {game_index} returned illegal action {action} "
                f"({obs.action_space.name(action)}); legal: "
                + ", ".join(f"{a} ({obs.action_space.name(a)})" for a in legal.nonzero()[0])
            )
        if actions is not None:
            actions.append(action)
        apply_action(state, action, log, legal_mask=legal)
    if log:
        log("game over: winner(s) " + ", ".join(f"seat {s}" for s in state.winners)
            + "; final totals " + ", ".join(f"${t:,}" for t in state.totals))
    return result_of(state, game_index, actions)
