"""Differential test: the batched theft engine plays the very games of the theft reference engine (RULES.md §9).

As ``tests/test_batched_differential.py`` does for the classic family, two checks over the rule
options of :data:`OPTIONS` (every defence option of R-T-TURN, the end-of-turn readings, the theft
limits, a small deck that reshuffles often, the turn cap) and table sizes 2–6, with ``random``,
``greedy`` and ``defender`` seated (a quarter of the games each agent alone, a quarter mixed):

- **Replay** (:func:`replay_games`): the batched engine plays with its compiled agents and logs every
  action; the reference engine replays each game's action list from the same deal
  (:func:`cya_sim.engine.theft.reference.new_game` with the same key and game index), every logged action must be
  in the reference's legal action mask at that step, and at the end the reference game must be over with
  the same first player (R-T-SETUP), points and winners (R-T-END), turns, thefts, cancels, decisions,
  largest steal and turn-cap flag. ``CYA_THEFT_DIFF_GAMES`` games in all (default 10,400: 800 per option
  line, 160 per table size).
- **Agent play** (:func:`compare_games`): both engines play with their own agents (the reference with the
  Python classes of :mod:`agents.theft.registry`) and the action lists must be equal step by step — the check that
  the compiled agents choose as the Python ones. ``CYA_THEFT_DIFF_AGENT_GAMES`` games per option line
  (default 100).

On a mismatch the message gives the key, the game index, the step and the reference position before that
step as JSON (:func:`cya_sim.game.theft.position.dumps`). The slow test plays 1,000,000 games.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from agents.theft.registry import make_theft_agent
from cya_sim.engine.table import GameTable
from cya_sim.engine.theft.legal import action_space, legal_action_mask
from cya_sim.engine.theft.reference import apply_action, new_game
from cya_sim.engine.theft.results import THEFT_COLUMNS
from cya_sim.game.rng import root_key
from cya_sim.game.theft.rules import TheftRuleSet
from cya_sim.play.theft.batched import play_theft_games_batched
from cya_sim.play.theft.reference import play_game

AGENTS = ["random", "greedy", "defender"]
SIZES = (2, 3, 4, 5, 6)
KEY = root_key(20261203)
LOG_CAP = 5000
GAMES = int(os.environ.get("CYA_THEFT_DIFF_GAMES", "10400"))
AGENT_GAMES = int(os.environ.get("CYA_THEFT_DIFF_AGENT_GAMES", "100"))
SLOW_SCALE = float(os.environ.get("CYA_DIFF_SLOW_SCALE", "1"))

#: (id, rule options): every R-T-TURN defence option alone and together, the other readings of §9, a small deck.
OPTIONS = (
    ("default", {}),
    ("compulsory", {"compulsory_defence": True}),
    ("pair_only", {"give_up_pair_only": True}),
    ("single_gold", {"gold_theft_cancel": "single_gold"}),
    ("target_value", {"cancel_pair_value": "target_value"}),
    ("all_four", {"compulsory_defence": True, "give_up_pair_only": True, "gold_theft_cancel": "single_gold",
                  "cancel_pair_value": "target_value"}),
    ("protect", {"protect_last_asset": True, "defend_with_targeted_asset": False}),
    ("no_asset_defence", {"defend_with_asset": False}),
    ("draw_up_gold_pairs", {"end_of_turn": "discard_and_draw_up", "gold_gold_pair": True}),
    ("keep_one_theft", {"end_of_turn": "keep", "max_thefts_per_turn": 1}),
    ("small_deck", {"numbers": 6, "copies_per_number": 4, "gold_cards": 3, "plain_thefts": 10, "gold_thefts": 2}),
    ("longer", {"draw_per_turn": 3, "hand_limit": 4, "assets_to_end": 5, "hand_size": 6}),
    ("cap", {"max_turns": 7}),
)


def rules_of(options: dict) -> TheftRuleSet:
    """The theft preset with ``options``."""
    return TheftRuleSet().with_options(**options) if options else TheftRuleSet()


def seatings(n_games: int, n_players: int, seed: int) -> np.ndarray:
    """(G, P) int16 seatings into :data:`AGENTS`: a quarter each agent alone, a quarter mixed at random."""
    sa = np.random.default_rng(seed).integers(0, len(AGENTS), (n_games, n_players)).astype(np.int16)
    for j in range(len(AGENTS)):
        sa[j::4] = j
    return sa


def position_report(rules, n_players, key, game_index, seats, actions, step, what) -> str:
    """Key, game index, seats, ``what`` happened at ``step``, and the reference position before ``step`` as JSON."""
    from cya_sim.game.theft.position import dumps

    state = new_game(rules, n_players, key, game_index)
    for a in actions[:step]:
        apply_action(state, a)
    return (f"rules {rules.name} {rules.to_dict()}, {n_players} players, key {key}, game index {game_index}, "
            f"seats {[int(x) for x in seats]}: {what}\nreference position before that step:\n{dumps(state)}")


def _same(ref, table: GameTable, cancelled: np.ndarray, i: int) -> bool:
    """The reference result equals row ``i`` of the batched table: the common columns and every column of the theft
    game's own (first player, turns, thefts, cancelled thefts, largest steal), and the queue's cancelled count."""
    return (list(ref.points) == list(table.totals[i]) and list(ref.win_shares) == list(table.win_share[i])
            and (ref.decisions, ref.capped) == (table.decisions[i], bool(table.capped[i]))
            and table.family is THEFT_COLUMNS
            and all(getattr(ref, c) == table.columns[c][i] for c in THEFT_COLUMNS.names)
            and ref.cancelled == cancelled[i])


def _result_text(ref, table: GameTable, cancelled: np.ndarray, i: int) -> str:
    own = ", ".join(f"{c} {table.columns[c][i]}" for c in THEFT_COLUMNS.names)
    return (f"\nreference result {ref}\nbatched: points {table.totals[i]}, win share {table.win_share[i]}, {own}, "
            f"queue's cancelled {cancelled[i]}, decisions {table.decisions[i]}, capped {table.capped[i]}")


def replay_one(rules, n_players, key, game_index, seats, actions, table, cancelled, i) -> str | None:
    """Replay one game's ``actions`` on the reference engine from its deal; None when every action is legal there
    and the results equal row ``i`` of the batched ``table``, else the failure report."""
    from cya_sim.play.theft.reference import _result

    ref = new_game(rules, n_players, key, game_index)
    for step, a in enumerate(actions):
        mask = legal_action_mask(ref)
        if not mask[a]:  # also when the reference game is over (an all-False mask)
            return position_report(rules, n_players, key, game_index, seats, actions, step,
                                   f"batched action {a} ({action_space(rules).name(a)}) at step {step} is not in "
                                   f"the reference's legal action mask (legal: {np.flatnonzero(mask).tolist()})")
        apply_action(ref, a, legal_mask=mask)
    what = f"the batched game ended after {len(actions)} actions; the reference game "
    if ref.to_act >= 0:
        return position_report(rules, n_players, key, game_index, seats, actions, len(actions),
                               what + f"goes on (seat {ref.to_act} to act)")
    result = _result(ref, game_index, None)
    if not _same(result, table, cancelled, i):
        return (position_report(rules, n_players, key, game_index, seats, actions, len(actions),
                                what + "ended with other results") + _result_text(result, table, cancelled, i))
    return None


def replay_games(rules, n_players, game_indices, seat_agent, batch_size=64, key=KEY):
    """Play on the batched engine, replay each logged game on the reference (:func:`replay_one`); fail on the first
    mismatch. Returns (table, cancelled (G,) int64, the logs as lists)."""
    table, state = play_theft_games_batched(rules, AGENTS, seat_agent, key, game_indices, batch_size=batch_size,
                                            log_cap=LOG_CAP, return_state=True)
    assert state.r_done.all()
    logs = [state.log_actions[i, : state.log_len[i]].tolist() for i in range(len(game_indices))]
    for i, g in enumerate(game_indices.tolist()):
        report = replay_one(rules, n_players, key, g, seat_agent[i], logs[i], table, state.r_cancelled, i)
        if report is not None:
            pytest.fail(report)
    return table, state.r_cancelled.copy(), logs


def compare_games(rules, n_players, game_indices, seat_agent, batch_size=16, key=KEY) -> GameTable:
    """Both engines play with their own agents; the same action at every step and the same results, game by game."""
    table, state = play_theft_games_batched(rules, AGENTS, seat_agent, key, game_indices, batch_size=batch_size,
                                            log_cap=LOG_CAP, return_state=True)
    for i, g in enumerate(game_indices.tolist()):
        ref = play_game(rules, [make_theft_agent(AGENTS[j]) for j in seat_agent[i]], key, g, record_actions=True)
        ours = state.log_actions[i, : state.log_len[i]].tolist()
        if list(ref.actions) != ours or not _same(ref, table, state.r_cancelled, i):
            step = next((k for k, (x, y) in enumerate(zip(ref.actions, ours)) if x != y), min(len(ours), len(ref.actions)))
            pytest.fail(position_report(rules, n_players, key, g, seat_agent[i], list(ref.actions), step,
                                        f"first difference at step {step}: reference {ref.actions[step:step + 1]}, "
                                        f"batched {ours[step:step + 1]}") + _result_text(ref, table, state.r_cancelled, i))
    return table


def _kinds(rules, logs) -> set[str]:
    sp = action_space(rules)
    return {sp.decode(a).kind for log in logs for a in log}


@pytest.mark.parametrize(("name", "options"), OPTIONS, ids=[o[0] for o in OPTIONS])
def test_theft_replay_differential(name, options):
    """R-T-DECK … R-T-END with every option line: the reference replays the batched games, every action legal there,
    the same first player, points, winners, turns, thefts, cancels, decisions, largest steal and cap flag."""
    rules = rules_of(options)
    row = [o[0] for o in OPTIONS].index(name)
    per_size = max(1, GAMES // (len(OPTIONS) * len(SIZES)))
    kinds: set[str] = set()
    totals = {"thefts": 0, "cancelled": 0, "capped": 0, "reshuffled": 0}
    for p in SIZES:
        gi = np.arange(per_size, dtype=np.int64) + row * 10_000_000 + p * 1_000_000
        table, cancelled, logs = replay_games(rules, p, gi, seatings(per_size, p, 100 * row + p))
        assert len(table) == per_size and table.decisions.min() > 0
        kinds |= _kinds(rules, logs)
        totals["thefts"] += int(table.thefts.sum())
        totals["cancelled"] += int(cancelled.sum())
        totals["capped"] += int(table.capped.sum())
        # cards drawn beyond the first draw pile: the discard pile was shuffled into a new one (R-T-TURN)
        pile = rules.n_cards - p * rules.hand_size
        totals["reshuffled"] += int((table.turns * rules.draw_per_turn > pile).sum())
    assert totals["thefts"] > 0 and totals["cancelled"] > 0
    assert {"first_asset", "build", "theft", "end_turn", "let_pass"} <= kinds, kinds
    if rules.defend_with_asset:
        assert "give_up_asset" in kinds
    if rules.gold_theft_cancel == "single_gold":
        assert "cancel_gold" in kinds
    if rules.end_of_turn != "keep":
        assert "discard" in kinds
    if name == "cap":
        assert totals["capped"] > 0
    if name == "small_deck":
        assert totals["reshuffled"] > 0


@pytest.mark.parametrize(("name", "options"), OPTIONS, ids=[o[0] for o in OPTIONS])
def test_theft_agents_choose_alike(name, options):
    """R-T-SETUP … R-T-END: both engines play with their own random/greedy/defender agents: the same actions step by
    step (the compiled agents decide as agents/theft/registry.py), the same results."""
    rules = rules_of(options)
    row = [o[0] for o in OPTIONS].index(name)
    per_size = max(1, AGENT_GAMES // len(SIZES))
    for p in SIZES:
        gi = np.arange(per_size, dtype=np.int64) + 500_000_000 + row * 10_000_000 + p * 1_000_000
        compare_games(rules, p, gi, seatings(per_size, p, 7 * row + p))


def test_theft_replay_failure_names_game_step_and_position():
    """A tampered log (an illegal action at step 5, then a game cut short) is caught with the key, game index,
    step and the reference position as JSON."""
    rules = TheftRuleSet()
    gi = np.array([4242], np.int64)
    table, state = play_theft_games_batched(rules, AGENTS, seatings(1, 4, 1), KEY, gi, log_cap=LOG_CAP,
                                            return_state=True)
    actions = state.log_actions[0, : state.log_len[0]].tolist()
    seats = [0, 0, 0, 0]
    assert replay_one(rules, 4, KEY, 4242, seats, actions, table, state.r_cancelled, 0) is None
    ref = new_game(rules, 4, KEY, 4242)
    for a in actions[:5]:
        apply_action(ref, a)
    illegal = int(np.flatnonzero(~legal_action_mask(ref))[0])
    report = replay_one(rules, 4, KEY, 4242, seats, actions[:5] + [illegal] + actions[6:], table, state.r_cancelled, 0)
    assert f"key {KEY}, game index 4242" in report and f"batched action {illegal} " in report
    assert "at step 5 is not in the reference's legal action mask" in report
    assert '"format": "cya-sim-theft-position"' in report
    report = replay_one(rules, 4, KEY, 4242, seats, actions[:-1], table, state.r_cancelled, 0)
    assert f"ended after {len(actions) - 1} actions; the reference game goes on" in report


@pytest.mark.slow
def test_theft_differential_one_million_games():
    """1,000,000 batched theft games (every option line, 2–6 players, random/greedy/defender seatings): each played
    twice on the batched engine, with batch sizes 256 and 1 (equal result tables and cancel counts), and one game in
    250 (4,000) also played on the reference engine by its agents and compared action by action."""
    total = round(1_000_000 * SLOW_SCALE)
    cases = [(o, p) for o in OPTIONS for p in SIZES]
    per = total // len(cases) + 1
    played = 0
    for ci, ((_name, options), p) in enumerate(cases):
        rules = rules_of(options)
        gi = np.arange(per, dtype=np.int64) + 900_000_000 + ci * 1_000_000
        sa = seatings(per, p, 3000 + ci)
        a, sta = play_theft_games_batched(rules, AGENTS, sa, KEY, gi, batch_size=256, return_state=True)
        b, stb = play_theft_games_batched(rules, AGENTS, sa, KEY, gi, batch_size=1, return_state=True)
        assert a.equals(b) and np.array_equal(sta.r_cancelled, stb.r_cancelled), f"{options} {p}p: batch size"
        played += len(gi)
        sub = np.arange(0, per, 250)
        compare_games(rules, p, gi[sub], sa[sub], batch_size=64)
    assert played >= total
