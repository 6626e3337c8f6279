"""``card_counter`` and ``heuristic`` read from the row choose exactly what they choose on the agent view (issue 33).

Under the classic rules without §6 and §7 the compiled loops call the row forms
:func:`agents.classic.card_counter_row.card_counter_row` and :func:`agents.classic.heuristic_row.heuristic_row`,
which read the game row and skip the probabilities that cannot change their choice, instead of building the
seat's view and calling :func:`agents.classic.card_counter.card_counter_decide` or
:func:`agents.classic.heuristic.heuristic_decide`. At **every decision** of many games (its seats playing one of
the checked policies from the row, or, in a share of the games, uniformly random legal actions so that rarer
positions come up), for every classic preset without §6/§7, table sizes 2 to 12, hidden wilds on and off, the
row form must return the view form's action id for every parameter vector: ``card_counter`` with ``min_gain``
0, 5,000, 20,000, -5,000 dollars and ``infer_hidden`` true and false; ``heuristic`` with its defaults,
``wild_hoarder``'s switches, every switch on, and TIP-COUNT, TIP-WILD-FIRST, TIP-FAST-FIRST off, TIP-LET-GO and
TIP-COVER in turn. A tip or rule detail read differently from the row (an order of legal ids, a tie, a pruned
probability, a switch) fails here.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from agents.classic.card_counter_row import card_counter_row
from agents.classic.compiled import new_scratch
from agents.classic.compiled_strategy import STRATEGY_CARD_COUNTER, STRATEGY_HEURISTIC, decide_view, view_row
from agents.classic.heuristic import WILD_HOARDER, HeuristicConfig
from agents.classic.heuristic_row import heuristic_row
from cya_sim.engine.classic.kernel import apply_action, legal_list, new_game
from cya_sim.engine.classic.layout import C_ADV_ON, C_DRAFT, C_T, G_DONE, G_TO_ACT, make_consts, row_width
from cya_sim.engine.pcg import next_double, seed_stream
from cya_sim.game.rules import get_rules

CASES = ([("classic", p) for p in (2, 3, 4, 5, 6, 9, 12)] + [("guide", 3), ("guide", 4)]
         + [("basic", 2), ("basic", 6)])
#: (min_gain dollars, naive hidden) of card_counter's parameter vector (agents.classic.card_counter).
CC_PARAMS = np.array([[0.0, 0.0], [5000.0, 0.0], [20000.0, 0.0], [-5000.0, 0.0], [0.0, 1.0], [5000.0, 1.0]])
#: heuristic's switches (HeuristicConfig.to_array).
H_PARAMS = np.array([c.to_array() for c in (
    HeuristicConfig(), WILD_HOARDER, HeuristicConfig(count=True, backup=True),
    HeuristicConfig(fast_first=False, cover=True, pair_first=False, backup=True, count=True, save_wild=True,
                    wild_first=True, let_go=True, wild_for_sets=False, wild_for_challenges=False,
                    wild_for_defence=False),
    HeuristicConfig(fast_first=False, first_set_min=15_000, wild_first=True, count=True),
    HeuristicConfig(let_go=True, let_go_max=40_000, cover=True, cover_min=10_000, pair_first=False),
    HeuristicConfig(save_wild=True, wild_first=True, wild_for_defence=False))])
GAMES = 120


@njit(cache=True)
def _play_and_compare(K, G, rng, cc_params, h_params, play, random_play, sc, bad):
    """Play one game on row ``G``, checking every parameter vector of both policies at every decision; the
    decisions, or -1.

    The seat to act plays ``card_counter`` from the row with ``cc_params[play]`` (``play`` even) or ``heuristic``
    with ``h_params[play]`` (``play`` odd), or a uniformly random legal id when ``random_play``. On a difference
    ``bad`` gets (decision, seat, policy 0 card_counter / 1 heuristic, parameter row, row form's id, view form's id).
    """
    values = K.values[:K.cfg[C_T]]
    n = 0
    while G[G_DONE] == 0:
        seat = G[G_TO_ACT]
        view_row(K, G, seat, sc)
        for i in range(cc_params.shape[0] + h_params.shape[0]):
            if i < cc_params.shape[0]:
                a_row = card_counter_row(K, G, seat, cc_params[i])
                a_view = decide_view(STRATEGY_CARD_COUNTER, cc_params[i], sc.hdr, sc.hand, values, sc.unseen, sc.seats,
                                     sc.gave_up, sc.mask, sc.no_hands)
            else:
                j = i - cc_params.shape[0]
                a_row = heuristic_row(K, G, seat, h_params[j])
                a_view = decide_view(STRATEGY_HEURISTIC, h_params[j], sc.hdr, sc.hand, values, sc.unseen, sc.seats,
                                     sc.gave_up, sc.mask, sc.no_hands)
            if a_row != a_view:
                bad[0] = n
                bad[1] = seat
                bad[2] = 0 if i < cc_params.shape[0] else 1
                bad[3] = i if i < cc_params.shape[0] else i - cc_params.shape[0]
                bad[4] = a_row
                bad[5] = a_view
                return -1
        if random_play:
            k = legal_list(K, G, sc.ids)
            a = sc.ids[int(next_double(rng) * k)]
        elif play % 2 == 0:
            a = card_counter_row(K, G, seat, cc_params[(play // 2) % cc_params.shape[0]])
        else:
            a = heuristic_row(K, G, seat, h_params[(play // 2) % h_params.shape[0]])
        apply_action(K, G, rng, a)
        n += 1
    return n


@pytest.mark.parametrize("hidden", [True, False])
@pytest.mark.parametrize(("preset", "players"), CASES)
def test_row_forms_equal_view_forms_at_every_decision(preset, players, hidden):
    """TIP-COUNT and the other tips, R-CHALLENGE, R-CH-EXCHANGE, R-HIDDEN-WILD: the same id from the row and the view."""
    rules = get_rules(preset, hidden_wilds=hidden)
    k = make_consts(rules, players)
    assert k.cfg[C_ADV_ON] == 0 and k.cfg[C_DRAFT] == 0  # the presets the loops play from the row
    sc = new_scratch(k.cfg)
    row = np.zeros(row_width(k), np.int64)
    rng = np.zeros(4, np.uint64)
    bad = np.zeros(6, np.int64)
    decisions = 0
    for g in range(GAMES):
        row[:] = 0
        seed_stream(rng, 20261203, g, 0)
        new_game(k, row, rng)
        n = _play_and_compare(k, row, rng, CC_PARAMS, H_PARAMS, g // 4, g % 4 == 3, sc, bad)
        policy, params = ("card_counter", CC_PARAMS) if bad[2] == 0 else ("heuristic", H_PARAMS)
        assert n >= 0, (f"{preset} P={players} hidden_wilds={hidden} game {g}: decision {bad[0]}, seat {bad[1]}, "
                        f"{policy} params {params[bad[3]].tolist()}: row form {bad[4]}, view form {bad[5]}")
        decisions += n
    assert decisions > GAMES * 50


def test_a_deck_not_dealt_at_every_size_plays_the_view_form(tmp_path):
    """A custom deck with odd copies cannot be dealt above 6 players (R-DECK-MULTI, extra_deck_unit='pack'): where
    the record type of every table size is not known, card_counter and heuristic play their view forms, and a
    4-player game still plays (agents.classic.registry.plays_from_row)."""
    from agents.classic.compiled import POLICY_CARD_COUNTER, POLICY_HEURISTIC
    from agents.classic.registry import plays_from_row, policy_of
    from cya_sim.game.rules import load_deck
    from cya_sim.play.classic.batched import play_games

    (tmp_path / "odd.toml").write_text('name = "odd"\n' + "".join(
        f'[[cards]]\nname = "{n}"\nkind = "{k}"\nvalue = {v}\ncopies = {c}\n'
        for n, k, v, c in (("A", "asset", 5000, 11), ("B", "asset", 10000, 10), ("C", "asset", 15000, 10),
                           ("W", "wild", 25000, 6))))
    rules = get_rules("classic", deck=load_deck(tmp_path / "odd.toml"), max_players=8)
    assert not plays_from_row(POLICY_CARD_COUNTER, rules) and not plays_from_row(POLICY_HEURISTIC, rules)
    assert plays_from_row(POLICY_CARD_COUNTER, get_rules("classic"))
    assert policy_of("card_counter", rules)[1] != 0
    table = play_games(rules, ["card_counter", "wild_hoarder"], np.array([[0, 1, 0, 1]] * 4, np.int16), 5, np.arange(4))
    assert table.totals.shape == (4, 4)
