"""The theft game's reference engine: set up a game, apply actions, with a readable log (RULES.md §9).

Written to be read against §9 rule by rule: :func:`new_game` is R-T-DECK and
R-T-SETUP, :func:`apply_action` with :func:`_start_turn`, :func:`_draw` and
:func:`_finish_turn` is R-T-TURN, :func:`_end_game` is R-T-END. Every line the
``log`` callable receives names the seat, the cards and the rule's outcome,
hidden cards included (the log is the engine's, not a player's view).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cya_sim.engine.theft.legal import action_space, legal_action_mask
from cya_sim.errors import UserInputError
from cya_sim.game.rng import shuffle_in_place, stream_generator, uniform_index
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.game.theft.state import DEFENCE, DISCARD, OVER, PLAY, SETUP, Asset, PendingTheft, TheftState

Log = Callable[[str], None] | None


class TheftIllegalActionError(ValueError, UserInputError):
    """An action that is not legal in the state it was applied to (the message names it)."""


# -- words for the log -----------------------------------------------------------------
def card_text(rules: TheftRuleSet, cards) -> str:
    """``"3, 7, Gold Theft"``: card type ids as names, in the given order (``"nothing"`` for none)."""
    names = rules.card_names
    return ", ".join(names[c] for c in cards) or "nothing"


def pair_text(rules: TheftRuleSet, cards) -> str:
    """``"7+7"``, ``"9+Gold"``: the two cards of a pair."""
    return "+".join(rules.card_names[c] for c in cards)


def hand_text(rules: TheftRuleSet, hand: list[int]) -> str:
    """A hand (T counts) as names in card-type order, e.g. ``"3, 3, 7, Gold, Theft"``."""
    return card_text(rules, [t for t, n in enumerate(hand) for _ in range(n)])


def asset_text(rules: TheftRuleSet, a: Asset) -> str:
    """``"3+7=10"``: an asset's cards as laid and its points."""
    names = rules.card_names
    return "+".join(names[c] for c in a.cards) + f"={a.value(rules.values)}"


def assets_text(state: TheftState, seat: int) -> str:
    """``"[3+7=10, 5+5=10]"``: a seat's assets, oldest first."""
    return "[" + ", ".join(asset_text(state.rules, a) for a in state.assets[seat]) + "]"


# -- R-T-DECK, R-T-SETUP -----------------------------------------------------------------
def new_game(rules: TheftRuleSet, n_players: int, key: int, game_index: int = 0, log: Log = None,
             rng=None) -> TheftState:
    """A new game: shuffle, choose the first player, deal (R-T-DECK, R-T-SETUP).

    The engine's stream (stream 0 of ``game_index`` under ``key``,
    :mod:`cya_sim.game.rng`) first picks the first player uniformly, then shuffles
    the deck; cards are dealt one at a time starting with the first player.
    ``rng``, when given, is used instead of that stream (any object with NumPy's
    ``random()`` and ``random(n)``; OpenSpiel's chance nodes feed the game their
    outcomes this way, :mod:`cya_sim.env.theft.openspiel`); ``key`` is then unused.
    The state is left in the setup phase: each seat in turn order, starting
    with the first player, lays its first asset (:func:`apply_action`).

    Raises:
        RulesError: ``n_players`` outside the rules' table sizes.
    """
    rules.check_players(n_players)
    if rng is None:
        rng = stream_generator(key, game_index, 0)
    first = uniform_index(rng, n_players)
    deck = [t for t, n in enumerate(rules.counts) for _ in range(int(n))]
    shuffle_in_place(deck, rng)
    hands = [[0] * rules.n_types for _ in range(n_players)]
    pos = 0
    for _ in range(rules.hand_size):
        for k in range(n_players):
            hands[(first + k) % n_players][deck[pos]] += 1
            pos += 1
    state = TheftState(rules=rules, n_players=n_players, hands=hands, draw_pile=deck[pos:], discard_pile=[],
                       assets=[[] for _ in range(n_players)], phase=SETUP, current_player=first,
                       first_player=first, rng=rng)
    if log:
        log(f"game {game_index}: {n_players} players, rules {rules.name}; seat {first} moves first "
            "(chosen at random, R-T-SETUP)")
        for s in range(n_players):
            log(f"seat {s} is dealt {hand_text(rules, hands[s])}")
    _next_setup_seat(state, first, log)
    return state


def _can_lay_first_asset(state: TheftState, seat: int) -> bool:
    h = state.hands[seat]
    return sum(h[: state.rules.n_asset_types]) >= 2


def _next_setup_seat(state: TheftState, seat: int, log: Log) -> None:
    """Move the setup to ``seat`` or the next seat after it that can lay a first asset; then start play.

    A seat dealt fewer than two asset cards (thefts only) lays no first asset
    (a reading: §9 does not say; about 1 deal in 20,000 at 4 players).
    """
    p = state.n_players
    while True:
        if _can_lay_first_asset(state, seat):
            state.current_player = seat
            return
        if log:
            log(f"seat {seat} holds fewer than two asset cards and lays no first asset")
        seat = (seat + 1) % p
        if seat == state.first_player:
            _start_turn(state, state.first_player, log)
            return


# -- R-T-TURN -----------------------------------------------------------------------------
def _draw(state: TheftState, seat: int, k: int, log: Log) -> list[int]:
    """Draw up to ``k`` cards into ``seat``'s hand; an empty draw pile is replaced by the shuffled
    discard pile (R-T-TURN). Returns the cards drawn (fewer when both piles run out)."""
    drawn = []
    for _ in range(k):
        if not state.draw_pile:
            if not state.discard_pile:
                break
            pile = state.discard_pile
            state.discard_pile = []
            shuffle_in_place(pile, state.rng)
            state.draw_pile = pile
            if log:
                log(f"  the draw pile is empty: the discard pile's {len(pile)} cards are shuffled into a new one")
        card = state.draw_pile.pop(0)
        state.hands[seat][card] += 1
        drawn.append(card)
    return drawn


def _start_turn(state: TheftState, seat: int, log: Log) -> None:
    """R-T-TURN: ``seat`` draws ``draw_per_turn`` cards and plays; past ``max_turns`` the game stops."""
    r = state.rules
    if state.turns >= r.max_turns:
        state.capped = True
        if log:
            log(f"turn cap reached (max_turns = {r.max_turns}, a safeguard, not a rule): "
                "the game stops and is scored as it stands")
        _end_game(state, log)
        return
    state.turns += 1
    state.phase = PLAY
    state.current_player = seat
    state.thefts_this_turn = 0
    drawn = _draw(state, seat, r.draw_per_turn, log)
    if log:
        last = "" if state.final_turns_left is None else " (a last turn, R-T-END)"
        log(f"turn {state.turns}{last}: seat {seat} draws {card_text(r, drawn)}; holds "
            f"{hand_text(r, state.hands[seat])}; draw pile {len(state.draw_pile)}")


def _finish_turn(state: TheftState, log: Log) -> None:
    """End of a turn: draw up under ``discard_and_draw_up``, then R-T-END, then the next seat's turn."""
    r = state.rules
    seat = state.current_player
    if r.end_of_turn == "discard_and_draw_up" and state.hand_count(seat) < r.hand_limit:
        drawn = _draw(state, seat, r.hand_limit - state.hand_count(seat), log)
        if log:
            log(f"seat {seat} draws up to {r.hand_limit}: {card_text(r, drawn)}")
    if state.final_turns_left is None:
        p = state.n_players
        for k in range(p):  # only the mover gains assets on a turn; every seat is checked all the same
            s = (seat + k) % p
            if len(state.assets[s]) >= r.assets_to_end:
                state.trigger_seat = s
                state.final_turns_left = p - 1
                if log:
                    log(f"seat {s} has {len(state.assets[s])} assets {assets_text(state, s)} at the end of a turn: "
                        "every other player gets one more turn (R-T-END)")
                break
    else:
        state.final_turns_left -= 1
    if state.final_turns_left == 0:
        _end_game(state, log)
        return
    _start_turn(state, (seat + 1) % state.n_players, log)


def _end_game(state: TheftState, log: Log) -> None:
    """R-T-END: the highest total of asset card values wins; ties share the win."""
    scores = state.scores()
    best = max(scores)
    state.winners = [s for s, v in enumerate(scores) if v == best]
    state.phase = OVER
    state.theft = None
    if log:
        for s in range(state.n_players):
            log(f"seat {s} scores {scores[s]}: assets {assets_text(state, s)}")
        log(f"game over after {state.turns} turns{' (turn cap)' if state.capped else ''}: winner(s) "
            + ", ".join(f"seat {s}" for s in state.winners) + "; points " + ", ".join(str(v) for v in scores))


def apply_action(state: TheftState, action: int, log: Log = None, legal_mask: np.ndarray | None = None) -> None:
    """Apply action id ``action`` for the seat to act (R-T-SETUP, R-T-TURN, R-T-END).

    Args:
        state: changed in place. action: an id of :func:`action_space`.
        log: optional callable receiving readable lines.
        legal_mask: the state's legal mask when the caller has it already.

    Raises:
        TheftIllegalActionError: the action is not legal now (or the game is over).
    """
    r = state.rules
    sp = action_space(r)
    mask = legal_action_mask(state) if legal_mask is None else legal_mask
    if not (0 <= int(action) < sp.size) or not mask[int(action)]:
        shown = sp.name(action) if 0 <= int(action) < sp.size else "outside the action space"
        raise TheftIllegalActionError(f"action {action} ({shown}) is not legal for seat {state.to_act} "
                                      f"in phase {state.phase}")
    d = sp.decode(action)
    seat = state.to_act
    hand = state.hands[seat]
    state.decisions += 1
    if d.kind == "first_asset":  # R-T-SETUP
        down, up = d.cards
        hand[down] -= 1
        hand[up] -= 1
        state.assets[seat].append(Asset([down, up], [1 << seat, state.public_mask]))
        if log:
            log(f"seat {seat} lays its first asset: {r.card_names[down]} face-down, {r.card_names[up]} face-up "
                f"(worth {state.assets[seat][-1].value(r.values)})")
        nxt = (seat + 1) % state.n_players
        if nxt == state.first_player:
            _start_turn(state, nxt, log)
        else:
            _next_setup_seat(state, nxt, log)
    elif d.kind == "build":
        for c in d.cards:
            hand[c] -= 1
        state.assets[seat].append(Asset(list(d.cards), [state.public_mask] * 2))
        if log:
            log(f"seat {seat} builds {pair_text(r, d.cards)} (worth {state.assets[seat][-1].value(r.values)}); "
                f"assets {assets_text(state, seat)}")
    elif d.kind == "theft":
        card = d.cards[0]
        target = (seat + d.offset) % state.n_players
        hand[card] -= 1
        state.theft = PendingTheft(seat, target, d.slot, card)
        state.thefts_this_turn += 1
        state.thefts += 1
        state.phase = DEFENCE
        if log:
            log(f"seat {seat} plays a {r.card_names[card]} on seat {target}'s asset #{d.slot} "
                f"({asset_text(r, state.assets[target][d.slot])})")
    elif d.kind in ("cancel_pair", "give_up_asset", "let_pass", "cancel_gold"):
        _answer_theft(state, d.kind, d.cards, d.slot, log)
    elif d.kind == "end_turn":
        if log:
            log(f"seat {seat} ends its turn holding {state.hand_count(seat)} cards: {hand_text(r, hand)}")
        if r.end_of_turn != "keep" and state.hand_count(seat) > r.hand_limit:
            state.phase = DISCARD
        else:
            _finish_turn(state, log)
    elif d.kind == "discard":
        c = d.cards[0]
        hand[c] -= 1
        state.discard_pile.append(c)
        if log:
            log(f"seat {seat} discards {r.card_names[c]} (down to {r.hand_limit}: {state.hand_count(seat)} left)")
        if state.hand_count(seat) <= r.hand_limit:
            _finish_turn(state, log)


def _answer_theft(state: TheftState, kind: str, cards: tuple[int, ...], slot: int, log: Log) -> None:
    """R-T-TURN defence: cancel with a pair from hand, one gold card (``single_gold``) or an own asset, or let the
    asset pass.

    The theft card and the cancelling cards go to the discard pile; a passed
    asset goes to the thief, who now knows its hidden card.
    """
    r = state.rules
    th = state.theft
    target_assets = state.assets[th.target]
    theft_name = r.card_names[th.card]
    if kind in ("cancel_pair", "cancel_gold"):
        for c in cards:
            state.hands[th.target][c] -= 1
        state.discard_pile.extend([th.card, *cards])
        state.cancelled += 1
        if log:
            what = pair_text(r, cards) if kind == "cancel_pair" else "a gold card"
            log(f"seat {th.target} cancels it with {what} from hand; the {theft_name} and "
                f"{card_text(r, cards)} go to the discard pile")
    elif kind == "give_up_asset":
        given = target_assets.pop(slot)
        state.discard_pile.extend([th.card, *given.cards])
        state.cancelled += 1
        if log:
            which = "the targeted asset" if slot == th.slot else "its asset"
            log(f"seat {th.target} cancels it by giving up {which} #{slot} ({asset_text(r, given)}); the "
                f"{theft_name} and {card_text(r, given.cards)} go to the discard pile")
    else:
        stolen = target_assets.pop(th.slot)
        stolen.known_by = [k | (1 << th.thief) for k in stolen.known_by]
        state.assets[th.thief].append(stolen)
        state.discard_pile.append(th.card)
        value = stolen.value(r.values)
        state.largest_steal = max(state.largest_steal, value)
        if log:
            log(f"seat {th.target} lets it pass: seat {th.thief} takes the asset ({asset_text(r, stolen)}); the "
                f"{theft_name} goes to the discard pile; seat {th.thief} assets {assets_text(state, th.thief)}")
    state.theft = None
    state.phase = PLAY
