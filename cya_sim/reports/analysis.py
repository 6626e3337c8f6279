"""Statistics of a results folder: every table of the report, from the stored games alone.

All numbers are computed per table size (a fair seat share is 1/P) from
``games.parquet`` (:func:`cya_sim.results.folder.load_games`) by the statistics layer
(:mod:`cya_sim.reports.stats`), with the **deal** as the sampling unit (the game, when
deals are not duplicated): every estimate is a ratio over units with a
cluster-robust error (Cochran 1977; Liang & Zeger 1986; Cameron & Miller 2015).

- per agent: per-seat win share and per-game win rate (share of games won by
  any copy of the agent), each with its fair value and a clustered Wilson
  interval, a score test of the fair share, mean final total with a clustered
  t interval (:func:`cya_sim.reports.stats.summarize`);
- a Bradley–Terry rating with a deal-clustered sandwich error (:func:`cya_sim.reports.ratings.bradley_terry`);
- the head-to-head table with the clustered two-sided test of "finishes
  ahead half the time" (:func:`cya_sim.reports.comparisons.pairwise_table`);
- win rate by seat and by turn order, and the agent-adjusted clustered score
  tests of seat and turn-order effects (:func:`cya_sim.reports.comparisons.position_table`);
- the family's own per-game columns in its words (:class:`~cya_sim.engine.table.ResultColumns`): the classic
  game's rounds, turns, challenges and largest set stolen, the theft game's turns, thefts, cancelled thefts and
  largest asset stolen, and the games by length (rounds, turns);
- the variance removed by duplicate deals: per agent, the cluster-robust
  variance of the mean win share and mean total with the games of one deal
  as a cluster against the one with each game as a cluster.

Every family of tests carries Holm-adjusted p-values (:data:`cya_sim.reports.stats.ADJUSTMENT`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
import pandas as pd

from cya_sim.engine.table import GameTable, ResultColumns
from cya_sim.reports.comparisons import pairwise_table, position_table
from cya_sim.reports.ratings import bradley_terry
from cya_sim.reports.side_by_side import side_by_side, two_processes
from cya_sim.reports.stats import mean_interval, summarize
from cya_sim.results.folder import family_of_games


@dataclass(frozen=True)
class Analysis:
    """Every table of the report; each DataFrame has a ``players`` column (table size).

    Attributes:
        summary: per (players, agent): :data:`cya_sim.reports.stats.SUMMARY_COLUMNS`
            plus ``rating``, ``rating_se``, ``rating_ci_low``, ``rating_ci_high``
            (Elo scale, the first agent of the pool present = 0, deal-clustered error).
        pairwise: per (players, agent, opponent): :data:`cya_sim.reports.comparisons.PAIRWISE_COLUMNS`.
        seats: per (players, position, agent, seat): :data:`cya_sim.reports.comparisons.SEAT_COLUMNS`;
            ``position`` is ``seat`` (fixed chair) or ``turn_order`` (0 = first to move: in the
            classic game, in round 1, left of the first dealer); ``agent`` ``(all)`` rows carry the
            agent-adjusted effect and the clustered score test (``F``, ``p_value``, ``p_holm``).
        lengths: per (players, metric): mean with a deal-clustered t interval, std, quantiles; the metrics
            are the family's (``family.metrics``: rounds, turns, challenges, largest_steal; turns, thefts,
            cancelled, largest_steal).
        length_counts: per (players, length): games and share of games, where ``length`` is the family's
            length column (``family.length``: ``rounds`` in the classic game, ``turns`` in the theft game).
        variance: per (players, agent, metric in win_share/total): standard errors of the
            agent's mean, ``se_independent`` (every seat-game independent), ``se_by_game``
            (cluster-robust with the seats of one game as a cluster: the honest error of a
            plain design) and ``se_by_deal`` (cluster-robust with every game of one deal as
            a cluster: the honest error under duplicate deals); ``variance_ratio`` =
            (se_by_deal / se_by_game)^2 and ``variance_removed`` = 1 - ratio, the share of
            the variance the duplicate deals cancelled (exactly 0 without them).
        games: number of games per table size.
        notes: per table size, remarks for the report (e.g. why a rating is missing).
        duplicate: some deal was played more than once (duplicate deals).
        family: the game family's result columns (its words, its units).
    """

    summary: pd.DataFrame
    pairwise: pd.DataFrame
    seats: pd.DataFrame
    lengths: pd.DataFrame
    length_counts: pd.DataFrame
    variance: pd.DataFrame
    games: dict[int, int]
    notes: dict[int, list[str]]
    family: ResultColumns
    duplicate: bool = False


def table_of(df: pd.DataFrame, agents: list[str], family: ResultColumns | None = None) -> GameTable:
    """The :class:`GameTable` of stored games of one table size.

    Args:
        df: rows of :func:`cya_sim.results.folder.games_schema`, all with the same ``players``.
        agents: (K,) names; ``seat_agent`` indexes them.
        family: the game family's result columns (``df`` holds them); default the family ``df`` names or holds
            (:func:`~cya_sim.results.folder.family_of_games`).

    Raises:
        ValueError: several table sizes in ``df``, an agent not in ``agents``, or no known family.
    """
    family = family if family is not None else family_of_games(df)
    sizes = df["players"].unique()
    if len(sizes) != 1:
        raise ValueError(f"table_of needs games of one table size; got {sorted(sizes.tolist())}")
    p = int(sizes[0])
    cols = [df[f"seat_{s}_agent"] for s in range(p)]
    seen = set().union(*(set(pd.unique(c).tolist()) for c in cols))
    if not seen <= set(agents):
        raise ValueError(f"stored games name agents outside {agents}: {sorted(map(str, seen - set(agents)))}")
    sa = np.column_stack([pd.Categorical(c, categories=agents).codes for c in cols])
    col = lambda name, dt: np.column_stack([df[f"seat_{s}_{name}"].to_numpy(dt) for s in range(p)])
    return GameTable(
        game_index=df["deal"].to_numpy(np.int64), seat_agent=sa.astype(np.int16), totals=col("total", np.int64),
        win_share=col("win_share", np.float64), decisions=df["decisions"].to_numpy(np.int64), family=family,
        columns={c.name: df[c.name].to_numpy(c.dtype) for c in family.columns})


def turn_order_shares(table: GameTable) -> np.ndarray:
    """(G, P) win shares by turn order: column q is the seat ``(first + q) % P``, ``first`` the seat that moved
    first (:meth:`~cya_sim.engine.table.GameTable.first_to_move`: R-SETUP, R-T-SETUP)."""
    p = table.win_share.shape[1]
    seats = (table.first_to_move()[:, None] + np.arange(p)[None, :]) % p
    return np.take_along_axis(np.asarray(table.win_share), seats, axis=1)


def cluster_variance(values: np.ndarray, groups: np.ndarray) -> tuple[float, float]:
    """Standard errors of a mean: independent observations, and cluster-robust by group.

    Args:
        values: (N,) float observations. groups: (N,) int cluster labels (>= 0).

    Returns:
        (se_independent, se_cluster). ``se_independent`` = s / sqrt(N);
        ``se_cluster`` is the Liang–Zeger sandwich estimate with statsmodels'
        small-sample factor G/(G-1) * (N-1)/(N-1), i.e. exactly the standard
        error of ``statsmodels`` ``OLS(values, 1).fit(cov_type="cluster")``
        (the tests check it against statsmodels); it is computed here from
        per-cluster sums (``numpy.bincount``) so that millions of games take
        a fraction of a second. NaN when N < 2 or fewer than 2 clusters.
    """
    y = np.asarray(values, np.float64).ravel()
    grp = np.asarray(groups, np.int64).ravel()
    n = y.size
    if n < 2:
        return float("nan"), float("nan")
    e = y - y.mean()
    sums = np.bincount(grp, weights=e)
    present = np.bincount(grp) > 0
    g = int(present.sum())
    if g < 2:
        return float("nan"), float("nan")
    se_iid = float(np.sqrt((e @ e) / (n - 1) / n))
    se_cl = float(np.sqrt((sums[present] ** 2).sum() * g / (g - 1)) / n)
    return se_iid, se_cl


def analyse(games: pd.DataFrame, agents: list[str], confidence: float = 0.95, family: str | None = None) -> Analysis:
    """All report tables of stored games.

    Args:
        games: rows of :func:`cya_sim.results.folder.games_schema` (any table sizes).
        agents: (K,) the experiment's pool, in pool order.
        confidence: level of every interval.
        family: the games' family (``classic``, ``theft``); default the one :func:`~cya_sim.results.folder.load_games`
            names in ``games.attrs["family"]``.

    Raises:
        ValueError: no games, stored agents outside the pool, or no known family
            (:func:`~cya_sim.results.folder.family_of_games`).
    """
    if games.empty:
        raise ValueError("no games stored yet; run the experiment first")
    fam = family_of_games(games, family)
    out: dict[str, list[pd.DataFrame]] = {k: [] for k in ("summary", "pairwise", "seats", "lengths", "length_counts",
                                                           "variance")}
    counts: dict[int, int] = {}
    notes: dict[int, list[str]] = {}
    parallel = two_processes(len(games))  # by the games of every table size, as the figures (report.build_report)
    for p, df in games.groupby("players", sort=True):
        p = int(p)
        counts[p] = len(df)
        used = set(pd.unique(df[[f"seat_{s}_agent" for s in range(p)]].to_numpy().ravel()))
        present = [a for a in agents if a in used]
        t = table_of(df, present, fam)
        game = df["game"].to_numpy()
        # independent parts; on a long run the seat tables, the lengths and the variance are computed in a second process
        # meanwhile (cya_sim.reports.side_by_side), the same numbers either way
        (summary, notes[p]), pairwise, seats, lengths, variance = side_by_side(
            [partial(_summary, t, present, confidence), partial(pairwise_table, t, present, confidence),
             partial(position_table, t, present, confidence), partial(_lengths, t, confidence),
             partial(_variance, t, present, game)], child=(2, 3, 4), parallel=parallel)
        for key, part in (("summary", summary), ("pairwise", pairwise), ("seats", seats), ("lengths", lengths),
                          ("variance", variance)):
            out[key].append(_with_players(part, p))
        vc = pd.Series(t.columns[fam.length]).value_counts().sort_index()
        out["length_counts"].append(_with_players(pd.DataFrame({fam.length: vc.index.astype(int),
                                                                "games": vc.to_numpy(),
                                                                "share": vc.to_numpy() / len(t)}), p))
    duplicate = bool(games["deal"].duplicated().any())
    return Analysis(**{k: pd.concat(v, ignore_index=True) for k, v in out.items()}, games=counts, notes=notes,
                    family=fam, duplicate=duplicate)


def _with_players(df: pd.DataFrame, p: int) -> pd.DataFrame:
    df = df.copy()
    df.insert(0, "players", p)
    return df


def _summary(t: GameTable, agents: list[str], confidence: float) -> tuple[pd.DataFrame, list[str]]:
    """(the summary with the Bradley–Terry rating, the notes: why there is no rating, if there is none)."""
    s = summarize(t, agents, confidence)
    try:
        r = bradley_terry(t, agents, confidence)
        return s.merge(r, on="agent", how="left"), []
    except ValueError as e:
        return s.assign(rating=np.nan, rating_se=np.nan, rating_ci_low=np.nan, rating_ci_high=np.nan), [f"Ratings: {e}."]


def _lengths(t: GameTable, confidence: float) -> pd.DataFrame:
    rows = []
    for m in t.family.metrics:
        x = np.asarray(t.columns[m], np.float64)
        mean, lo, hi = mean_interval(x, confidence, unit=t.game_index)
        q = np.quantile(x, [0.05, 0.5, 0.95])
        rows.append((m, mean, lo, hi, float(x.std(ddof=1)) if x.size > 1 else np.nan, float(x.min()), q[0], q[1],
                     q[2], float(x.max())))
    return pd.DataFrame(rows, columns=["metric", "mean", "mean_ci_low", "mean_ci_high", "std", "min", "p05",
                                       "median", "p95", "max"])


def _variance(t: GameTable, agents: list[str], game: np.ndarray) -> pd.DataFrame:
    sa = np.asarray(t.seat_agent)
    deal = np.broadcast_to(np.asarray(t.game_index, np.int64)[:, None], sa.shape)
    games = np.broadcast_to(np.asarray(game, np.int64)[:, None], sa.shape)
    rows = []
    for a, name in enumerate(agents):
        where = sa == a
        by_game, by_deal = games[where], deal[where]  # the agent's seat-games' clusters, once for both metrics
        by_game, by_deal = by_game - by_game.min(), by_deal - by_deal.min()
        same = np.array_equal(by_game, by_deal)  # no duplicate deals: the same clusters, the same numbers
        for metric, values in (("win_share", np.asarray(t.win_share)), ("total", np.asarray(t.totals))):
            x = values[where]
            se_i, se_g = cluster_variance(x, by_game)
            se_d = se_g if same else cluster_variance(x, by_deal)[1]
            ratio = (se_d / se_g) ** 2 if np.isfinite(se_g) and se_g > 0 else np.nan
            rows.append((name, metric, int(where.sum()), se_i, se_g, se_d, ratio, 1.0 - ratio))
    return pd.DataFrame(rows, columns=["agent", "metric", "seat_games", "se_independent", "se_by_game", "se_by_deal",
                                       "variance_ratio", "variance_removed"])
