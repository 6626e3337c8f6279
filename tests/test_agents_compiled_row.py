"""``card_counter`` read from the row chooses exactly what ``card_counter`` on the agent view chooses (issue 33).

Under the classic rules without §6 and §7 the compiled loops call
:func:`agents.classic.card_counter_row.card_counter_row`, which reads the game row and skips the probabilities
that cannot change its choice, instead of building the seat's view and calling
:func:`agents.classic.card_counter.card_counter_decide`. At **every decision** of many games (every seat of
which plays ``card_counter`` from the row, or, in a share of the games, uniformly random legal actions so that
rarer positions come up), for every classic preset without §6/§7, table sizes 2 to 12, hidden wilds on and off,
and several parameter vectors (``min_gain`` 0, 5,000, 20,000, -5,000 dollars; ``infer_hidden`` true and false),
the row form must return the view form's action id. A TIP-COUNT or R-CH-ALLOWED detail read differently from
the row (an order of legal ids, a tie, a pruned probability) fails here.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from agents.classic.card_counter_row import card_counter_row
from agents.classic.compiled import new_scratch
from agents.classic.compiled_strategy import STRATEGY_CARD_COUNTER, decide_view, view_row
from cya_sim.engine.classic.kernel import apply_action, legal_list, new_game
from cya_sim.engine.classic.layout import C_ADV_ON, C_DRAFT, C_T, G_DONE, G_TO_ACT, make_consts, row_width
from cya_sim.engine.pcg import next_double, seed_stream
from cya_sim.game.rules import get_rules

CASES = ([("classic", p) for p in (2, 3, 4, 5, 6, 9, 12)] + [("guide", 3), ("guide", 4)]
         + [("basic", 2), ("basic", 6)])
#: (min_gain dollars, naive hidden) of card_counter's parameter vector (agents.classic.card_counter).
PARAMS = np.array([[0.0, 0.0], [5000.0, 0.0], [20000.0, 0.0], [-5000.0, 0.0], [0.0, 1.0], [5000.0, 1.0]])
GAMES = 120


@njit(cache=True)
def _play_and_compare(K, G, rng, params, play, random_play, sc, bad):
    """Play one game on row ``G``, checking every parameter vector at every decision; the decisions, or -1.

    The seat to act plays ``card_counter`` from the row with ``params[play]``, or a uniformly random legal id when
    ``random_play``. On a difference ``bad`` gets (decision, seat, parameter row, row form's id, view form's id).
    """
    values = K.values[:K.cfg[C_T]]
    n = 0
    while G[G_DONE] == 0:
        seat = G[G_TO_ACT]
        view_row(K, G, seat, sc)
        for i in range(params.shape[0]):
            a_row = card_counter_row(K, G, seat, params[i])
            a_view = decide_view(STRATEGY_CARD_COUNTER, params[i], sc.hdr, sc.hand, values, sc.unseen, sc.seats,
                                 sc.gave_up, sc.mask, sc.no_hands)
            if a_row != a_view:
                bad[0] = n
                bad[1] = seat
                bad[2] = i
                bad[3] = a_row
                bad[4] = a_view
                return -1
        if random_play:
            k = legal_list(K, G, sc.ids)
            a = sc.ids[int(next_double(rng) * k)]
        else:
            a = card_counter_row(K, G, seat, params[play])
        apply_action(K, G, rng, a)
        n += 1
    return n


@pytest.mark.parametrize("hidden", [True, False])
@pytest.mark.parametrize(("preset", "players"), CASES)
def test_row_form_equals_view_form_at_every_decision(preset, players, hidden):
    """TIP-COUNT, R-CHALLENGE, R-CH-EXCHANGE, R-HIDDEN-WILD: the same action id from the row and from the view."""
    rules = get_rules(preset, hidden_wilds=hidden)
    k = make_consts(rules, players)
    assert k.cfg[C_ADV_ON] == 0 and k.cfg[C_DRAFT] == 0  # the presets the loops play from the row
    sc = new_scratch(k.cfg)
    row = np.zeros(row_width(k), np.int64)
    rng = np.zeros(4, np.uint64)
    bad = np.zeros(5, np.int64)
    decisions = 0
    for g in range(GAMES):
        row[:] = 0
        seed_stream(rng, 20261203, g, 0)
        new_game(k, row, rng)
        n = _play_and_compare(k, row, rng, PARAMS, g % PARAMS.shape[0], g % 4 == 3, sc, bad)
        assert n >= 0, (f"{preset} P={players} hidden_wilds={hidden} game {g}: decision {bad[0]}, seat {bad[1]}, "
                        f"params {PARAMS[bad[2]].tolist()}: row form {bad[3]}, view form {bad[4]}")
        decisions += n
    assert decisions > GAMES * 50
