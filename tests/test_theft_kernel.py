"""The compiled theft kernel, agents, view and batched API against the reference, position by position (RULES.md §9).

Where ``tests/test_theft_differential.py`` compares whole games, these tests compare states: after every
action of random walks the row read back (:func:`cya_sim.engine.theft.rows.row_to_state`) equals the reference
state — hands, piles in order, assets and who knows their face-down card, counters —, the compiled legal
mask equals the reference's, the compiled agents pick what the Python agents pick and the compiled view
equals the view of the reference observation. Hand-built defence positions hold every combination of the
four defence options of R-T-TURN to the reference, action by action.
"""

from __future__ import annotations

import itertools
import sys
import textwrap

import numpy as np
import pytest
from theft_helpers import asset, tstate

from agents.theft.compiled import POLICY_DEFENDER, POLICY_GREEDY, POLICY_RANDOM, act_once, new_theft_scratch
from agents.theft.registry import make_theft_agent
from agents.theft.view import build_view, build_view_row
from cya_sim.engine.pcg import stream_array
from cya_sim.engine.theft import kernel as kn
from cya_sim.engine.theft.layout import C_A, make_consts, row_width
from cya_sim.engine.theft.legal import action_space, legal_action_mask
from cya_sim.engine.theft.observation import observe
from cya_sim.engine.theft.reference import apply_action, new_game
from cya_sim.engine.theft.rows import rng_to_stream, row_to_state, state_to_row, stream_to_rng
from cya_sim.game.rng import root_key
from cya_sim.game.theft.rules import TheftRuleSet

KEY = root_key(77)
OPTION_LINES = (
    {}, {"compulsory_defence": True}, {"give_up_pair_only": True}, {"gold_theft_cancel": "single_gold"},
    {"cancel_pair_value": "target_value"}, {"protect_last_asset": True, "defend_with_targeted_asset": False},
    {"defend_with_asset": False, "gold_gold_pair": True}, {"end_of_turn": "discard_and_draw_up"},
    {"end_of_turn": "keep", "max_thefts_per_turn": 1}, {"max_turns": 4},
    {"numbers": 5, "copies_per_number": 4, "gold_cards": 2, "plain_thefts": 8, "gold_thefts": 2},
    {"numbers": 12, "copies_per_number": 8, "gold_value": 4, "hand_size": 7, "draw_per_turn": 1},
    {"gold_cards": 0, "gold_thefts": 0, "assets_to_end": 2},
    {"max_players": 12, "min_players": 7},
)


def _rules(options: dict) -> TheftRuleSet:
    return TheftRuleSet().with_options(**options) if options else TheftRuleSet()


def _check_same(rules, k, g, stream, ref, where: str) -> np.ndarray:
    """Assert row == reference state, masks and is_legal equal; return the mask."""
    assert row_to_state(rules, k, g, stream) == ref, where
    mask = np.zeros(int(k.cfg[C_A]), bool)
    kn.legal_mask(k, g, mask, np.zeros(mask.shape[0], np.int64))
    ref_mask = legal_action_mask(ref)
    assert np.array_equal(mask, ref_mask), f"{where}: {np.flatnonzero(mask)} vs {np.flatnonzero(ref_mask)}"
    assert [a for a in range(mask.shape[0]) if kn.is_legal(k, g, a)] == np.flatnonzero(ref_mask).tolist(), where
    return ref_mask


def test_r_t_setup_same_deal_and_first_player_as_reference():
    """R-T-DECK, R-T-SETUP: the first player, every hand and the draw pile in order equal the reference's."""
    rules = TheftRuleSet()
    for p in (2, 3, 4, 5, 6):
        k = make_consts(rules, p)
        for gi in range(40):
            g = np.zeros(row_width(k), np.int64)
            st = stream_array(KEY, gi * 7919 + p, 0)
            kn.new_game(k, g, st)
            ref = new_game(rules, p, KEY, gi * 7919 + p)
            s = row_to_state(rules, k, g, st)
            assert s == ref and s.first_player == ref.first_player and s.draw_pile == ref.draw_pile
            assert np.array_equal(st, rng_to_stream(ref.rng))  # the same draws taken from the engine stream


@pytest.mark.parametrize("options", OPTION_LINES, ids=lambda o: ",".join(o) or "default")
def test_random_walks_state_mask_agents_and_view_equal_reference(options):
    """Random legal actions in both engines: after every action the row equals the reference state (R-T-SETUP …
    R-T-END, reshuffles included), the masks agree, ``greedy`` and ``defender`` pick what agents/theft/registry.py picks,
    ``random`` draws the same number from the same stream, and every seat's compiled view equals the view of its
    reference observation (RULES.md §10)."""
    rules = _rules(options)
    rng = np.random.default_rng(len(str(options)))
    greedy, defender, rand = (make_theft_agent(n) for n in ("greedy", "defender", "random"))
    steps = 0
    for gi in range(12):
        p = rules.min_players + gi % (rules.max_players - rules.min_players + 1)
        k = make_consts(rules, p)
        sc = new_theft_scratch(k)
        params = np.zeros(16)
        g = np.zeros(row_width(k), np.int64)
        st = stream_array(KEY, gi, 0)
        kn.new_game(k, g, st)
        ref = new_game(rules, p, KEY, gi)
        while True:
            mask = _check_same(rules, k, g, st, ref, f"{options} game {gi} step {steps}")
            for seat in range(p):
                obs = observe(ref, seat)
                hdr, hand, values, unseen, assets, vmask = build_view(obs)
                build_view_row(k, g, seat, sc.hdr, sc.hand, sc.unseen, sc.assets, sc.mask, sc.ids)
                assert np.array_equal(hdr, sc.hdr) and np.array_equal(hand, sc.hand)
                assert np.array_equal(unseen, sc.unseen) and np.array_equal(assets, sc.assets)
                assert np.array_equal(vmask, sc.mask) and np.array_equal(values, k.values[: rules.n_types])
            if ref.to_act < 0:
                break
            obs = observe(ref, ref.to_act)
            z = np.zeros(4, np.uint64)
            for code, agent in ((POLICY_GREEDY, greedy), (POLICY_DEFENDER, defender)):
                assert act_once(code, 0, k, g, ref.to_act, params, z, sc) == agent.act(obs, None), (options, gi, steps)
            seat_rng = stream_array(KEY, 1000 + steps, 1)
            py_rng = stream_to_rng(seat_rng)
            assert act_once(POLICY_RANDOM, 0, k, g, ref.to_act, params, seat_rng, sc) == rand.act(obs, py_rng)
            a = int(rng.choice(np.flatnonzero(mask)))
            apply_action(ref, a)
            kn.apply_action(k, g, st, a)
            steps += 1
    assert steps > 100


DEFENCE_OPTIONS = ("compulsory_defence", "give_up_pair_only", "gold_theft_cancel", "cancel_pair_value")


@pytest.mark.parametrize("combo", list(itertools.product((False, True), repeat=4)),
                         ids=lambda c: "".join("CPGV"[i] if x else "-" for i, x in enumerate(c)))
def test_r_t_turn_defence_options_every_combination_action_by_action(combo):
    """R-T-TURN defence under each of the 16 combinations of compulsory_defence, give_up_pair_only,
    gold_theft_cancel = single_gold and cancel_pair_value = target_value, against a plain and a gold theft: the
    same legal answers, and every answer leaves the same state in both engines (discard order, cancels, the
    asset and its hidden card passing to the thief)."""
    options = {"compulsory_defence": combo[0], "give_up_pair_only": combo[1],
               "gold_theft_cancel": "single_gold" if combo[2] else "pair_with_gold",
               "cancel_pair_value": "target_value" if combo[3] else "any"}
    hands = (["3", "3", "5", "Gold"], ["4", "Gold", "6", "6"], ["Gold", "7"], ["5", "5", "2"])
    assets = [asset("9", "3", known_by=[[1], [0, 1, 2]]), asset("4", "Gold"), asset("5", "5")]
    answers = set()
    for card, hand, slot in itertools.product(("Theft", "Gold Theft"), hands, range(3)):
        state = tstate(players=3, hands=[["1"], hand, []], assets=[[asset("8", "8")], assets, []], phase="defence",
                       theft={"thief": 0, "target": 1, "slot": slot, "card": card}, options=options)
        state.rng = np.random.default_rng(5)
        k, g, st = state_to_row(state)
        mask = _check_same(state.rules, k, g, st, state, f"{card} {hand} #{slot}")
        sp = action_space(state.rules)
        for a in np.flatnonzero(mask).tolist():
            ref = tstate(players=3, hands=[["1"], hand, []], assets=[[asset("8", "8")], assets, []], phase="defence",
                         theft={"thief": 0, "target": 1, "slot": slot, "card": card}, options=options)
            ref.rng = np.random.default_rng(5)
            g2, st2 = g.copy(), st.copy()
            apply_action(ref, a)
            kn.apply_action(k, g2, st2, a)
            _check_same(state.rules, k, g2, st2, ref, f"{card} {hand} #{slot} {sp.name(a)}")
            answers.add(sp.decode(a).kind)
    assert {"cancel_pair", "give_up_asset"} <= answers
    assert ("cancel_gold" in answers) == combo[2]
    assert ("let_pass" in answers) or combo[0]


def test_r_t_turn_reshuffle_and_r_t_end_from_hand_built_positions():
    """R-T-TURN: an empty draw pile takes the discard pile shuffled with the engine's stream (the same new pile);
    R-T-END: three assets at the end of a turn give every other seat one more turn, then the points decide."""
    state = tstate(players=3, hands=[["7", "7", "8", "8", "9", "9"], ["1"], ["2"]], draw_pile=[],
                   discard_pile=["3", "4", "5", "6", "10"], assets=[[asset("2", "3")], [], []])
    state.rng = np.random.default_rng(11)
    k, g, st = state_to_row(state)
    names = action_space(state.rules).names()
    for name in ("build:7+7", "build:8+8", "end_turn", "end_turn"):
        a = names.index(name)
        apply_action(state, a)
        kn.apply_action(k, g, st, a)
        _check_same(state.rules, k, g, st, state, name)
    assert state.final_turns_left == 1 and state.trigger_seat == 0 and state.turns == 2
    assert len(state.draw_pile) > 0 and row_to_state(state.rules, k, g, st).draw_pile == state.draw_pile


def test_batched_step_api_refuses_illegal_and_non_integer_actions():
    """The step API applies only legal actions: an illegal one names the game, seat, agent and action; floats and
    bools are refused; results do not depend on the batch size."""
    from cya_sim.engine.theft.batched import TheftIllegalBatchActionError, init, step

    rules = TheftRuleSet()
    st = init(rules, 3, 2, KEY, np.array([5, 6]), np.zeros((2, 3), np.int16), ["greedy"])
    with pytest.raises(TheftIllegalBatchActionError, match=r"agent 'greedy' at seat \d in game 5 returned illegal "
                                                           r"action \d+ \(end_turn\)"):
        step(st, np.array([action_space(rules).end_turn, 0]))
    with pytest.raises(ValueError, match="integer action ids"):
        step(st, np.zeros(2, float))
    from cya_sim.play.theft.batched import play_theft_games_batched

    sa = np.random.default_rng(0).integers(0, 3, (300, 4))
    a = play_theft_games_batched(rules, ["random", "greedy", "defender"], sa, KEY, np.arange(300), batch_size=256)
    b = play_theft_games_batched(rules, ["random", "greedy", "defender"], sa, KEY, np.arange(300), batch_size=1)
    assert a.equals(b) and a.totals.sum() > 0 and (a.turns > 0).all()


PLUGIN = textwrap.dedent('''
    import numba
    from agents.theft.view import H_A, H_A_BUILD, H_A_END, H_A_THEFT
    from agents.classic.view import uniform


    @numba.njit(cache=True)
    def decide(params, hdr, hand, values, unseen, assets, mask, rng):
        """Build when it can; else a random legal action (params[0] > 0: the last legal id instead)."""
        for a in range(hdr[H_A_BUILD], hdr[H_A_THEFT]):
            if mask[a]:
                return a
        n = 0
        for a in range(hdr[H_A]):
            if mask[a]:
                n += 1
        if params[0] > 0:
            for a in range(hdr[H_A] - 1, -1, -1):
                if mask[a]:
                    return a
        k = int(uniform(rng) * n)
        for a in range(hdr[H_A]):
            if mask[a]:
                if k == 0:
                    return a
                k -= 1
        return -1


    @numba.njit(cache=True)
    def ends_at_once(params, hdr, hand, values, unseen, assets, mask, rng):
        """Always ends its turn: illegal while the first assets are laid."""
        return hdr[H_A_END]
''')


def test_theft_plugin_plays_alike_on_both_engines(tmp_path, monkeypatch):
    """A compiled theft plug-in (``module:function`` over the theft agent view, agents/theft/view.py) plays on the
    batched engine through its C address and on the reference engine through TheftViewPolicyAgent: the same games,
    parameters included."""
    from cya_sim.play.theft.batched import play_theft_games_batched
    from cya_sim.play.theft.reference import play_theft_games

    (tmp_path / "my_theft_plugin.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path / "cache"))
    try:
        rules = TheftRuleSet()
        agents = ["my_theft_plugin:decide", "greedy", "my_theft_plugin:decide(last=1)"]
        sa = np.random.default_rng(3).integers(0, 3, (120, 3))
        a = play_theft_games_batched(rules, agents, sa, KEY, np.arange(120))
        b = play_theft_games(rules, agents, sa, KEY, np.arange(120))
        assert a.equals(b) and a.decisions.sum() > 0
        from cya_sim.engine.theft.reference import TheftIllegalActionError

        for play in (play_theft_games_batched, play_theft_games):
            with pytest.raises(TheftIllegalActionError, match=r"agent 'my_theft_plugin:ends_at_once' at seat \d in "
                                                              r"game 0 returned illegal action \d+ \(end_turn\)"):
                play(rules, ["my_theft_plugin:ends_at_once"], np.zeros((1, 3), np.int16), KEY, np.arange(1))
    finally:
        sys.modules.pop("my_theft_plugin", None)


class StubbornTheftAgent:
    """A Python theft agent (module:Class): ends its turn at once, lets every theft pass, else greedy."""

    name = "stubborn"

    def __init__(self):
        self.greedy = make_theft_agent("greedy")

    def act(self, obs, rng):
        sp = obs.action_space
        if obs.legal_action_mask[sp.end_turn]:
            return sp.end_turn
        if obs.legal_action_mask[sp.let_pass]:
            return sp.let_pass
        return self.greedy.act(obs, rng)


def test_python_theft_agent_on_the_batched_engine_equals_reference():
    """A ``module:Class`` theft agent plays on the batched engine step by step (its observation read from the row):
    the same games as the reference play."""
    from cya_sim.play.theft.batched import play_theft_games_batched
    from cya_sim.play.theft.reference import play_theft_games

    rules = TheftRuleSet()
    agents = ["test_theft_kernel:StubbornTheftAgent", "random", "defender"]
    sa = np.random.default_rng(4).integers(0, 3, (40, 4))
    a = play_theft_games_batched(rules, agents, sa, KEY, np.arange(40))
    b = play_theft_games(rules, agents, sa, KEY, np.arange(40))
    assert a.equals(b)


def test_theft_engine_choice_and_warm_up():
    """``family_of(rules).play_games`` plays theft on the batched engine when asked and on the reference when asked;
    ``resolve_engine`` resolves ``auto`` to batched; the warm-up lists the theft play loop."""
    from cya_sim.play.families import family_of
    from cya_sim.play.theft.batched import play_theft_games_batched
    from cya_sim.play.theft.reference import play_theft_games
    from cya_sim.runs.experiment import resolve_engine
    from cya_sim.runs.warmup import kernels_for

    rules = TheftRuleSet()
    assert family_of(rules).play_games("batched").__wrapped__ is play_theft_games_batched  # inside the setting check
    assert family_of(rules).play_games("reference").__wrapped__ is play_theft_games
    assert resolve_engine("auto", rules) == ("batched", "")
    assert resolve_engine("batched", rules) == ("batched", "")
    assert resolve_engine("reference", rules) == ("reference", "")
    labels = [k.label for k in kernels_for([rules], [4], ["greedy", "defender"], "batched")]
    assert labels == ["theft play loop (the theft rules kernel, random, greedy, defender)"]
    assert kernels_for([rules], [4], ["greedy"], "reference") == []


def test_agents_readme_theft_plugin_example_plays_alike_on_both_engines(tmp_path, monkeypatch):
    """The theft plug-in example of agents/README.md, with a parameter, plays the same games on both engines and
    steals (its thefts are counted)."""
    import re
    from pathlib import Path

    from cya_sim.play.theft.batched import play_theft_games_batched
    from cya_sim.play.theft.reference import play_theft_games

    text = (Path(__file__).resolve().parents[1] / "agents" / "README.md").read_text()
    src = re.search(r"<!-- theft-plugin-example -->\s*```python\n(.*?)```", text, re.DOTALL).group(1)
    (tmp_path / "my_theft_policy.py").write_text(src)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path / "cache"))
    try:
        rules = TheftRuleSet()
        agents = ["my_theft_policy:decide(min_points=8)", "greedy"]
        sa = np.random.default_rng(9).integers(0, 2, (150, 4))
        a = play_theft_games_batched(rules, agents, sa, KEY, np.arange(150))
        b = play_theft_games(rules, agents, sa, KEY, np.arange(150))
        assert a.equals(b) and a.thefts.sum() > 0
    finally:
        sys.modules.pop("my_theft_policy", None)


#: The theft example of agents/README.md in the first form of the interface (eight arguments, over ``mask``).
THEFT_FIRST_FORM = """
from numba import njit
from agents.theft.view import H_A, H_A_END, H_A_THEFT, H_M, H_P, H_S, H_SEAT, V_VALUE_SEEN

@njit(cache=True)
def decide(params, hdr, hand, values, unseen, assets, mask, rng):
    s, per_card = hdr[H_S], (hdr[H_M] - 1) * hdr[H_S]
    best, best_v = -1, params[0] - 1
    for a in range(hdr[H_A_THEFT], hdr[H_A_END]):
        i = (a - hdr[H_A_THEFT]) % per_card
        target = (hdr[H_SEAT] + i // s + 1) % hdr[H_P]
        if mask[a] and assets[target, i % s, V_VALUE_SEEN] > best_v:
            best, best_v = a, assets[target, i % s, V_VALUE_SEEN]
    if best >= 0:
        return best
    for a in range(hdr[H_A]):
        if mask[a]:
            return a
    return -1
"""


def test_theft_plugin_first_form_over_the_mask_equals_the_legal_ids_form(tmp_path, monkeypatch):
    """A theft plug-in of eight arguments (no ``legal``) still plays, and the README's form over the legal ids is the
    same policy: the same games on both engines."""
    import re
    from pathlib import Path

    from cya_sim.play.theft.batched import play_theft_games_batched
    from cya_sim.play.theft.reference import play_theft_games

    text = (Path(__file__).resolve().parents[1] / "agents" / "README.md").read_text()
    src = re.search(r"<!-- theft-plugin-example -->\s*```python\n(.*?)```", text, re.DOTALL).group(1)
    (tmp_path / "cya_theft_legal_form.py").write_text(src)
    (tmp_path / "cya_theft_first_form.py").write_text(THEFT_FIRST_FORM)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CYA_SIM_CACHE_DIR", str(tmp_path / "cache"))
    rules = TheftRuleSet()
    sa = np.random.default_rng(3).integers(0, 2, (60, 4))
    tables = [play(rules, [f"{form}:decide(min_points=8)", "greedy"], sa, KEY, np.arange(60))
              for form in ("cya_theft_first_form", "cya_theft_legal_form")
              for play in (play_theft_games_batched, play_theft_games)]
    assert all(t.equals(tables[0]) for t in tables) and tables[0].thefts.sum() > 0
