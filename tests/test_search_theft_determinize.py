"""The theft game's determinizer: every card conserved, the observation unchanged, exact marginals.

RULES.md §9 (R-T-DECK, R-T-SETUP, R-T-TURN) and §10: a determinization fills the other hands, the draw
pile and the face-down first-asset cards the observer does not know with its unseen cards, uniformly
among the consistent deals (:mod:`cya_sim.search.theft.determinize`).
"""

from __future__ import annotations

import numpy as np
import pytest
from theft_helpers import asset, tstate

from agents.theft.registry import make_theft_agent
from cya_sim.engine.theft.layout import B_DECK, C_NC, C_P, C_T, G_FIRST, field_view
from cya_sim.engine.theft.observation import observe
from cya_sim.engine.theft.reference import apply_action, new_game
from cya_sim.engine.theft.rows import row_to_state
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.search.theft.determinize import TheftDeterminizer
from cya_sim.search.tree import rng_state

OPTION_LINES = [{}, {"compulsory_defence": True, "gold_theft_cancel": "single_gold"},
                {"end_of_turn": "keep", "give_up_pair_only": True}]


def _observations(options: dict, players: int, games: int, seed: int = 3):
    """(first player, observation of one seat) at every decision of some games of random/greedy/defender seats,
    each seat in turn the observer (setup, play, defence and discard decisions all occur)."""
    rules = TheftRuleSet().with_options(**options)
    key = root_key(seed)
    out = []
    for g in range(games):
        st = new_game(rules, players, key, g)
        agents = [make_theft_agent(n) for n in ("random", "greedy", "defender", "random")[:players]]
        rngs = [stream_generator(key, g, 1 + s) for s in range(players)]
        step = 0
        while st.phase != "over":
            observer = step % players
            out.append((st.first_player, observe(st, observer)))
            s = st.to_act
            apply_action(st, agents[s].act(observe(st, s), rngs[s]))
            step += 1
    return out


def _card_counts(state) -> np.ndarray:
    """Cards of each type anywhere in a theft state: hands, draw and discard piles, assets, the pending theft."""
    r = state.rules
    n = np.zeros(r.n_types, np.int64)
    for h in state.hands:
        n += np.asarray(h, np.int64)
    for c in list(state.draw_pile) + list(state.discard_pile):
        n[c] += 1
    for row in state.assets:
        for a in row:
            for c in a.cards:
                n[c] += 1
    if state.theft is not None:
        n[state.theft.card] += 1
    return n


def _same_observation(a, b) -> None:
    for f in ("seat", "n_players", "phase", "current_player", "to_act", "assets", "discard_pile", "draw_size", "theft",
              "thefts_this_turn", "final_turns_left"):
        assert getattr(a, f) == getattr(b, f), f
    for f in ("hand", "hand_sizes", "unseen", "legal_action_mask"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f


@pytest.mark.parametrize("options", OPTION_LINES)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_determinized_row_conserves_every_card_and_keeps_the_observation(options, players):
    """Each sample, read back as a reference state, holds every card of the deck once (R-T-DECK) and gives the
    observer exactly its observation (hand, every asset it sees, piles, sizes, the pending theft, unseen cards,
    the legal actions of the reference engine); in the setup phase the template's first player is the true one."""
    rules = TheftRuleSet().with_options(**options)
    seen_phases = set()
    rng = rng_state(11, players)
    for first, obs in _observations(options, players, games=2)[::3]:
        if obs.phase == "over":
            continue
        seen_phases.add(obs.phase)
        det = TheftDeterminizer(obs)
        if obs.phase == "setup":  # R-T-SETUP: the first player, inferred from who has laid a first asset
            assert det.template[G_FIRST] == first
        for g in det.sample(rng, 3):
            st = row_to_state(rules, det.consts, g)
            assert np.array_equal(_card_counts(st), rules.counts)
            assert all(c < rules.n_asset_types for row in st.assets for x in row for c in x.cards)  # R-T-SETUP
            _same_observation(observe(st, obs.seat), obs)
    assert {"setup", "play", "defence"} <= seen_phases


def test_samples_depend_on_the_observation_only():
    """Two true states with one observation (a card of an opponent's hand swapped with one of the draw pile, and
    an opponent's face-down card swapped with another hand card) give identical samples for one stream."""
    kw = {"players": 3, "hands": [["3", "3", "Theft"], ["5", "9"], ["Gold", "2"]],
          "assets": [[asset("7", "8")], [asset("6", "1", known_by=[[1], [0, 1, 2]])], [asset("4", "4")]],
          "draw_pile": ["10", "2"], "rest": "draw"}
    a = tstate(**kw)
    kw2 = dict(kw, hands=[["3", "3", "Theft"], ["10", "9"], ["Gold", "6"]],
               assets=[[asset("7", "8")], [asset("2", "1", known_by=[[1], [0, 1, 2]])], [asset("4", "4")]],
               draw_pile=["5", "2"])
    b = tstate(**kw2)
    oa, ob = observe(a, 0), observe(b, 0)
    _same_observation(oa, ob)
    sa = TheftDeterminizer(oa).sample(rng_state(5), 20)
    sb = TheftDeterminizer(ob).sample(rng_state(5), 20)
    assert np.array_equal(sa, sb)


def test_marginals_match_the_exact_count_probabilities():
    """Over N = 20,000 samples each hidden card's law matches the count-based one (module docstring of
    :mod:`cya_sim.search.theft.determinize`): a face-down asset card is type c with probability U_c / U_a, a card
    of an opponent's hand or of the draw pile is asset type c with U_c (1 - H / U_a) / (U - H) and theft type c
    with U_c / (U - H). Tolerance: 5 standard errors of each frequency (of each mean count for a hand)."""
    p = 3
    st = tstate(players=p, hands=[["3", "3", "Theft", "Gold"], ["5", "9", "1"], ["Gold", "2", "Theft", "6", "6"]],
                assets=[[asset("7", "8")], [asset("6", "1", known_by=[[1], [0, 1, 2]]), asset("9", "9")],
                        [asset("4", "10", known_by=[[2], [0, 1, 2]]), asset("2", "5", known_by=[[2], [0, 1, 2]])]],
                draw_pile=["10", "2", "Gold Theft", "8", "8", "3", "Theft", "1", "4", "4"],
                discard_pile=["1", "1", "2", "3"], rest="draw")
    obs = observe(st, 0)
    det = TheftDeterminizer(obs)
    info, k = det.info, det.consts
    n = 20_000
    rows = det.sample(rng_state(2026, 1), n)
    t = int(k.cfg[C_T])
    u = info.unseen.astype(np.float64)
    na = info.n_asset_types
    h = info.slot_pos.shape[0]
    assert h == 3  # seat 1's and seat 2's face-down cards
    ua, ut = u[:na].sum(), u.sum()
    p_slot = np.zeros(t)
    p_slot[:na] = u[:na] / ua
    p_free = u * np.where(np.arange(t) < na, 1 - h / ua, 1.0) / (ut - h)
    assert abs(p_free.sum() - 1) < 1e-12
    for i in range(h):  # each face-down card
        freq = np.bincount(rows[:, info.slot_pos[i]], minlength=t)[:t] / n
        tol = 5 * np.sqrt(p_slot * (1 - p_slot) / n) + 1e-12
        assert (np.abs(freq - p_slot) <= tol).all(), (i, freq, p_slot)
    hands = field_view(k, rows, "hands")  # (n, P, T)
    for s in range(1, p):
        size = int(info.hand_sizes[s])
        mean = hands[:, s, :].mean(axis=0)
        tol = 5 * np.sqrt(size * p_free * (1 - p_free) / n) + 1e-12
        assert (np.abs(mean - size * p_free) <= tol).all(), (s, mean, size * p_free)
    top = rows[:, int(k.lay[B_DECK]) + int(k.cfg[C_NC]) - info.draw_size]  # the next card drawn
    freq = np.bincount(top, minlength=t)[:t] / n
    assert (np.abs(freq - p_free) <= 5 * np.sqrt(p_free * (1 - p_free) / n) + 1e-12).all(), (freq, p_free)
    assert int(k.cfg[C_P]) == p


def test_inconsistent_observation_refused():
    """An observation whose unseen cards do not fill the hidden positions is refused with the field named."""
    from dataclasses import replace

    obs = observe(tstate(players=2, hands=[["3", "3"], ["5"]], rest="draw"), 0)
    bad = replace(obs, unseen=obs.unseen + np.eye(obs.unseen.shape[0], dtype=obs.unseen.dtype)[0])
    with pytest.raises(ValueError, match="observation field 'unseen' holds"):
        TheftDeterminizer(bad)
    with pytest.raises(ValueError, match="field 'phase' is 'over'"):
        TheftDeterminizer(replace(obs, phase="over"))
