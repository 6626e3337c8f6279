"""No agent reads hidden information (issue: strategy agents).

At many decisions of random games in the batched engine, a twin of the row is
made that differs only in hidden cards: every card in the other seats' hands
and in the draw pile is shuffled among the same places (hand sizes kept).
The seat to act has the same observation in both; every non-cheating compiled
agent must choose the same action in both. ``oracle(cheats=true)`` is the
control: it reads the hands, so some twins change its choice.
"""

from __future__ import annotations

import numpy as np

from agents.classic.compiled import act_once, new_scratch
from agents.classic.registry import policy_of
from cya_sim.engine.classic import batched as api
from cya_sim.engine.classic.kernel import legal_mask
from cya_sim.game.rng import root_key
from cya_sim.game.rules import get_rules

HONEST = ["random", "greedy", "heuristic", "heuristic(count=true, backup=true, let_go=true, pair_first=false)",
          "wild_hoarder", "card_counter"]
ORACLE = "oracle(cheats=true)"


def _twin(state, rng):
    """A copy of row 0 with the other hands and the draw pile dealt anew (same sizes)."""
    twin = api.init(state.rules, state.n_players, 1, int(state.key[0]), game_indices=state.q_game_index,
                    seat_agent=state.q_seat_agent, agents=state.agent_names)
    for name in state.__dataclass_fields__:
        v = getattr(state, name)
        if isinstance(v, np.ndarray):
            getattr(twin, name)[...] = v
    seat = int(state.to_act[0])
    others = [s for s in range(state.n_players) if s != seat]
    pos = int(state.draw_pos[0])
    pool = list(state.deck_order[0, pos:])
    for s in others:
        for c, n in enumerate(state.hands[0, s]):
            pool += [c] * int(n)
    rng.shuffle(pool)
    k = 0
    for s in others:
        twin.hands[0, s, :] = 0
        for _ in range(int(state.hand_count[0, s])):
            twin.hands[0, s, pool[k]] += 1
            k += 1
    twin.deck_order[0, pos:] = pool[k:]
    return twin


def test_agents_decide_alike_on_states_that_differ_only_in_hidden_cards():
    agents = HONEST + [ORACLE]
    rules = get_rules("classic")
    rng = np.random.default_rng(1)
    oracle_changed = 0
    checked = 0
    for g in range(6):
        state = api.init(rules, 4, 1, root_key(33), game_indices=np.array([g]), agents=agents)
        k_ = state.consts
        sc = new_scratch(k_.cfg)
        while not bool(state.done[0]):
            seat = int(state.to_act[0])
            twin = _twin(state, rng)
            for a_idx, name in enumerate(agents):
                rng_copy = state.agent_rng.copy()
                twin.agent_rng[...] = rng_copy
                state.q_seat_agent[0, seat] = twin.q_seat_agent[0, seat] = a_idx
                code, addr, params = policy_of(name, rules)
                x = act_once(code, addr, k_, state.rows[0], seat, params, state.agent_rng[0, seat], sc)
                state.agent_rng[...] = rng_copy
                y = act_once(code, addr, k_, twin.rows[0], seat, params, twin.agent_rng[0, seat], sc)
                state.agent_rng[...] = rng_copy
                if name == ORACLE:
                    oracle_changed += x != y
                else:
                    assert x == y, f"{name} changed its action when only hidden cards changed (game {g})"
            checked += 1
            mask = np.zeros(state.action_space.size, bool)
            legal_mask(k_, state.rows[0], mask, np.zeros(state.action_space.size, np.int64))
            legal = np.flatnonzero(mask)
            api.step(state, np.array([legal[rng.integers(len(legal))]]))
    assert checked > 500
    assert oracle_changed > 0  # the test can see a policy that reads hidden cards
