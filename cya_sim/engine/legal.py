"""The legal action mask of the seat to act, written once for every game from the game's ``legal_list`` hook."""

from __future__ import annotations

from cya_sim.engine.hooks import legal_list, per_game


@per_game
def legal_mask(K, G, mask, ids):
    """Fill ``mask`` ((A,) bool) with the legal action mask of the seat to act in row ``G`` ((W,) int64) of the game of
    ``K`` (its constants record); return the number of legal ids (int).

    ``ids`` ((A,) int64) is scratch for the game's ``legal_list`` hook (:mod:`cya_sim.engine.hooks`): it holds the
    legal ids, ascending, after the call. Compiled code of one game calls ``legal_mask.for_game(fields)`` (the game's
    kernel module exports it as its own ``legal_mask``).
    """
    for i in range(mask.shape[0]):
        mask[i] = False
    n = legal_list(K, G, ids)
    for i in range(n):
        mask[ids[i]] = True
    return n
