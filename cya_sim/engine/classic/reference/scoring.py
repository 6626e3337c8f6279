"""End of round and end of game (R-SCORE, R-GAME-END, R-TIE)."""

from __future__ import annotations

from cya_sim.game.classic.state import GameState


def score_round(state: GameState) -> list[int]:
    """R-SCORE: add each stack's face value to its owner's total.

    Cards in the discard pile score nothing. Also credits R-GAME-END
    ``round_wins``: every seat tied for the round's highest score.

    Returns:
        the round scores in dollars, one per seat.
    """
    scores = state.stack_values()
    state.round_scores.append(scores)
    for s in range(state.n_players):
        state.totals[s] += scores[s]
    best = max(scores)
    for s in range(state.n_players):
        if scores[s] == best:
            state.round_wins[s] += 1
    return scores


def game_end_candidates(state: GameState) -> list[int] | None:
    """Seats that can win if the game ends after this round, or None to play on.

    R-GAME-END: ``target`` — some total >= ``target_score``: every seat;
    ``rounds:N`` — N rounds played: every seat; ``round_wins:K`` — the seats
    with at least K round wins. During R-TIE extra rounds: the tied seats.
    """
    if state.eligible is not None:
        return list(state.eligible)
    rules = state.rules
    kind, param = rules.end_kind, rules.end_param
    everyone = list(range(state.n_players))
    if kind == "target":
        return everyone if max(state.totals) >= rules.target_score else None
    if kind == "rounds":
        return everyone if state.round >= param else None
    reached = [s for s in everyone if state.round_wins[s] >= param]
    return reached or None


def decide_winners(state: GameState, candidates: list[int]) -> list[int] | None:
    """The winners among ``candidates`` (highest total), or None for an extra round.

    R-TIE: with ``share`` the tied seats share the win; with ``extra_round``
    another round is played in which only the tied seats can win, repeated
    while they stay tied, at most ``max_extra_rounds`` times (then they share).
    """
    best = max(state.totals[s] for s in candidates)
    tied = [s for s in candidates if state.totals[s] == best]
    if len(tied) == 1 or state.rules.tie_break == "share" or state.extra_rounds >= state.rules.max_extra_rounds:
        return tied
    state.eligible = tied
    state.extra_rounds += 1
    return None
