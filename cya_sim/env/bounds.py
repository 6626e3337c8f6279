"""Bounds of one game derived from its rules: rounds, decisions, totals, game length (RULES.md §3–7).

The environments need finite bounds that hold for every game a rule set can
produce, not only for the games agents happen to play: Gymnasium's and
PettingZoo's observation ``Box`` (:meth:`cya_sim.env.classic.encoding.ObservationEncoder.bounds`)
and OpenSpiel's ``max_game_length`` (:mod:`cya_sim.env.openspiel`). Each bound
here is an argument from the rules, stated in its docstring, and is checked
against played games in ``tests/test_env_conformance.py``.
"""

from __future__ import annotations

from cya_sim.game.rules import RuleSet


def max_rounds(rules: RuleSet, n_players: int) -> int:
    """Most rounds a game of ``rules`` at ``n_players`` seats can last (R-GAME-END, R-TIE, ``max_rounds``).

    ``rounds:N`` ends after N rounds and ``round_wins:K`` after at most ``P (K - 1) + 1`` (every round
    credits at least one seat, R-GAME-END), each plus up to ``max_extra_rounds`` R-TIE extra rounds
    under ``tie_break = extra_round``; ``target`` has no bound of its own (a round may score $0, so
    only the ``max_rounds`` safeguard ends it). The safeguard caps every kind.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``.
    """
    rules.check_players(n_players)
    extra = rules.max_extra_rounds if rules.tie_break == "extra_round" else 0
    if rules.end_kind == "rounds":
        return min(rules.max_rounds, rules.end_param + extra)
    if rules.end_kind == "round_wins":
        return min(rules.max_rounds, n_players * (rules.end_param - 1) + 1 + extra)
    return rules.max_rounds


def cards_in_play(rules: RuleSet, n_players: int) -> int:
    """N, the cards dealt into each round: the deck in play (R-DECK-MULTI, less R-2P-DRAFT's removed cards)."""
    return int(rules.deck_counts(n_players).sum())


def max_decisions_per_round(rules: RuleSet, n_players: int) -> int:
    """Most player decisions in one round (R-TURN, R-CH-EXCHANGE, R-ADV-TWO, §7).

    Cards enter hands only from the deal and the draw pile, at most ``H = N - 1 - K * pile_size``
    of them a round (the first discard is turned up, the K draft piles are dealt face down). Every
    decision but four moves at least one card out of a hand; the four each follow a card-moving
    decision of their own, at most once: ``give_up`` (one a challenge, and a challenge opens with a
    card), ``end_turn`` (R-ADV-TWO, one a turn after its first action), ``draft_decline`` (one a draft
    take) and ``draft_move`` (one for each Move card turned up on a draft pile, §7 with §6).
    So a round has at most ``H * (2 + [two actions] + [draft]) + [draft] * Move cards`` decisions.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``.
    """
    drafting = rules.draft != "none"
    h = cards_in_play(rules, n_players) - 1 - (rules.draft_piles * rules.draft_pile_size if drafting else 0)
    per_card = 2 + (rules.actions_per_turn == 2) + drafting
    moves = int(rules.deck_counts(n_players)[rules.advanced_ids.move]) if drafting and rules.advanced_ids.move >= 0 else 0
    return max(h, 0) * per_card + moves


def max_game_length(rules: RuleSet, n_players: int) -> int:
    """Most chance and player moves in one game of the OpenSpiel game (:mod:`cya_sim.env.openspiel`).

    One chance move picks the first dealer (R-SETUP); each round's shuffle is N chance moves (one
    card type each, R-NEW-ROUND); so ``1 + max_rounds * (N + max_decisions_per_round)``.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``.
    """
    per_round = cards_in_play(rules, n_players) + max_decisions_per_round(rules, n_players)
    return 1 + max_rounds(rules, n_players) * per_round


def max_total(rules: RuleSet, n_players: int) -> int:
    """Largest running total in dollars a seat can reach (R-SCORE, R-GAME-END).

    A round adds at most the value of every card in play (``RuleSet.round_total``). Under
    ``target`` every total is below ``target_score`` before the last regular round, which is
    followed by at most ``max_extra_rounds`` R-TIE extra rounds; in any case at most
    :func:`max_rounds` rounds are scored.

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``.
    """
    per_round = rules.round_total(n_players)
    most = max_rounds(rules, n_players) * per_round
    if rules.end_kind == "target":
        extra = rules.max_extra_rounds if rules.tie_break == "extra_round" else 0
        most = min(most, rules.target_score - 1 + (1 + extra) * per_round)
    return most
