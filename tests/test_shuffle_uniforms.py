"""The inverse of the reference shuffle (cya_sim.game.rng.shuffle_uniforms): the uniforms an OpenSpiel chance node
feeds the engine make shuffle_in_place produce the order it chose, for both games' decks (with repeated card
types)."""

from __future__ import annotations

import numpy as np

from cya_sim.game.rng import shuffle_in_place, shuffle_uniforms


class _Feed:
    def __init__(self, us):
        self.us = list(us)

    def random(self, n):
        out, self.us = np.array(self.us[:n]), self.us[n:]
        return out


def test_the_uniforms_make_the_shuffle_give_the_chosen_order():
    rng = np.random.default_rng(7)
    for n in (0, 1, 2, 5, 40, 110):
        initial = sorted(int(t) for t in rng.integers(0, 12, n))  # repeated types, as in a deck
        for _ in range(20):
            order = [int(c) for c in rng.permutation(initial)]
            us = shuffle_uniforms(initial, order)
            assert len(us) == max(n - 1, 0) and all(0.0 <= u < 1.0 for u in us)
            cards = list(initial)
            shuffle_in_place(cards, _Feed(us))
            assert cards == order
