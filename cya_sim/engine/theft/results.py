"""The theft game's own result columns (RULES.md §9): one declaration for both engines and the results folder.

The reference play (:func:`cya_sim.play.theft.reference.play_theft_games`, from each
:class:`~cya_sim.play.theft.reference.TheftGameResult`) and the batched theft engine
(:func:`cya_sim.engine.theft.batched.results`, from the queue's ``r_<name>`` arrays) fill exactly these columns,
and ``games.parquet`` stores them under these names and dtypes (:func:`cya_sim.results.folder.games_schema`).
The game has no dealer and no rounds; its totals are points.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from cya_sim.engine.table import ResultColumn, ResultColumns


def first_to_move(columns: Mapping[str, np.ndarray], players: int) -> np.ndarray:
    """(G,) int64: the first player, chosen at random, moves first (R-T-SETUP)."""
    return np.asarray(columns["first_player"], np.int64)


THEFT_COLUMNS = ResultColumns(
    family="theft",
    score_unit="points",
    columns=(
        ResultColumn("first_player", "int16", "seat", "the seat chosen at random to move first (R-T-SETUP)"),
        ResultColumn("turns", "int64", "turns", "turns taken, the final ones included (R-T-TURN, R-T-END)"),
        ResultColumn("thefts", "int64", "thefts", "theft cards played (R-T-TURN)"),
        ResultColumn("cancelled", "int64", "thefts", "thefts called off by a defence (R-T-TURN)"),
        ResultColumn("largest_steal", "int64", "points",
                     "the largest asset a thief took in the game (R-T-TURN), 0 if none"),
    ),
    length="turns",
    metrics=("turns", "thefts", "cancelled", "largest_steal"),
    first_to_move=first_to_move,
    title="Game length, thefts and largest asset stolen",
)
