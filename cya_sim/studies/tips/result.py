"""The tables of an analysed tip study (:class:`StudyResult`), and reading them back from a study folder."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


@dataclass
class StudyResult:
    """Tables of an analysed study.

    Attributes:
        verdicts: one row per tip x cell (:func:`finish` columns plus ``preset``, ``field``, ``players``).
        rounds: FACT-ROUNDS, one row per cell: games, mean rounds, shares in 3–5 and 4–5, and a
            histogram (``r1`` .. ``r8plus``, fractions of games).
        big_pot: TIP-BIG-POT per cell: round ends with one holder of the largest set, P(win | held it)
            with its deal-clustered interval, the base rate 1/P, and the same at the game's last round.
        fact_1360: FACT-1360 per cell: rounds checked, invariant failures, largest round score (dollars).
        missing: cells not analysed because they are not complete on disk (``play=False`` only).
        timings: per cell: games, ``play_s`` (wall seconds of play over its finished runs, ``runs.json``),
            ``this_run_s``, ``log_s`` (the logged replays), ``trace_s`` (the reference replays); kept in the
            study's run log (``runs.json``), not in a table, so a replay rewrites the tables byte for byte (a
            folder written before keeps a ``timings.csv``, read back when present).
        hide: the TIP-HIDE-WILD contrasts (:func:`hide_effects`). plan: the deals plan (:func:`plan_deals`).
        big_pot_pooled: TIP-BIG-POT per table size over every preset and field (units: cell x deal).
    """

    verdicts: pd.DataFrame
    rounds: pd.DataFrame
    big_pot: pd.DataFrame
    fact_1360: pd.DataFrame
    timings: pd.DataFrame = field(default_factory=pd.DataFrame)
    missing: tuple[str, ...] = ()
    hide: pd.DataFrame = field(default_factory=pd.DataFrame)
    plan: pd.DataFrame = field(default_factory=pd.DataFrame)
    big_pot_pooled: pd.DataFrame = field(default_factory=pd.DataFrame)


def load_result(folder: str | Path) -> StudyResult:
    """The tables of a finished study folder (``verdicts.csv`` and the others; notebooks use it).

    Raises:
        FileNotFoundError: the folder holds no ``verdicts.csv`` (run ``cya-sim tips`` first).
    """
    f = Path(folder)
    if not (f / "verdicts.csv").exists():
        raise FileNotFoundError(f"{str(f)!r} holds no verdicts.csv; run `cya-sim tips` into it first")
    read = {k: pd.read_csv(f / f"{k}.csv") for k in ("verdicts", "rounds", "big_pot", "fact_1360")}
    for k in ("timings", "hide", "plan", "big_pot_pooled"):
        if (f / f"{k}.csv").exists():
            read[k] = pd.read_csv(f / f"{k}.csv")
    return StudyResult(**read)
