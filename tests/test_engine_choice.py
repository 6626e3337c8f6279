"""Which engine plays: a deck of more card types than the batched engine takes goes to the reference engine."""

from __future__ import annotations

import numpy as np
import pytest

from cya_sim.engine.classic.layout import MAX_BATCHED_CARD_TYPES, batched_refusal
from cya_sim.game.classic.rules.deck import Deck
from cya_sim.game.rules import get_rules


def _rules_with_types(n_assets: int, n_wilds: int = 2):
    entries = [{"name": f"a{i}", "kind": "asset", "value": 5_000 * (1 + i % 5), "copies": 4} for i in range(n_assets)]
    entries += [{"name": f"w{k}", "kind": "wild", "value": 25_000, "copies": 4} for k in range(n_wilds)]
    return get_rules("classic", deck=Deck.from_entries(f"d{n_assets + n_wilds}", entries), end_condition="rounds:1")


def test_r_deck_custom_large_deck_refused_by_batched_engine_only():
    """R-DECK-CUSTOM: 70 card types are a valid deck; the batched engine names its limit (62)."""
    big, small = _rules_with_types(68), _rules_with_types(60)
    assert big.deck.n_types == 70 and MAX_BATCHED_CARD_TYPES == 62
    assert "70 card types" in batched_refusal(big) and "at most 62" in batched_refusal(big)
    assert batched_refusal(small) == ""


def test_tournament_falls_back_to_reference_for_a_large_deck():
    """The tournament's default engine (batched) gives way to the reference engine, with a note."""
    from cya_sim.runs.experiment import resolve_engine
    from cya_sim.studies.tournament import TournamentConfig, run_tournament

    big = _rules_with_types(68)
    engine, note = resolve_engine(TournamentConfig(rules=big, agents=("greedy",), n_players=2).run_engine, big)
    assert engine == "reference" and "70 card types" in note
    assert resolve_engine("auto", _rules_with_types(10)) == ("batched", "")
    res = run_tournament(TournamentConfig(rules=big, agents=("greedy", "random"), n_players=2, games=4, seed=3,
                                          workers=1), progress=False)
    assert res.engine == "reference" and len(res.table.totals) == 4
    assert np.all(res.table.totals.sum(axis=1) > 0)


def test_experiment_engine_auto_uses_reference_and_explicit_batched_is_refused():
    """run.engine: ``auto`` plays a large deck on the reference engine; ``batched`` is refused, naming the field."""
    from cya_sim.runs.experiment import ExperimentError, resolve_engine

    big = _rules_with_types(68)
    engine, note = resolve_engine("auto", big)
    assert engine == "reference" and "70 card types" in note
    with pytest.raises(ExperimentError, match=r"run\.engine.*70 card types.*auto or reference"):
        resolve_engine("batched", big)
