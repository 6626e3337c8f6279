"""The agent view built in parts (issue 33): a policy's unread parts are left unbuilt, the parts it reads are the
whole view's.

``view_parts`` with any ``skip`` must fill every part not skipped exactly as ``view_row`` fills it, and leave the
skipped ones untouched; the parts a plug-in never names are found from its bytecode (conservatively), and each
built-in view policy's code carries the parts its decision functions take no argument for.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from agents.classic.compiled import (
    BUILTIN_SKIP,
    POLICY_CARD_COUNTER,
    POLICY_HEURISTIC,
    POLICY_ORACLE,
    ROW_FORM,
    VIEW_KIND,
    VIEW_SKIP_SHIFT,
    new_scratch,
    view_code,
)
from agents.classic.compiled_strategy import view_parts, view_row
from agents.classic.plugin import plugin_skip
from agents.classic.random_agent import RandomAgent
from agents.classic.registry import policy_of
from agents.classic.view import VIEW_GAVE_UP, VIEW_HAND, VIEW_LEGAL, VIEW_MASK, VIEW_SEATS, VIEW_UNSEEN
from agents.plugin import unread_arguments
from cya_sim.engine.classic import batched as api
from cya_sim.engine.classic.reference import apply_action, new_game
from cya_sim.engine.classic.reference.observation import observe
from cya_sim.game.rng import root_key, stream_generator
from cya_sim.game.rules import get_rules

PARTS = {VIEW_HAND: "hand", VIEW_UNSEEN: "unseen", VIEW_SEATS: "seats", VIEW_GAVE_UP: "gave_up", VIEW_MASK: "mask"}


@pytest.mark.parametrize(("preset", "players"), [("classic", 4), ("two_player_draft", 2), ("advanced", 3),
                                                   ("three_player_draft_advanced", 3)])
def test_parts_built_equal_the_whole_view_and_skipped_parts_stay(preset, players):
    rules = get_rules(preset)
    key = root_key(33)
    rng = np.random.default_rng(1)
    checked = 0
    for g in range(2):
        ref = new_game(rules, players, key, g)
        bat = api.init(rules, players, 1, key, game_indices=np.array([g]), log_cap=0)
        k_, row = bat.consts, bat.rows[0]
        agent_rngs = [stream_generator(key, g, 1 + s) for s in range(players)]
        whole, part = new_scratch(k_.cfg), new_scratch(k_.cfg)
        while ref.to_act >= 0:
            seat = ref.to_act
            skip = int(rng.integers(0, 64))
            for name in PARTS.values():  # the same noise in both views' parts: a skipped part must keep it
                noise = rng.integers(-9, 9, getattr(part, name).shape)
                getattr(part, name)[...] = noise
                getattr(whole, name)[...] = noise
            before = {name: getattr(part, name).copy() for name in PARTS.values()}
            view_row(k_, row, seat, whole)
            n_legal = view_parts(k_, row, seat, part, skip)
            np.testing.assert_array_equal(part.hdr, whole.hdr)
            if skip & VIEW_MASK and skip & VIEW_LEGAL:
                assert n_legal == 0
            else:  # the legal ids, ascending, built with the mask or alone (a plug-in that reads `legal` only)
                np.testing.assert_array_equal(part.ids[:n_legal], np.flatnonzero(whole.mask), err_msg=f"skip {skip}")
            for bit, name in PARTS.items():
                got, want = getattr(part, name), getattr(whole, name)
                if skip & bit:
                    np.testing.assert_array_equal(got, before[name], err_msg=f"{name}, skip {skip}")
                else:
                    np.testing.assert_array_equal(got, want, err_msg=f"{name}, skip {skip}")
            checked += 1
            action = RandomAgent().act(observe(ref, seat), agent_rngs[seat])
            apply_action(ref, action)
            api.step(bat, np.array([action]))
    assert checked > 100


@njit(cache=False)
def _reads_all(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    return hand[0] + unseen[0] + seats[0, 0] + gave_up[0, 0] + mask[0] + params[0] + hdr[0] + values[0] + rng[0]


@njit(cache=False)
def _helper(h, m):
    return h[0] + m[0]


@njit(cache=False)
def _passes_on(params, hdr, hand, values, unseen, seats, gave_up, mask, rng):
    return _helper(hand, mask)  # passed to a helper: read


@njit(cache=False)
def _other_names(p, h, my_hand, v, u, s, g, legal, r):  # the positions count, not the names
    return legal[h[0]]


@njit(cache=False)
def _star(*args):
    return 0


@njit(cache=False)
def _reads_legal(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, legal):  # the ten-argument form
    return legal[0] + hdr[0]


@njit(cache=False)
def _ten_reads_mask(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, legal):
    return mask[0]


@njit(cache=False)
def _knob(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, k=1):  # written before `legal`
    return mask[k]


@njit(cache=False)
def _legal_default(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, legal=None):
    return legal[0]


@njit(cache=False)
def _ids(params, hdr, hand, values, unseen, seats, gave_up, mask, rng, ids):
    return ids[0]


def test_the_tenth_parameter_gets_legal_without_a_default_or_by_its_name():
    from agents.classic.plugin import takes_legal

    assert takes_legal(_reads_legal) and takes_legal(_ids) and takes_legal(_legal_default)
    assert not takes_legal(_knob) and not takes_legal(_reads_all) and not takes_legal(_star)
    assert plugin_skip(_knob) & VIEW_LEGAL and not plugin_skip(_ids) & VIEW_LEGAL


def test_unread_arguments_are_the_ones_the_source_never_names():
    assert unread_arguments(_reads_all) == frozenset()
    assert unread_arguments(_passes_on) == frozenset({0, 1, 3, 4, 5, 6, 8})
    assert unread_arguments(_other_names) == frozenset({0, 2, 3, 4, 5, 6, 8})
    assert unread_arguments(_star) == frozenset()  # *args: every argument may be read
    assert unread_arguments(lambda *a: 0) == frozenset()  # not a compiled function: every argument
    # a function of nine arguments never gets the legal ids (the first form of the interface)
    assert plugin_skip(_reads_all) == VIEW_LEGAL
    assert plugin_skip(_passes_on) == VIEW_UNSEEN | VIEW_SEATS | VIEW_GAVE_UP | VIEW_LEGAL
    assert plugin_skip(_other_names) == VIEW_HAND | VIEW_UNSEEN | VIEW_SEATS | VIEW_GAVE_UP | VIEW_LEGAL
    assert plugin_skip(_star) == VIEW_LEGAL
    assert plugin_skip(_reads_legal) == VIEW_HAND | VIEW_UNSEEN | VIEW_SEATS | VIEW_GAVE_UP | VIEW_MASK
    assert plugin_skip(_ten_reads_mask) == VIEW_HAND | VIEW_UNSEEN | VIEW_SEATS | VIEW_GAVE_UP | VIEW_LEGAL


def test_readme_example_leaves_five_parts_unbuilt(tmp_path, monkeypatch):
    from cya_sim.studies.bench import plugin_example_source

    (tmp_path / "cya_view_parts_example.py").write_text(plugin_example_source())
    monkeypatch.syspath_prepend(str(tmp_path))
    import cya_view_parts_example as mod

    # it reads hdr, values, legal and rng; not hand, unseen, seats, gave_up or mask
    assert plugin_skip(mod.decide) == VIEW_HAND | VIEW_UNSEEN | VIEW_SEATS | VIEW_GAVE_UP | VIEW_MASK


def test_builtin_codes_carry_their_unread_parts():
    rules = get_rules("classic")
    # under the classic rules card_counter and heuristic play from the row (ROW_FORM); their view codes elsewhere
    # none of them reads the legal ids (they read the mask)
    assert policy_of("card_counter", rules)[0] == view_code(POLICY_CARD_COUNTER, VIEW_LEGAL) | ROW_FORM
    heuristic_code = view_code(POLICY_HEURISTIC, VIEW_GAVE_UP | VIEW_LEGAL)
    assert policy_of("heuristic(count=true)", rules)[0] == heuristic_code | ROW_FORM
    assert policy_of("wild_hoarder", rules)[0] == heuristic_code | ROW_FORM
    advanced = get_rules("advanced")
    assert policy_of("card_counter", advanced)[0] == view_code(POLICY_CARD_COUNTER, VIEW_LEGAL)  # every other part
    assert policy_of("wild_hoarder", advanced)[0] == heuristic_code
    assert policy_of("oracle(cheats=true)", rules)[0] == view_code(POLICY_ORACLE,
                                                                   VIEW_UNSEEN | VIEW_GAVE_UP | VIEW_LEGAL)
    for kind, skip in BUILTIN_SKIP.items():
        code = view_code(kind, skip)
        assert code & VIEW_KIND == kind and code >> VIEW_SKIP_SHIFT == skip
    # under the advanced rules with draft piles greedy is the heuristic view policy
    assert policy_of("greedy", get_rules("two_player_draft_advanced"))[0] == heuristic_code
