"""The advanced rules of seed 000 in the reference engine (RULES.md §6).

One function per rule, called from small hooks in :mod:`.legal` (the legal
action mask) and :mod:`.step` (applying actions):

* R-ADV-TWO — :func:`turn_mask` (``end_turn``, no second challenge of the same
  player), :func:`turn_draw_order`; the turn bookkeeping is in
  :func:`cya_sim.engine.classic.reference.step.action_done`.
* R-ADV-IMPROVE — :func:`improve`. R-ADV-SWAP — :func:`swap`. R-ADV-MOVE —
  :func:`move`. R-ADV-DISCARD-ACTION — :func:`discard_leaves_game`.
* R-ADV-PENNY and R-ADV-DEEP — :func:`challenge_mask_two`, :func:`open_deep`,
  :func:`play_two`, :func:`owed_after` (how many cards the next play needs).
* R-ADV-SETUP is in :func:`cya_sim.engine.classic.reference.setup.start_round`.

Readings the rules leave open (RULES.md is silent; the simulator's choices):

* R-ADV-SWAP needs a set in both stacks; R-ADV-MOVE needs at least two sets in
  the chosen stack (otherwise nothing would move; the card can be discarded).
* Cards added by R-ADV-IMPROVE, and every card shown in a challenge, are public.
* After a Swap each player learns every card of the set it receives
  (R-HIDDEN-WILD: "when a set changes hands, its new owner learns all of its cards").
* A two-card play (R-ADV-PENNY) is only offered when two cards are owed; a
  single Penny Jar may always be played, also when one card is owed.
* R-ADV-DEEP with ``two_for_one``: the challenger owes two cards (or a Penny
  Jar) at every play, the defender one, whatever was played before. With
  ``one_for_one``: the opening costs two, the defender's first answer one, and
  later plays follow R-ADV-PENNY (a single Penny Jar asks for two).
* A deep challenge counts as challenging that player for R-ADV-TWO's "may not
  challenge the same player again" (which forbids both kinds of challenge).
* At the end of a two-action turn the mover draws first, then each player it
  challenged, in the order challenged (R-REFILL ``mover_first``; the rule set
  refuses ``loser_first`` with two actions a turn).
* ``end_turn`` is offered only once the first action is complete; a mover whose
  hand is empty after its first action (and who drew nothing) ends its turn.
* A Penny Jar alone opens a deep challenge (R-ADV-DEEP lists it), and the
  defender then answers with one card: R-ADV-DEEP's "the defender needs only
  one card" is read as overriding R-ADV-PENNY there.
* A pay-two pair may hold a Penny Jar (two wilds) although a Penny Jar alone
  already pays two.
* Swap and Move cards that leave the game are public (the ``removed`` pile of
  the observation); a Swap or Move drawn into a hand is hidden like any card.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cya_sim.game.classic.actions import Action, ActionSpace
from cya_sim.game.classic.state import CardSet, Challenge, GameState

Say = Callable[[str], None]


# -- legal action mask -----------------------------------------------------------------------------
def _pay_two_ok(hand: list[int], asset: int, sp: ActionSpace) -> list[bool]:
    """Per pay-two pair ``(k1, k2)`` of ``sp.pay_two_pairs`` (0 = an ``asset``, else wild ``k-1``), whether
    ``hand`` holds it."""
    held = [hand[asset]] + [hand[sp.n_assets + k] for k in range(sp.n_wilds)]
    return [held[k1] >= 2 if k1 == k2 else held[k1] >= 1 and held[k2] >= 1 for k1, k2 in sp.pay_two_pairs]


def turn_mask(state: GameState, mask: np.ndarray, sp: ActionSpace) -> None:
    """Add the §6 turn actions to ``mask`` ((A,) bool) and apply R-ADV-TWO's challenge limit.

    R-ADV-TWO: ``end_turn`` once the first of two actions is taken; no
    challenge (top or deep) of ``state.no_challenge``. R-ADV-IMPROVE: a
    matching asset in hand and a set in the own stack. R-ADV-SWAP: a Swap in
    hand and a set in both stacks. R-ADV-MOVE: a Move in hand and at least two
    sets in the chosen stack. R-ADV-DEEP: the challenger has a set, the target
    at least three; the opening is two cards (matching assets or wilds) or a
    Penny Jar.
    """
    seat = state.to_act
    p = state.n_players
    hand = state.hands[seat]
    stacks = state.stacks
    own = stacks[seat]
    ids = state.rules.advanced_ids
    if sp.two_actions and state.actions_left < state.rules.actions_per_turn:
        mask[sp.start["end_turn"]] = True
    if sp.improve_on and own and hand[own[-1].asset] > 0:
        mask[sp.start["improve"]] = True
    if sp.swap_on and hand[ids.swap] > 0 and own:
        for offset in range(1, p):
            if stacks[(seat + offset) % p]:
                mask[sp.swap(offset)] = True
    if sp.move_on and hand[ids.move] > 0:
        for offset in range(p):
            if len(stacks[(seat + offset) % p]) >= 2:
                mask[sp.move(offset, "top_to_bottom")] = True
                mask[sp.move(offset, "bottom_to_top")] = True
    if sp.deep_on and own:
        base = sp.start["deep_challenge"]
        q_all = len(sp.pay_two_pairs) + 1
        for offset in range(1, p):
            target = (seat + offset) % p
            if len(stacks[target]) < 3 or target == state.no_challenge:
                continue
            asset = stacks[target][-2].asset
            row = base + (offset - 1) * q_all
            mask[row:row + q_all - 1] = _pay_two_ok(hand, asset, sp)
            mask[row + q_all - 1] = ids.penny >= 0 and hand[ids.penny] > 0
    if state.no_challenge >= 0:  # R-ADV-TWO: lost a challenge against this seat as the first action
        offset = (state.no_challenge - seat) % p
        w = 1 + sp.n_wilds
        row = sp.start["challenge"] + (offset - 1) * w
        mask[row:row + w] = False


def challenge_mask_two(state: GameState, mask: np.ndarray, sp: ActionSpace) -> None:
    """The challenge-phase mask when two cards are owed (R-ADV-PENNY, R-ADV-DEEP).

    Legal: a Penny Jar alone (``respond`` with it), any pay-two pair the hand
    holds (``respond_two``: two matching assets, two wilds, or one of each),
    or giving up.
    """
    ch = state.challenge
    hand = state.hands[ch.to_act]
    penny = state.rules.advanced_ids.penny
    if penny >= 0 and hand[penny] > 0:
        mask[sp.respond(penny)] = True
    base = sp.start["respond_two"]
    mask[base:base + len(sp.pay_two_pairs)] = _pay_two_ok(hand, ch.asset, sp)
    mask[sp.give_up] = True


# -- challenges with two-card plays ---------------------------------------------------------------
def owed_after(state: GameState, played: list[int]) -> int:
    """Cards the other side owes after ``played`` (R-ADV-PENNY, R-ADV-DEEP; ``state.challenge.to_act`` is
    already the other side).

    Top-set challenge: 2 after a Penny Jar played alone, else 1. Deep challenge
    with ``two_for_one``: 2 when the challenger is to play, else 1. With
    ``one_for_one``: 1 after the opening, then as a top-set challenge.
    """
    ch = state.challenge
    penny = state.rules.advanced_ids.penny
    single_penny = len(played) == 1 and played[0] == penny
    if ch.depth == 0:
        return 2 if single_penny else 1
    if state.rules.deep_challenge_costs == "two_for_one":
        return 2 if ch.to_act == ch.challenger else 1
    if len(ch.cards) == len(played):  # the opening was just played
        return 1
    return 2 if single_penny else 1


def play_cards(state: GameState, seat: int, cards: list[int]) -> None:
    """R-CH-EXCHANGE: ``seat`` shows ``cards`` (one, or two for a two-card play); the other side must answer
    and owes :func:`owed_after` cards."""
    ch = state.challenge
    for card in cards:
        state.hands[seat][card] -= 1
        ch.cards.append(card)
        ch.players.append(seat)
    state.played_this_turn[seat] = True
    ch.to_act = ch.defender if seat == ch.challenger else ch.challenger
    ch.owed = owed_after(state, cards)


def _pay_cards(state: GameState, d: Action, asset: int) -> list[int]:
    """The card ids of a pay-two action (a Penny Jar alone when ``d.second`` is -2)."""
    if d.second == -2:
        return [d.partner]
    return [asset if d.partner < 0 else d.partner, asset if d.second < 0 else d.second]


def open_deep(state: GameState, seat: int, d: Action, say: Say) -> None:
    """R-ADV-DEEP: challenge the set second from the top of the target, opening with two cards or a Penny Jar."""
    target = (seat + d.offset) % state.n_players
    contested = state.stacks[target][-2]
    state.challenge = Challenge(seat, target, contested.asset, [], [], to_act=seat, depth=1)
    state.challenges += 1
    if state.rules.actions_per_turn > 1:
        state.turn_defenders.append(target)
    names = state.rules.deck.names
    say(
        f"seat {seat} deep-challenges seat {target} for its second set from the top, of {names[contested.asset]} "
        f"(${contested.value(state.rules.deck.values):,} at face value)"
    )
    cards = _pay_cards(state, d, contested.asset)
    play_cards(state, seat, cards)
    say(f"  seat {seat} shows {' + '.join(names[c] for c in cards)}")


def play_two(state: GameState, seat: int, d: Action, say: Say) -> None:
    """A two-card challenge play (R-ADV-PENNY, R-ADV-DEEP): two matching assets, two wilds, or one of each."""
    cards = _pay_cards(state, d, state.challenge.asset)
    play_cards(state, seat, cards)
    say(f"  seat {seat} answers with {' + '.join(state.rules.deck.names[c] for c in cards)}")


def after_challenge(state: GameState, winner: int) -> None:
    """R-ADV-TWO: a challenger that lost as its first action may not challenge the defender again this turn.

    Only the mover's own challenges count: the immediate challenge of a drafted set (§7) is opened by the
    mover's neighbour, and the mover defending it is no "challenge" of R-ADV-TWO.
    """
    ch = state.challenge
    if winner != ch.challenger and ch.challenger == state.current_player \
            and state.actions_left == state.rules.actions_per_turn:
        state.no_challenge = ch.defender


# -- turn actions -----------------------------------------------------------------------------------
def improve(state: GameState, seat: int, say: Say) -> None:
    """R-ADV-IMPROVE: add one matching asset from the hand to the own top set (the card is public)."""
    top = state.stacks[seat][-1]
    state.hands[seat][top.asset] -= 1
    top.cards.append(top.asset)
    top.known_by.append(state.public_mask)
    state.played_this_turn[seat] = True
    say(f"seat {seat} improves its top set with {state.rules.deck.names[top.asset]}; it is now worth "
        f"${top.value(state.rules.deck.values):,}")


def swap(state: GameState, seat: int, offset: int, say: Say) -> None:
    """R-ADV-SWAP: play Swap; exchange the own top set with the top set of the seat ``offset`` places left.

    The Swap card leaves the game (``state.removed``); each player learns the
    cards of the set it receives (R-HIDDEN-WILD).
    """
    other = (seat + offset) % state.n_players
    card = state.rules.advanced_ids.swap
    state.hands[seat][card] -= 1
    state.removed.append(card)
    state.played_this_turn[seat] = True
    mine, theirs = exchange_top_sets(state, seat, other)
    values, names = state.rules.deck.values, state.rules.deck.names
    say(f"seat {seat} plays Swap: its top set of {names[mine.asset]} (${mine.value(values):,}) for seat {other}'s "
        f"top set of {names[theirs.asset]} (${theirs.value(values):,})")


def exchange_top_sets(state: GameState, a: int, b: int) -> tuple[CardSet, CardSet]:
    """R-ADV-SWAP's effect: seats ``a`` and ``b`` (each with a set) exchange their top sets; each learns every
    card of the set it receives (R-HIDDEN-WILD). Returns (``a``'s old top set, ``b``'s old top set)."""
    mine, theirs = state.stacks[a].pop(), state.stacks[b].pop()
    mine.known_by = [k | (1 << b) for k in mine.known_by]
    theirs.known_by = [k | (1 << a) for k in theirs.known_by]
    state.stacks[a].append(theirs)
    state.stacks[b].append(mine)
    return mine, theirs


def shift_stack(state: GameState, target: int, direction: str) -> CardSet:
    """R-ADV-MOVE's effect on ``target``'s stack (at least two sets): ``top_to_bottom`` puts its top set at the
    bottom, ``bottom_to_top`` its bottom set on top. Returns the set that moved."""
    stack = state.stacks[target]
    if direction == "top_to_bottom":
        stack.insert(0, stack.pop())
        return stack[0]
    stack.append(stack.pop(0))
    return stack[-1]


def move(state: GameState, seat: int, offset: int, direction: str, say: Say) -> None:
    """R-ADV-MOVE: play Move on the stack of the seat ``offset`` places left (0: the mover's own).

    ``top_to_bottom`` puts its top set at the bottom, ``bottom_to_top`` its
    bottom set on top. The Move card leaves the game (``state.removed``).
    """
    target = (seat + offset) % state.n_players
    card = state.rules.advanced_ids.move
    state.hands[seat][card] -= 1
    state.removed.append(card)
    state.played_this_turn[seat] = True
    moved = shift_stack(state, target, direction)
    names = state.rules.deck.names
    if direction == "top_to_bottom":
        say(f"seat {seat} plays Move: seat {target}'s top set of {names[moved.asset]} goes to the bottom")
    else:
        say(f"seat {seat} plays Move: seat {target}'s bottom set of {names[moved.asset]} goes on top")


def discard_leaves_game(state: GameState, card: int) -> bool:
    """R-ADV-DISCARD-ACTION: a discarded Swap or Move leaves the game (True) instead of lying on the pile."""
    if card < state.rules.deck.n_assets + state.rules.deck.n_wilds:
        return False
    state.removed.append(card)
    return True


def turn_draw_order(state: GameState) -> list[int]:
    """R-REFILL at the end of a two-action turn: the mover, then each challenged seat in order (no repeats)."""
    order = [state.current_player]
    for s in state.turn_defenders:
        if s not in order:
            order.append(s)
    return order


__all__ = [
    "after_challenge",
    "challenge_mask_two",
    "discard_leaves_game",
    "exchange_top_sets",
    "improve",
    "move",
    "open_deep",
    "owed_after",
    "play_cards",
    "play_two",
    "shift_stack",
    "swap",
    "turn_draw_order",
    "turn_mask",
]
