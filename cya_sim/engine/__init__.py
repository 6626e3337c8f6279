"""Game engines: the readable reference engine and the compiled rules (one kernel, batched rows).

The engines run actions; they do not know which policy chose them. Playing
whole games with agents is the play layer's (:func:`cya_sim.play.get_play_games`):
both engines give identical results for identical arguments.
"""

from __future__ import annotations

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
