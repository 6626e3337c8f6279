"""Agents by spec: names, parameters, module:Class paths, compiled forms (issue: plug-in agents)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.classic.compiled import POLICY_CARD_COUNTER, POLICY_HEURISTIC, POLICY_ORACLE
from agents.classic.heuristic import HeuristicAgent, HeuristicConfig
from agents.classic.random_agent import RandomAgent
from agents.classic.registry import compiled_params, compiled_policy, is_cheating, make_agent
from agents.spec import parse_agent_spec
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules
from cya_sim.play import get_play_games


def test_spec_parsing_normalises_parameters():
    s = parse_agent_spec(" heuristic( backup = TRUE , cover_min=30000, label='x') ")
    assert s.name == "heuristic"
    assert s.kwargs == {"backup": True, "cover_min": 30000, "label": "x"}
    assert s.text == "heuristic(backup=true, cover_min=30000, label='x')"


@pytest.mark.parametrize(("spec", "message"), [
    ("heuristic(backup)", "key=value"),
    ("heuristic(backup=true, backup=false)", "given twice"),
    ("heuristic(backup=[1])", "true, false, a number or a quoted string"),
    ("9lives", "is not a spec"),
])
def test_bad_specs_are_refused_naming_the_problem(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_make_agent_with_parameters_and_unknown_parameters():
    agent = make_agent("heuristic(backup=true, save_wild=true)")
    assert isinstance(agent, HeuristicAgent)
    assert agent.config == HeuristicConfig(backup=True, save_wild=True)
    with pytest.raises(ValueError, match="bogus"):
        make_agent("heuristic(bogus=1)")
    with pytest.raises(ValueError, match="unknown agent 'nobody'; choose one of: random, greedy"):
        make_agent("nobody")


def test_module_class_path_builds_a_third_party_agent():
    assert isinstance(make_agent("agents.classic.random_agent:RandomAgent"), RandomAgent)
    with pytest.raises(ValueError, match="cannot import module"):
        make_agent("no_such_module:Agent")
    with pytest.raises(ValueError, match="has no 'Nope'"):
        make_agent("agents.classic.random_agent:Nope")


def test_compiled_forms_and_parameters():
    assert compiled_policy("heuristic(count=true)") == POLICY_HEURISTIC
    assert compiled_policy("wild_hoarder") == POLICY_HEURISTIC
    assert compiled_policy("card_counter(min_gain=5000)") == POLICY_CARD_COUNTER
    assert compiled_policy("oracle(cheats=true)") == POLICY_ORACLE
    assert compiled_policy("agents.classic.random_agent:RandomAgent") is None
    p = compiled_params("heuristic(count=true)")
    np.testing.assert_array_equal(p[:14], HeuristicConfig(count=True).to_array())
    assert compiled_params("card_counter(min_gain=5000)")[0] == 5000


def test_oracle_is_only_available_labelled():
    assert is_cheating("oracle(cheats=true)")
    assert not is_cheating("card_counter")
    with pytest.raises(ValueError, match=r"oracle\(cheats=true\)"):
        make_agent("oracle")


def test_parameterised_and_plugin_agents_play_identically_in_both_engines():
    agents = ["heuristic(pair_first=false, cover=true)", "card_counter(min_gain=2000)",
              "agents.classic.greedy:GreedyAgent", "oracle(cheats=true)"]
    seat_agent = np.array([np.roll([0, 1, 2, 3], g) for g in range(8)], np.int16)
    games = np.arange(8)
    a = get_play_games("batched")(get_rules(), agents, seat_agent, root_key(8), games)
    b = get_play_games("reference")(get_rules(), agents, seat_agent, root_key(8), games)
    assert a.equals(b)


def test_unknown_agent_parameter_lists_the_allowed_ones():
    """A parameter the agent does not take is named, with the parameters it does take."""
    import pytest as _pytest

    from agents.classic.registry import make_agent as _make

    with _pytest.raises(ValueError, match=r"unknown parameter\(s\) bogus; ismcts takes: iterations, time_s"):
        _make("ismcts(iterations=20, bogus=1)")
    with _pytest.raises(ValueError, match=r"unknown parameter\(s\) x; greedy takes: none"):
        _make("greedy(x=1)")
