"""The classic family's own result columns (RULES.md §1-§8): one declaration for both engines and the results folder.

The reference play (:func:`cya_sim.play.reference.play_games`, from each
:class:`~cya_sim.engine.classic.reference.game.GameResult`) and the batched engine
(:func:`cya_sim.engine.classic.batched.results`, from the queue's ``r_<name>`` arrays) fill exactly these columns,
and ``games.parquet`` stores them under these names and dtypes (:func:`cya_sim.results.folder.games_schema`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cya_sim.engine.table import ResultColumn, ResultColumns


def first_to_move(columns: Mapping[str, np.ndarray], players: int) -> np.ndarray:
    """(G,) int64: the first dealer's left-hand neighbour moves first in round 1 (R-SETUP)."""
    return (np.asarray(columns["first_dealer"], np.int64) + 1) % players


CLASSIC_COLUMNS = ResultColumns(
    family="classic",
    score_unit="dollars",
    columns=(
        ResultColumn("first_dealer", "int16", "seat",
                     "the seat that dealt round 1, picked by the game's seed (R-SETUP)"),
        ResultColumn("rounds", "int64", "rounds", "rounds played, R-TIE's extra rounds included (R-GAME-END)"),
        ResultColumn("turns", "int64", "turns", "turns taken, every round (R-TURN)"),
        ResultColumn("challenges", "int64", "challenges", "challenges opened (R-CHALLENGE, §4)"),
        ResultColumn("largest_steal", "int64", "dollars",
                     "the most valuable set won by a challenger in the game (R-CH-EXCHANGE), 0 if none"),
    ),
    length="rounds",
    metrics=("rounds", "turns", "challenges", "largest_steal"),
    first_to_move=first_to_move,
    title="Game length and largest set stolen",
)
