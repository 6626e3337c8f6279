"""The small-table drafts (RULES.md §7: R-2P-DRAFT, R-3P-DRAFT) on the reference engine.

Draft piles are dealt at set-up, their top cards face-up. On their turn a
player may play a hand card that matches the face-up top of a pile within
reach and take every matching face-up top within reach, forming one new set
(``draft_take`` with a hand asset, ``draft_wild`` with a hand wild naming an
asset type). The neighbour beside a pile taken from may at once open a
challenge for that set (``draft_challenge``, the R-CH-ALLOWED exception: even a
first set, even without a set of one's own) or let it be
(``draft_decline``); an opened challenge goes on as R-CH-EXCHANGE. Then every
pile taken from turns up its next card, and R-REFILL ends the turn.

Readings the simulator chooses where RULES.md and seed 000 are silent (each a
documented choice, not a printed rule):

* Set-up order: the draft piles are dealt first (seed 000: "After forming the
  piles, deal 6 cards"), pile 0 first, each pile's last dealt card on top; then
  the hands (R-SETUP) and the discard card. The discard pile is kept
  (R-SETUP).
* Reach: ``shared`` — every pile, in pile order; ``neighbours`` — pile i lies
  between seats i and i+1 (seat i+1 is left of seat i, R-SETUP), so seat m
  reaches pile m (on its left) and pile m-1 (on its right), in that order.
* A face-up wild is taken only with a played asset when no face-up top within
  reach is of that asset's type (R-2P-DRAFT); the player names the wild type;
  when two reachable piles show that wild type, the first in reach order gives
  it. Exactly one wild is taken (never two wilds).
* Hidden wilds (R-HIDDEN-WILD, as R-PAIR-DISCARD): the played hand card lies
  beneath the face-up drafted assets and is known only to its owner; when an
  asset is played to take a face-up wild, the wild lies beneath and the hand
  asset goes on top, both public. Drafted cards are public.
* Who may challenge: the other neighbour of each pile taken from
  (``shared``: the opponent). When a ``neighbours`` take used both piles
  within reach, both other players may: the mover's left neighbour is asked
  first, then the right one; the first to open the challenge has it. A seat
  holding neither a card of the set's type nor a wild is not asked (it cannot
  open a challenge, R-CH-EXCHANGE).
* Timing of the turn-up: the piles taken from turn up their next card after
  the immediate challenge is settled (or declined), before R-REFILL; while it
  runs those tops are face-down (so an action card turned up later, §6 with
  §7, would act on settled stacks).
* R-REFILL after a draft: the mover draws first, then the challenger
  (``mover_first``); under ``loser_first`` the loser first, as in §4.

With the advanced rules (§6; presets ``two_player_draft_advanced`` and
``three_player_draft_advanced``, or any draft with §6 options). Seed 000, line 21
(2 players): "If you're playing with Advanced Rules and an action card is revealed
in a draft pile, it affects both players. For a Move action, your opponent chooses
whether you move your top set or your bottom set." Line 25 (3 players): "If an
action card gets revealed in a draft pile, the 2 players next to the pile must
immediately take the action. For a Move action, you choose whether your opponent
moves the top or bottom set in their Stack." The simulator's readings:

* Turn-up (:func:`finish`): a Swap or Move turned up on a pile is carried out at
  once, once, by the two players beside the pile (``shared``: both players),
  leaves the game (``state.removed``, public) and the pile's next card is turned;
  again while it is an action card. Piles are turned up in pile order.
* Swap turned up: the two players exchange their top sets (each learns the set
  it receives, as R-ADV-SWAP); when either has no set, nothing happens (as a
  played Swap needs a set in both stacks, :mod:`.advanced`).
* Move turned up, 2 players (line 21): the mover's stack moves and the mover's
  opponent chooses top-to-bottom or bottom-to-top (``draft_move``, a decision of
  a seat that is not on turn). "It affects both players" is read as: both take
  part (one stack moves, the other player chooses), not as both stacks moving.
* Move turned up, 3 players (line 25): the other player beside the pile is the
  mover's "opponent"; its stack moves and the mover chooses. A pile is turned up
  during a round only after the mover took from it, so the mover is always
  beside it (the case "mover not beside the pile" cannot happen).
* Move with fewer than two sets in the moving stack: nothing happens (nothing
  can move) and no choice is asked; with two sets both choices give the same
  stack, and the choice is still asked.
* At set-up (the piles are turned up before anyone holds a set): an action card
  turned up on a pile has nothing to act on; it leaves the game and the next card
  of the pile is turned up (the draft-pile analogue of R-ADV-SETUP).
* Timing: the action card acts when the pile is turned up, i.e. after the
  immediate challenge is settled (module notes above), before R-REFILL; the
  action the mover took is complete only once every pile is turned up.
* A Penny Jar (R-ADV-PENNY) drafts like any wild: played from the hand it names
  an asset type (``draft_wild``); face-up on a pile it is taken only with a
  played asset as any face-up wild; opening the immediate challenge with one
  asks for two cards (or another Penny Jar) from the mover.
* R-ADV-TWO: a draft take is one action; the immediate challenge is the
  neighbour's, so the mover defending it is no challenge of R-ADV-TWO's "may not
  challenge the same player again"; a neighbour that played in the immediate
  challenge draws after the mover at the end of the turn, with the seats the
  mover challenged, in the order the challenges began.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cya_sim.engine.classic.reference import advanced
from cya_sim.game.classic.actions import Action, ActionSpace
from cya_sim.game.classic.state import CardSet, Challenge, GameState

Say = Callable[[str], None]


def deal_piles(state: GameState, cards: list[int]) -> int:
    """Deal the draft piles from the top of the shuffled ``cards``; return how many cards were used.

    ``rules.draft_piles`` piles of ``rules.draft_pile_size`` cards, pile 0 first; each pile's
    top (its last card) is face-up (R-2P-DRAFT, R-3P-DRAFT). No piles without a draft. An
    action card turned up at set-up leaves the game (``state.removed``) and the next card is
    turned up (module notes: nobody has a set yet, so it acts on nothing).
    """
    r = state.rules
    n, size = (r.draft_piles, r.draft_pile_size) if r.draft != "none" else (0, 0)
    state.draft_piles = [cards[j * size:(j + 1) * size] for j in range(n)]
    state.draft_down = [False] * n
    state.draft_offer = []
    state.draft_move = []
    state.draft_then = []
    for pile in state.draft_piles:
        while pile and _is_action(state, pile[-1]):
            state.removed.append(pile.pop())
    return n * size


def _is_action(state: GameState, card: int) -> bool:
    """Whether ``card`` is a Swap or Move (R-DECK-ACTION: the ids after the assets and wilds)."""
    return card >= state.rules.deck.n_assets + state.rules.deck.n_wilds


def reach(state: GameState, seat: int) -> list[int]:
    """The draft piles ``seat`` may draft from, in reach order (module notes; R-3P-DRAFT: not the far pile)."""
    if state.rules.draft == "shared":
        return list(range(len(state.draft_piles)))
    p = state.n_players
    return [seat, (seat - 1) % p]


def face_up_top(state: GameState, pile: int) -> int:
    """The face-up top card type of ``pile``, or -1 (empty, or its next card not turned up yet)."""
    cards = state.draft_piles[pile]
    return cards[-1] if cards and not state.draft_down[pile] else -1


def other_neighbour(state: GameState, mover: int, pile: int) -> int:
    """The seat that may challenge a set drafted by ``mover`` from ``pile`` (R-2P-DRAFT, R-3P-DRAFT)."""
    if state.rules.draft == "shared":
        return 1 - mover
    return (pile + 1) % state.n_players if pile == mover else pile


def take_piles(state: GameState, seat: int, d: Action, n_assets: int) -> list[int]:
    """The piles a draft take ``d`` by ``seat`` takes the top of (empty: the take is not possible).

    ``draft_take`` k=0 and ``draft_wild``: every reachable face-up top of asset type ``d.card``;
    ``draft_take`` with a wild: the first reachable pile showing that wild, and only when no
    reachable face-up top is of type ``d.card`` (R-2P-DRAFT).
    """
    piles = reach(state, seat)
    same = [j for j in piles if face_up_top(state, j) == d.card]
    if d.kind == "draft_wild" or d.partner < 0:
        return same
    if same:
        return []
    wild = [j for j in piles if face_up_top(state, j) == d.partner]
    return wild[:1]


def legal_takes(state: GameState, seat: int, mask: np.ndarray, sp: ActionSpace) -> None:
    """Set the legal ``draft_take`` and ``draft_wild`` ids of ``seat`` in ``mask`` (turn phase)."""
    hand = state.hands[seat]
    n_a, n_w = sp.n_assets, sp.n_wilds
    tops = {face_up_top(state, j) for j in reach(state, seat)} - {-1}
    if not tops:
        return
    up_wilds = [w for w in range(n_a, n_a + n_w) if w in tops]
    for a in range(n_a):
        if not hand[a]:
            continue
        if a in tops:
            mask[sp.draft_take(a)] = True
        else:
            for w in up_wilds:
                mask[sp.draft_take(a, w)] = True
    for w in range(n_a, n_a + n_w):
        if hand[w]:
            for a in tops:
                if a < n_a:
                    mask[sp.draft_wild(w, a)] = True


def can_open(state: GameState, seat: int, asset: int, n_assets: int) -> bool:
    """Whether ``seat`` holds a card that opens a challenge for a set of ``asset`` (R-CH-EXCHANGE)."""
    hand = state.hands[seat]
    return hand[asset] > 0 or any(hand[n_assets:n_assets + state.rules.deck.n_wilds])  # not Swap/Move (§6)


def legal_offer(state: GameState, mask: np.ndarray, sp: ActionSpace) -> None:
    """Set the legal ids of the seat asked about the immediate challenge: open it or decline."""
    seat = state.draft_offer[0]
    hand = state.hands[seat]
    asset = state.stacks[state.current_player][-1].asset
    mask[sp.draft_challenge()] = hand[asset] > 0
    for w in range(sp.n_assets, sp.n_assets + sp.n_wilds):  # the wilds (Penny Jar included), not Swap/Move
        mask[sp.draft_challenge(w)] = hand[w] > 0
    mask[sp.draft_decline] = True


def legal_move(state: GameState, mask: np.ndarray, sp: ActionSpace) -> None:
    """Set the legal ids of the seat choosing for a Move turned up on a draft pile: both directions
    (the moving stack has at least two sets, else no choice is asked; module notes)."""
    mask[sp.draft_move("top_to_bottom")] = True
    mask[sp.draft_move("bottom_to_top")] = True


def apply(state: GameState, seat: int, d: Action, sp: ActionSpace, say: Say,
          done: Callable[[GameState, list[int], Say], None]) -> None:
    """Apply a draft action ``d`` of ``seat`` (legal, checked by the caller).

    ``done(state, draw_order, say)`` is called once the action is complete: it turns up the
    piles taken from (:func:`finish`) and ends the action (R-REFILL in ``draw_order``).
    """
    names = state.rules.deck.names
    public = state.public_mask
    if d.kind == "draft_move":  # the choice for a Move turned up on a draft pile (§7 with §6)
        chooser, target = state.draft_move
        state.draft_move = []
        moved = advanced.shift_stack(state, target, d.direction)
        where = "top set goes to the bottom" if d.direction == "top_to_bottom" else "bottom set goes on top"
        say(f"  seat {chooser} chooses for the Move: seat {target}'s {where} ({names[moved.asset]})")
        order, state.draft_then = state.draft_then, []
        done(state, order, say)
        return
    if d.kind == "draft_challenge":  # the R-CH-ALLOWED exception of R-2P-DRAFT / R-3P-DRAFT
        mover = state.current_player
        top = state.stacks[mover][-1]
        card = top.asset if d.partner < 0 else d.partner
        state.draft_offer = []
        state.challenge = Challenge(seat, mover, top.asset, [], [], to_act=seat)
        state.challenges += 1
        if state.rules.actions_per_turn > 1:  # R-ADV-TWO: it draws after the mover at the end of the turn
            state.turn_defenders.append(seat)
        say(f"  seat {seat} challenges the drafted set of {names[top.asset]} at once "
            f"(${top.value(state.rules.deck.values):,} at face value)")
        advanced.play_cards(state, seat, [card])  # a Penny Jar asks for two cards (R-ADV-PENNY)
        say(f"  seat {seat} shows {names[card]}")
        return
    if d.kind == "draft_decline":
        say(f"  seat {seat} lets the drafted set be")
        state.draft_offer.pop(0)
        _next_offer(state, sp.n_assets)
        if not state.draft_offer:
            done(state, [state.current_player], say)
        return
    # draft_take / draft_wild by the mover
    hidden = (1 << seat) if state.rules.hidden_wilds else public
    piles = take_piles(state, seat, d, sp.n_assets)
    taken = [state.draft_piles[j].pop() for j in piles]
    hand_card = d.card if d.kind == "draft_take" else d.partner
    state.hands[seat][hand_card] -= 1
    for j in piles:
        state.draft_down[j] = True
    if d.kind == "draft_take" and d.partner >= 0:  # a face-up wild beneath, the hand asset on top
        new = CardSet(d.card, [taken[0], d.card], [public, public])
    else:  # the hand card beneath the face-up drafted assets
        new = CardSet(d.card, [hand_card] + taken, [hidden] + [public] * len(taken))
    state.stacks[seat].append(new)
    state.played_this_turn[seat] = True
    say(f"seat {seat} drafts with {names[hand_card]}: takes "
        + ", ".join(f"{names[c]} from pile {j}" for c, j in zip(taken, piles, strict=True))
        + f" (a set of {names[d.card]}, ${new.value(state.rules.deck.values):,})")
    offer: list[int] = []
    for j in piles:
        o = other_neighbour(state, seat, j)
        if o not in offer:
            offer.append(o)
    if state.rules.draft == "neighbours" and len(offer) > 1:
        offer.sort(key=lambda o: (o - seat) % state.n_players)  # the left neighbour first
    state.draft_offer = offer
    _next_offer(state, sp.n_assets)
    if not state.draft_offer:
        done(state, [seat], say)


def _next_offer(state: GameState, n_assets: int) -> None:
    """Drop the seats at the head of the offer that cannot open a challenge (no matching asset, no wild)."""
    asset = state.stacks[state.current_player][-1].asset
    while state.draft_offer and not can_open(state, state.draft_offer[0], asset, n_assets):
        state.draft_offer.pop(0)


def finish(state: GameState, say: Say) -> bool:
    """Turn up the next card of every pile taken from this turn (R-2P-DRAFT); no-op without one.

    A Swap or Move turned up is carried out at once (:func:`_act`), leaves the game and the
    next card is turned (module notes). Returns False when a Move turned up waits for its
    choice (``state.draft_move``; the pile stays face-down until then and :func:`finish` is
    called again after the choice), True once every pile is turned up.
    """
    names = state.rules.deck.names
    for j, down in enumerate(state.draft_down):
        if not down:
            continue
        pile = state.draft_piles[j]
        while pile and _is_action(state, pile[-1]):
            card = pile.pop()
            state.removed.append(card)
            say(f"  draft pile {j} turns up {names[card]}: carried out at once, then it leaves the game")
            if _act(state, j, card, say):
                return False
        state.draft_down[j] = False
        if pile:
            say(f"  draft pile {j} turns up {names[pile[-1]]}")
        else:
            say(f"  draft pile {j} is empty")
    return True


def _act(state: GameState, pile: int, card: int, say: Say) -> bool:
    """Carry out the action card ``card`` turned up on ``pile`` (module notes); True when a Move waits for a choice.

    Swap: the two players beside the pile exchange top sets (nothing when either has none).
    Move: 2 players, the mover's stack moves and its opponent chooses; 3 players, the other
    player beside the pile's stack moves and the mover chooses (nothing with fewer than two sets).
    """
    mover = state.current_player
    other = other_neighbour(state, mover, pile)
    names, values = state.rules.deck.names, state.rules.deck.values
    if card == state.rules.advanced_ids.swap:
        if not (state.stacks[mover] and state.stacks[other]):
            say(f"  Swap: seat {mover} and seat {other} do not both have a set; nothing happens")
            return False
        mine, theirs = advanced.exchange_top_sets(state, mover, other)
        say(f"  Swap: seat {mover}'s top set of {names[mine.asset]} (${mine.value(values):,}) and seat {other}'s "
            f"top set of {names[theirs.asset]} (${theirs.value(values):,}) change places")
        return False
    chooser, target = (other, mover) if state.rules.draft == "shared" else (mover, other)
    if len(state.stacks[target]) < 2:
        say(f"  Move: seat {target} has fewer than two sets; nothing moves")
        return False
    state.draft_move = [chooser, target]
    return True


def leftover_value(state: GameState) -> int:
    """Dollars of the cards still in the draft piles; they score nothing (R-2P-DRAFT, R-SCORE invariant)."""
    v = state.rules.deck.values
    return sum(int(v[c]) for pile in state.draft_piles for c in pile)


def describe_tops(state: GameState) -> str:
    """``"; the draft piles show A, B, C"`` for a round-start log line ("" without a draft)."""
    if not state.draft_piles:
        return ""
    names = state.rules.deck.names
    shown = [names[c] if c >= 0 else "nothing" for c in (face_up_top(state, j) for j in range(len(state.draft_piles)))]
    gone = "; set aside at set-up: " + ", ".join(names[c] for c in state.removed) if state.removed else ""
    return "; the draft piles show " + ", ".join(shown) + gone
