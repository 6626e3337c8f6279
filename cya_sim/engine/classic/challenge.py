"""One challenge card shown from a hand, on one game row (R-CH-EXCHANGE, RULES.md §10).

The primitive that both the classic exchange (:func:`cya_sim.engine.classic.kernel._play_challenge_card`)
and the advanced two-card plays (:mod:`cya_sim.engine.classic.advanced`, R-ADV-PENNY, R-ADV-DEEP)
use: the card leaves ``seat``'s hand, joins the challenge cards and is shown to every seat. Who
answers next and how many cards they owe stay with the callers. It depends on the layout and
:mod:`.seen` only, so both rule modules can import it.
"""

from __future__ import annotations

from numba import njit

from cya_sim.engine.classic.layout import B_CHCARDS, B_CHPLAYERS, B_HANDS, B_HCOUNT, C_P, C_T, G_CH_LEN
from cya_sim.engine.classic.seen import reveal
from cya_sim.engine.jit import JIT


@njit(**JIT)
def show_challenge_card(K, G, seat, card):
    """``seat`` shows ``card`` in the open challenge (R-CH-EXCHANGE).

    Args:
        K: the engine constants (:class:`~cya_sim.engine.classic.layout.Consts`).
        G: one game row, (W,) int64, changed in place.
        seat: int, the seat playing the card (it holds ``card``).
        card: int, card type id.

    Takes the card from the hand (``B_HANDS``, ``B_HCOUNT``), appends it and its seat to the
    challenge cards (``B_CHCARDS``, ``B_CHPLAYERS``, ``G_CH_LEN``) and reveals it to every seat
    (face up, RULES.md §10). Raises nothing; the caller has checked legality.
    """
    L = K.lay
    G[L[B_HANDS] + seat * K.cfg[C_T] + card] -= 1
    G[L[B_HCOUNT] + seat] -= 1
    n = G[G_CH_LEN]
    G[L[B_CHCARDS] + n] = card
    G[L[B_CHPLAYERS] + n] = seat
    G[G_CH_LEN] = n + 1
    reveal(K, G, card, (1 << K.cfg[C_P]) - 1)
