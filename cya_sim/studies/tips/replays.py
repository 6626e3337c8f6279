"""The replays of a tip study, on both engines: action logs of paired games (decisions changed) on the batched
engine, and per-round records on the reference engine.

Decisions changed (:func:`changed_decisions`): for ``log_deals`` deals per
cell every arm is replayed on the batched engine with action logs; a paired
game (same deal, same rotation) whose treatment and control logs differ has at
least one decision the switch changed — the first divergence, where both games
are in the same state (agents and engine are deterministic given the deal).
The count is of such first divergences in the logged sample, plus, over all
games, the paired games whose outcome (totals, rounds, turns, challenges,
decisions) differs (:func:`cya_sim.studies.tips.effects.tip_effects`).

Per-round records (:func:`trace_rounds`; TIP-BIG-POT, FACT-1360): the same
sample of deals, first arm, every rotation, replayed on the reference engine;
at every round's end the per-seat scores, the largest set and its holder, and
the R-SCORE invariant (stacks + discard pile + leftover cards = the deck's
value; at most $1,360,000 scored for the classic deck) are stored in
``rounds.parquet``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from cya_sim.runs.experiment import Experiment
from cya_sim.runs.schedule import Schedule

#: Actions kept per logged game (a game of the presets here takes a few hundred).
LOG_CAP = 4000


def logged_games(exp: Experiment, n_deals: int) -> dict[str, np.ndarray]:
    """The first ``n_deals`` deals of a cell replayed on the batched engine with action logs (every arm and rotation).

    The games are the run's own (same key, deals and seats; agents and engine
    are deterministic given the deal).

    Returns:
        :meth:`~cya_sim.runs.schedule.Schedule.games_of` columns plus ``actions`` (G, LOG_CAP) int16 and
        ``n_actions`` (G,) int32.

    Raises:
        RuntimeError: a game longer than :data:`LOG_CAP` actions.
    """
    from cya_sim.game.rng import root_key
    from cya_sim.play import get_play_games

    p = exp.players[0]
    g = Schedule.of(exp).games_of(0, min(exp.games, n_deals * len(exp.design.arms) * p))
    _table, state = get_play_games("batched")(exp.rules, list(exp.agents), g["seat_agent"], root_key(exp.seed),
                                              g["deal"], log_cap=LOG_CAP, return_state=True)
    return {**g, "actions": np.asarray(state.queue.log_actions), "n_actions": np.asarray(state.queue.log_len)}


def changed_decisions(exp: Experiment, logged: Mapping[str, np.ndarray]) -> dict[str, tuple[int, int, int]]:
    """Per tip: (paired games logged, paired games whose action logs differ, actions logged in those treatment games).

    Two paired games (same deal, same rotation) share every state until their
    first differing action, which is therefore a decision of the tip's seat
    that the switch changed; each differing pair counts one such decision.

    Args:
        exp: the cell. logged: :func:`logged_games`.
    """
    arms = exp.design.arms
    acts, lens = logged["actions"], logged["n_actions"]
    key = {(int(d), int(r), int(a)): i for i, (d, r, a) in
           enumerate(zip(logged["deal"], logged["rotation"], logged["lineup"]))}
    out = {}
    for tid, tr, co in exp.design.tips:
        t, c = arms.index(tr), arms.index(co)
        pairs = diff = decisions = 0
        for (d, r, a), i in key.items():
            if a != t or (d, r, c) not in key:
                continue
            j = key[(d, r, c)]
            pairs += 1
            decisions += int(lens[i])
            if lens[i] != lens[j] or not np.array_equal(acts[i, :lens[i]], acts[j, :lens[j]]):
                diff += 1
        out[tid] = (pairs, diff, decisions)
    return out


def trace_rounds(exp: Experiment, logged: Mapping[str, np.ndarray], n_deals: int, arm: int = 0) -> pd.DataFrame:
    """Per-round records of the first ``n_deals`` logged deals, one arm in every rotation, replayed on the reference engine.

    Each logged game's actions are applied to the reference engine (R-* rules
    in :mod:`cya_sim.engine.classic.reference`; an action it refuses raises, so the
    replay also checks the batched engine game by game). At every round's end
    (R-ROUND-END, R-SCORE): each seat's round score, the largest set in any
    stack and the seat holding it, and the dollars in play (stacks + discard
    pile + draw pile + hands + leftover draft-pile cards, R-2P-DRAFT/R-3P-DRAFT)
    against the deck's value (:meth:`~cya_sim.game.rules.RuleSet.round_total`: under the drafts without the
    removed cards, under ``advanced`` with the Penny Jars at their stated value and the action cards at $0).

    Returns:
        one row per (game, round): ``deal``, ``rotation``, ``players``, ``round``, ``scored`` (dollars, sum
        of the round's scores), ``in_play`` (dollars, draft piles included), ``deck_value`` (dollars), ``invariant_ok`` (bool:
        ``in_play == deck_value`` and each score equals its stack's value), ``largest_set`` (dollars),
        ``largest_holder`` (seat, -1 when shared), ``holder_won`` (float, the holder's win share of the game),
        ``game_rounds``, ``scores`` (list of dollars per seat).

    Raises:
        IllegalActionError: a logged action the reference engine refuses.
        RuntimeError: the replay's final totals differ from the logged game's.
    """
    from cya_sim.engine.classic.reference.setup import new_game
    from cya_sim.engine.classic.reference.step import apply_action
    from cya_sim.game.rng import root_key

    p = exp.players[0]
    key = root_key(exp.seed)
    values = np.asarray(exp.rules.deck.values, np.int64)
    deck_value = exp.rules.round_total(p)
    first = np.unique(logged["deal"])[:n_deals]
    rows = []
    for i in np.flatnonzero((logged["lineup"] == arm) & np.isin(logged["deal"], first)):
        deal, rot = int(logged["deal"][i]), int(logged["rotation"][i])
        state = new_game(exp.rules, p, key, deal)
        game_rows = []
        for a in logged["actions"][i, : logged["n_actions"][i]]:
            stacks, discard, draw, hands = state.stacks, state.discard_pile, state.draw_pile, state.hands
            piles = state.draft_piles
            n_rounds = len(state.round_scores)
            apply_action(state, int(a))
            if len(state.round_scores) > n_rounds:  # the round just scored; stacks as they were scored
                scores = [int(x) for x in state.round_scores[-1]]
                sets = [(int(sum(values[c] for c in cs.cards)), seat) for seat, st in enumerate(stacks) for cs in st]
                stack_vals = [int(sum(v for v, o in sets if o == seat)) for seat in range(p)]
                big = max((v for v, _ in sets), default=0)
                holders = sorted({o for v, o in sets if v == big}) if sets else []
                in_play = (sum(stack_vals) + int(sum(values[c] for c in discard)) + int(sum(values[c] for c in draw))
                           + int(sum(int(n) * int(values[t]) for h in hands for t, n in enumerate(h)))
                           + int(sum(values[c] for pile in piles for c in pile)))
                game_rows.append({"deal": deal, "rotation": rot, "players": p, "round": n_rounds + 1,
                                  "scored": int(sum(scores)), "in_play": in_play, "deck_value": deck_value,
                                  "invariant_ok": in_play == deck_value and stack_vals == scores,
                                  "largest_set": big, "largest_holder": holders[0] if len(holders) == 1 else -1,
                                  "scores": scores})
        if state.winners is None:
            raise RuntimeError(f"replay of deal {deal} rotation {rot} did not finish the game")
        shares = [1.0 / len(state.winners) if s in state.winners else 0.0 for s in range(p)]
        for r in game_rows:
            r["holder_won"] = shares[r["largest_holder"]] if r["largest_holder"] >= 0 else float("nan")
            r["game_rounds"] = len(game_rows)
        rows += game_rows
    return pd.DataFrame(rows)
