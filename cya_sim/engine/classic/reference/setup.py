"""Setting up a game and each round (R-NEW-ROUND, R-SETUP, R-DECK-MULTI)."""

from __future__ import annotations

from cya_sim.engine.classic.reference import draft
from cya_sim.game.classic.state import GameState
from cya_sim.game.rng import shuffle_in_place, stream_generator, uniform_index
from cya_sim.game.rules import RuleSet


def new_game(rules: RuleSet, n_players: int, key: int, game_index: int = 0) -> GameState:
    """A game at the first decision of round 1.

    Args:
        rules: the rule set. n_players: table size.
        key: 64-bit root key (:func:`cya_sim.game.rng.root_key` of the tournament seed).
        game_index: the game's global index; with ``key`` it fixes every card.

    The first dealer is ``floor(u * P)`` for the first draw ``u`` of the
    engine stream (R-SETUP: "chosen by the game's random seed").

    Raises:
        RulesError: ``n_players`` not allowed by ``rules``, or too few cards to deal at that size
            (:meth:`~cya_sim.game.rules.RuleSet.check_table`).
    """
    rules.check_table(n_players)
    hand_size = rules.hand_size_for(n_players)
    rng = stream_generator(key, game_index, 0)
    dealer = uniform_index(rng, n_players)
    state = GameState(
        rules=rules,
        n_players=n_players,
        hand_size=hand_size,
        deck_counts=rules.deck_counts(n_players),
        totals=[0] * n_players,
        round_wins=[0] * n_players,
        round=0,
        dealer=dealer,
        first_dealer=dealer,
        hands=[],
        draw_pile=[],
        discard_pile=[],
        stacks=[],
        current_player=0,
        rng=rng,
    )
    start_round(state)
    return state


def start_round(state: GameState) -> None:
    """Gather, shuffle and deal a new round (R-NEW-ROUND, R-SETUP).

    Every card is gathered and shuffled (cards in type-id order, then
    :func:`cya_sim.game.rng.shuffle_in_place`); ``hand_size`` cards are dealt one
    at a time from the top of the pile, starting left of the dealer; the next
    card starts the discard pile; the player left of the dealer moves first.
    Only the totals carry over. R-ADV-SETUP: a Swap or Move turned up as the
    first discard goes to ``state.removed`` and the next card is turned up.
    With draft piles (R-2P-DRAFT, R-3P-DRAFT) the piles are dealt
    first (:func:`cya_sim.engine.classic.reference.draft.deal_piles`), then the hands and the discard.
    """
    p = state.n_players
    cards = [t for t, n in enumerate(state.deck_counts) for _ in range(int(n))]
    shuffle_in_place(cards, state.rng)
    state.round += 1
    state.hands = [[0] * state.rules.deck.n_types for _ in range(p)]
    state.stacks = [[] for _ in range(p)]
    state.challenge = None
    state.played_this_turn = [False] * p
    state.gave_up = [[False] * state.rules.deck.n_types for _ in range(p)]
    state.removed = []
    k = draft.deal_piles(state, cards) if state.rules.draft != "none" else 0
    for _ in range(state.hand_size):
        for i in range(p):
            state.hands[(state.dealer + 1 + i) % p][cards[k]] += 1
            k += 1
    first_action = state.rules.deck.n_assets + state.rules.deck.n_wilds
    while cards[k] >= first_action:  # R-ADV-SETUP: a Swap or Move turned up leaves the game
        state.removed.append(cards[k])
        k += 1
    state.discard_pile = [cards[k]]
    state.draw_pile = cards[k + 1 :]
    state.current_player = (state.dealer + 1) % p
    state.actions_left = state.rules.actions_per_turn
    state.no_challenge = -1
    state.turn_defenders = []

