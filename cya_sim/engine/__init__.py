"""Game engines: the readable reference engine and the compiled batched engine.

Both expose ``play_games(rules, agents, seat_agent, key, game_indices, progress=None) -> GameTable``
and give identical results for identical arguments.
"""

from __future__ import annotations

from collections.abc import Callable

ENGINES = ("batched", "reference")

#: Most card types in a deck the batched engine plays (its compiled agents keep a hand as a 64-bit
#: mask of card types); larger decks play on the reference engine.
MAX_BATCHED_CARD_TYPES = 62


def batched_refusal(rules) -> str:
    """Why the batched engine cannot play ``rules`` (a deck of too many card types), or "" if it can."""
    n = rules.deck.n_types
    if n > MAX_BATCHED_CARD_TYPES:
        return (f"deck {rules.deck.name!r} has {n} card types; the batched engine takes at most "
                f"{MAX_BATCHED_CARD_TYPES}")
    return ""


def get_play_games(engine: str) -> Callable:
    """The ``play_games`` function of an engine by name.

    Raises:
        ValueError: unknown engine; the message lists the allowed names.
    """
    if engine == "reference":
        from cya_sim.engine.reference import play_games
    elif engine == "batched":
        from cya_sim.engine.batched import play_games
    else:
        raise ValueError(f"unknown engine {engine!r}; choose one of: {', '.join(ENGINES)}")
    return play_games
