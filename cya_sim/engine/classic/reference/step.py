"""Applying one action and moving to the next decision (R-TURN, §4, R-REFILL, R-ROUND-END)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cya_sim.engine.classic.reference import advanced, draft
from cya_sim.engine.classic.reference.legal import action_space, legal_action_mask
from cya_sim.engine.classic.reference.scoring import decide_winners, game_end_candidates, score_round
from cya_sim.engine.classic.reference.setup import start_round
from cya_sim.errors import UserInputError
from cya_sim.game.classic.state import CardSet, Challenge, GameState

Log = Callable[[str], None] | None


class IllegalActionError(ValueError, UserInputError):
    """An action outside the legal action mask was chosen."""


def apply_action(state: GameState, action: int, log: Log = None, legal_mask: np.ndarray | None = None) -> None:
    """Apply ``action`` for the seat to act, then advance to the next decision.

    Handles the end of the turn (R-REFILL), skipping empty hands (R-TURN), the
    end of the round (R-ROUND-END, R-SCORE), the next round (R-NEW-ROUND) and
    the end of the game (R-GAME-END, R-TIE). ``state`` is changed in place.

    Args:
        log: optional callable receiving one readable line per event.
        legal_mask: the state's :func:`legal_action_mask` when the caller
            already computed it for this very state (saves recomputing it).

    Raises:
        IllegalActionError: the game is over, ``action`` is not an integer (a
            Python or NumPy integer, not a bool; nothing is coerced), or it is not
            in :func:`legal_action_mask`; ``state`` is left unchanged.
    """
    sp = action_space(state.rules)
    seat = state.to_act
    if seat < 0:
        raise IllegalActionError("the game is over; no action can be applied")
    mask = legal_action_mask(state) if legal_mask is None else legal_mask
    if isinstance(action, bool | np.bool_) or not isinstance(action, int | np.integer):
        raise IllegalActionError(f"seat {seat} chose {action!r} ({type(action).__name__}), not an action id; "
                                 f"allowed: an integer from 0 to {sp.size - 1} where the legal action mask is true")
    action = int(action)
    if not (0 <= action < sp.size) or not mask[action]:
        shown = sp.name(action) if 0 <= action < sp.size else "outside the action space"
        raise IllegalActionError(
            f"seat {seat} chose illegal action {action} ({shown}); legal: "
            + ", ".join(f"{a} ({sp.name(a)})" for a in mask.nonzero()[0])
        )
    d = sp.decode(action)
    names = state.rules.deck.names
    say = log or (lambda _msg: None)
    state.decisions += 1
    hand = state.hands[seat]
    owner, public = 1 << seat, state.public_mask
    hidden = owner if state.rules.hidden_wilds else public

    if d.kind == "respond":
        ch = state.challenge
        card = ch.asset if d.partner < 0 else d.partner
        _play_challenge_card(state, seat, card)
        say(f"  seat {seat} answers with {names[card]}")
        return
    if d.kind == "respond_two":  # R-ADV-PENNY, R-ADV-DEEP
        advanced.play_two(state, seat, d, say)
        return
    if d.kind == "deep_challenge":  # R-ADV-DEEP
        advanced.open_deep(state, seat, d, say)
        return
    if d.kind == "end_turn":  # R-ADV-TWO: stop after one action
        say(f"seat {seat} ends its turn")
        _end_turn(state, advanced.turn_draw_order(state), say)
        return
    if d.kind == "give_up":
        state.gave_up[seat][state.challenge.asset] = True  # public record (RULES.md §10)
        say(f"  seat {seat} gives up")
        _resolve_challenge(state, say)
        return

    if d.kind.startswith("draft_"):  # R-2P-DRAFT, R-3P-DRAFT
        draft.apply(state, seat, d, sp, say, _piles_then_done)
        return

    # A new turn action (R-TURN).
    if d.kind == "pair_hand":  # R-PAIR-HAND: the asset on top, the partner hidden beneath it
        partner = d.card if d.partner < 0 else d.partner
        hand[d.card] -= 1
        hand[partner] -= 1
        state.stacks[seat].append(CardSet(d.card, [partner, d.card], [hidden, public]))
        state.played_this_turn[seat] = True
        say(f"seat {seat} lays {names[d.card]} + {names[partner]} from hand")
    elif d.kind == "pair_discard":  # R-PAIR-DISCARD
        top = state.discard_pile.pop()
        hand[d.card] -= 1
        if top < sp.n_assets:  # the face-up asset on top; the hand card beneath is hidden
            new = CardSet(top, [d.card, top], [hidden, public])
        else:  # a wild from the discard pile is public; the hand asset goes on top
            new = CardSet(d.card, [top, d.card], [public, public])
        state.stacks[seat].append(new)
        state.played_this_turn[seat] = True
        say(f"seat {seat} lays {names[top]} from the discard pile + {names[d.card]}")
    elif d.kind == "discard":  # R-DISCARD
        hand[d.card] -= 1
        state.played_this_turn[seat] = True
        if sp.n_action_cards and advanced.discard_leaves_game(state, d.card):  # R-ADV-DISCARD-ACTION
            say(f"seat {seat} discards {names[d.card]}; it leaves the game")
        else:
            state.discard_pile.append(d.card)
            say(f"seat {seat} discards {names[d.card]}")
        action_done(state, [seat], say, discard=True)
        return
    elif d.kind == "improve":  # R-ADV-IMPROVE
        advanced.improve(state, seat, say)
    elif d.kind == "swap":  # R-ADV-SWAP
        advanced.swap(state, seat, d.offset, say)
    elif d.kind == "move":  # R-ADV-MOVE
        advanced.move(state, seat, d.offset, d.direction, say)
    elif d.kind == "challenge":  # R-CHALLENGE, opened with one card (R-CH-EXCHANGE)
        target = (seat + d.offset) % state.n_players
        asset = state.stacks[target][-1].asset
        card = asset if d.partner < 0 else d.partner
        state.challenge = Challenge(seat, target, asset, [], [], to_act=seat)
        state.challenges += 1
        if state.rules.actions_per_turn > 1:
            state.turn_defenders.append(target)
        say(
            f"seat {seat} challenges seat {target} for its top set of {names[asset]} "
            f"(${state.stacks[target][-1].value(state.rules.deck.values):,} at face value)"
        )
        _play_challenge_card(state, seat, card)
        say(f"  seat {seat} shows {names[card]}")
        return
    action_done(state, [seat], say)


def _play_challenge_card(state: GameState, seat: int, card: int) -> None:
    """R-CH-EXCHANGE: ``seat`` shows ``card``; the other side must answer (a Penny Jar: with two, R-ADV-PENNY)."""
    if action_space(state.rules).pay_two_on:
        advanced.play_cards(state, seat, [card])
        return
    ch = state.challenge
    state.hands[seat][card] -= 1
    ch.cards.append(card)
    ch.players.append(seat)
    state.played_this_turn[seat] = True
    ch.to_act = ch.defender if seat == ch.challenger else ch.challenger


def _resolve_challenge(state: GameState, say: Callable[[str], None]) -> None:
    """R-CH-EXCHANGE: whoever played the last card wins the set and every challenge card.

    A winning challenger puts them, as one set keeping its asset type, on top
    of its own stack and learns all its cards (R-HIDDEN-WILD); a winning
    defender's top set grows by the challenge cards. Then R-CH-ONE: the turn
    ends and both players draw (R-REFILL; ``mover_first``: the player whose
    turn it is first — the challenger, or the drafter in an immediate challenge
    of a drafted set, §7, whose piles are turned up first).
    """
    ch = state.challenge
    values = state.rules.deck.values
    winner = ch.players[-1]
    loser = ch.defender if winner == ch.challenger else ch.challenger
    public = state.public_mask
    where = len(state.stacks[ch.defender]) - 1 - ch.depth  # the top set, or the second (R-ADV-DEEP)
    if winner == ch.challenger:
        taken = state.stacks[ch.defender].pop(where)
        won = CardSet(
            taken.asset,
            taken.cards + ch.cards,
            [k | (1 << winner) for k in taken.known_by] + [public] * len(ch.cards),
        )
        state.stacks[winner].append(won)
        state.largest_steal = max(state.largest_steal, won.value(values))
        say(f"  seat {winner} wins the challenge and takes a set worth ${won.value(values):,}")
    else:
        top = state.stacks[ch.defender][where]
        top.cards.extend(ch.cards)
        top.known_by.extend([public] * len(ch.cards))
        which = "top set" if ch.depth == 0 else "set second from the top"
        say(f"  seat {winner} defends; its {which} is now worth ${top.value(values):,}")
    if state.rules.actions_per_turn == 2:
        advanced.after_challenge(state, winner)
    state.challenge = None
    if state.rules.challenge_draw_order == "loser_first":
        order = [loser, winner]
    elif ch.challenger == state.current_player:
        order = [ch.challenger, ch.defender]
    else:  # the immediate challenge of a drafted set (§7): the mover is the defender
        order = [ch.defender, ch.challenger]
    _piles_then_done(state, order, say)


def _piles_then_done(state: GameState, draw_order: list[int], say: Callable[[str], None]) -> None:
    """§7: turn up the draft piles taken from (:func:`draft.finish`, an action card turned up acting at once),
    then :func:`action_done`; when a Move turned up waits for its choice, ``draw_order`` is kept in
    ``state.draft_then`` and this runs again after the choice."""
    if state.draft_piles and not draft.finish(state, say):
        state.draft_then = list(draw_order)
        return
    action_done(state, draw_order, say)


def action_done(state: GameState, draw_order: list[int], say: Callable[[str], None], discard: bool = False) -> None:
    """One turn action is complete: end the turn (R-CH-ONE, R-REFILL in ``draw_order``), or, under R-ADV-TWO,
    let the mover take its second action.

    R-ADV-TWO: a mover whose first action was a discard (``discard``) draws
    back up at once; the turn goes on while an action is left and the mover
    holds a card; at its end the mover draws first, then every seat it
    challenged (:func:`advanced.turn_draw_order`).
    """
    if state.rules.actions_per_turn == 1:
        _end_turn(state, draw_order, say)
        return
    mover = state.current_player
    first = state.actions_left == state.rules.actions_per_turn
    state.actions_left -= 1
    if discard and first and _refill(state, mover):
        say(f"seat {mover} draws back up at once after discarding (R-ADV-TWO)")
    if state.actions_left > 0 and state.hand_count(mover) > 0:
        return
    _end_turn(state, advanced.turn_draw_order(state), say)


def _refill(state: GameState, seat: int) -> bool:
    """R-REFILL for one seat: draw up to ``hand_size`` while the draw pile lasts; whether it drew."""
    hand = state.hands[seat]
    if not (state.draw_pile and sum(hand) < state.hand_size):
        return False
    state.gave_up[seat] = [False] * len(hand)  # a new card: the record of giving up lapses
    while state.draw_pile and sum(hand) < state.hand_size:
        hand[state.draw_pile.pop(0)] += 1
    return True


def _end_turn(state: GameState, draw_order: list[int], say: Callable[[str], None]) -> None:
    """End the turn: R-REFILL in ``draw_order``, then the next non-empty hand moves.

    R-REFILL: each listed seat that played a card this turn draws up to
    ``hand_size`` while the draw pile lasts. R-TURN: a player with an empty
    hand is skipped. R-ROUND-END: when every hand is empty the round is scored.
    """
    for seat in draw_order:
        if state.played_this_turn[seat]:
            _refill(state, seat)
    state.played_this_turn = [False] * state.n_players
    state.actions_left = state.rules.actions_per_turn
    state.no_challenge = -1
    state.turn_defenders = []
    state.turns += 1
    p = state.n_players
    for step in range(1, p + 1):
        nxt = (state.current_player + step) % p
        if state.hand_count(nxt) > 0:
            state.current_player = nxt
            return
    _end_round(state, say)


def _end_round(state: GameState, say: Callable[[str], None]) -> None:
    """R-ROUND-END and R-SCORE; then R-GAME-END or the next round (R-NEW-ROUND).

    A game still going after round ``rules.max_rounds`` stops there (a simulator
    safeguard): the highest total among the seats that could still win wins
    (ties share) and ``state.capped`` is set.
    """
    scores = score_round(state)
    say(
        f"round {state.round} ends: scores "
        + ", ".join(f"seat {s} ${v:,}" for s, v in enumerate(scores))
        + "; totals "
        + ", ".join(f"seat {s} ${v:,}" for s, v in enumerate(state.totals))
    )
    candidates = game_end_candidates(state)
    if candidates is not None:
        winners = decide_winners(state, candidates)
        if winners is not None:
            state.winners = winners
            return
        say(f"seats {', '.join(map(str, state.eligible))} are tied: one more round (R-TIE)")
    if state.round >= state.rules.max_rounds:  # the simulator's cap (RuleSet.max_rounds), not a printed rule
        seats = list(state.eligible) if state.eligible is not None else list(range(state.n_players))
        best = max(state.totals[s] for s in seats)
        state.winners = [s for s in seats if state.totals[s] == best]
        state.capped = True
        say(f"round cap reached: the game stops after {state.round} rounds (option max_rounds)")
        return
    state.dealer = (state.dealer + 1) % state.n_players
    start_round(state)
    say(f"round {state.round}: seat {state.dealer} deals; the discard pile shows "
        f"{state.rules.deck.names[state.discard_pile[-1]]}{draft.describe_tops(state)}")
