"""Record one game step by step for pictures and the HTML replay (``cya-sim play --svg/--png/--html``).

The game is the one ``cya-sim play --seed S --game G`` plays: dealt and stepped through
:class:`~cya_sim.env.game.EnvGame` (the same deal, the same seat streams, the same log lines), for every
game (the classic family and the theft game). After the deal and after each action the table is drawn
(:mod:`cya_sim.render`) as the full view and as the seat to act next sees it.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence

from cya_sim.env.game import EnvGame
from cya_sim.render.replay import Frame
from cya_sim.render.table import layout, table_of


def record_game(rules, agents: Sequence, key_seed: int, game_index: int = 0,
                log: Callable[[str], None] | None = None, keep: Callable[[int], bool] | None = None,
                at: int | None = None) -> tuple[list[Frame | None], object]:
    """Play one game and draw every step.

    Args:
        rules: a rule set of either game. agents: one agent object per seat (P = len(agents)).
        key_seed: the seed (``--seed``). game_index: the game under it (``--game``).
        log: receives each log line as it happens (``print`` for ``cya-sim play``'s output), or None.
        keep: which steps to draw (default all); a step not kept is None in the result.
        at: a step whose state to return instead of the final one (a copy; the final state if the game
            has fewer steps).

    Returns:
        (frames, state): frame 0 is the deal, frame k the table after the k-th action; the state after
        step ``at`` (default: the final state).

    Raises:
        IllegalActionError: an agent chose an illegal action (agent, seat, game and action named).
    """
    names = [getattr(a, "name", type(a).__name__) for a in agents]
    pending: list[str] = []

    def say(line: str) -> None:
        pending.append(line)
        if log is not None:
            log(line)

    game = EnvGame(rules, len(agents), names, log=say)
    game.start(key_seed, game_index)
    frames: list[Frame | None] = []
    last_actor = 0
    kept = None

    def snap() -> None:
        nonlocal kept
        step = len(frames)
        if step == at:
            kept = copy.deepcopy(game.state)
        lines = tuple(pending)
        pending.clear()
        if keep is not None and not keep(step):
            frames.append(None)
            return
        seat = game.to_act if game.to_act >= 0 else last_actor
        label = f"seat {seat}'s view" + (" (to act)" if game.to_act >= 0 else " (acted last)")
        frames.append(Frame(lines, layout(table_of(game.state, None, names)), layout(table_of(game.state, seat, names)),
                            label))

    snap()
    while not game.over:
        seat = game.to_act
        action = agents[seat].act(game.observe(seat), game.seat_rngs[seat])
        game.step(action, who=f"agent {names[seat]!r}")
        last_actor = seat
        snap()
    return frames, kept if kept is not None else game.state
