"""Head-to-head comparisons and seat / turn-order effects, with the game (or deal) as the sampling unit.

Pairwise: in a game where agents a and b both sit, every pair (a seat of a, a
seat of b) is a comparison; a *finishes ahead* when its final total is higher
(equal totals count half each way). The game's comparisons are summed into one
unit (all games of a deal into one unit under duplicate deals), so an agent
that holds several seats of a game never counts as several independent trials
(Cochran 1977 ratio estimator; Liang & Zeger 1986 cluster-robust errors; see
:mod:`cya_sim.reports.stats`).

Seats: the win share of every seat-game is regressed on position dummies and
agent dummies (so the test is adjusted for which agent sits where), and the
position dummies are tested jointly by a game- or deal-clustered score (LM)
test on F(P - 1, C - 1) (Wooldridge 2010; Cameron & Miller 2015).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from cya_sim.engine.table import GameTable
from cya_sim.reports.stats import (
    cell_ols,
    cell_score_test,
    estimate_from_sums,
    holm,
    ratio_estimate,
    score_test,
    share_difference,
    unit_codes,
)

PAIRWISE_COLUMNS = (
    "agent", "opponent", "games", "units", "comparisons", "ahead", "behind", "ties",
    "ahead_share", "ahead_share_ci_low", "ahead_share_ci_high",
    "seat_share_diff", "seat_share_diff_ci_low", "seat_share_diff_ci_high", "p_value", "p_holm",
)
#: One line per column of :data:`PAIRWISE_COLUMNS` (REPORT.md "Files").
PAIRWISE_DOC = {
    "games": "games in which both agents sat; units: games, or deals under duplicate deals",
    "comparisons": "pairs (seat of agent, seat of opponent) over those games; ahead/behind/ties count them",
    "ahead_share": "share of comparisons the agent finished ahead (ties half); 50% = no difference",
    "seat_share_diff": "mean over those games of (agent's per-seat win share - opponent's); 0 = no difference",
    "p_value": "TWO-SIDED game/deal-clustered score test of ahead_share = 50% (neither finishes ahead more "
               "often); p_holm: Holm-adjusted over the unordered pairs of the table size",
}
SEAT_COLUMNS = ("position", "agent", "seat", "games", "wins", "win_rate", "win_rate_ci_low", "win_rate_ci_high",
                "effect", "effect_ci_low", "effect_ci_high", "F", "df_num", "df_den", "p_value", "p_holm")


#: What decides who finished ahead of whom in a pair of seats (:func:`seat_outcomes`): ``"total"`` — the final
#: totals (R-SCORE), the finishing order; ``"win"`` — the win shares (R-TIE): a winner is ahead of every seat
#: that did not win, co-winners tie, and two seats that did not win are not compared (position-1 rank-breaking,
#: consistent for the first place of a Plackett–Luce model: Azari Soufiani, Chen, Parkes & Xia 2014).
ORDERS = ("total", "win")


def seat_outcomes(table: GameTable, i: int, j: int, order: str = "total") -> tuple[np.ndarray, np.ndarray]:
    """Seat i against seat j in every game, under ``order`` (:data:`ORDERS`).

    Returns:
        (compared (G,) bool: the pair counts as a comparison (under ``"win"``, at least one of the two won);
        outcome (G,) float64: 1 seat i ahead, 0.5 a tie, 0 behind).

    Raises:
        ValueError: an ``order`` not in :data:`ORDERS`.
    """
    if order == "total":
        v = np.asarray(table.totals)
        compared = np.ones(v.shape[0], bool)
    elif order == "win":
        v = np.asarray(table.win_share, np.float64)
        compared = (v[:, i] > 0) | (v[:, j] > 0)
    else:
        raise ValueError(f"order: {order!r}; allowed: {', '.join(ORDERS)}")
    w = np.where(v[:, i] > v[:, j], 1.0, np.where(v[:, i] == v[:, j], 0.5, 0.0))
    return compared, w


def ahead_counts(table: GameTable, n_agents: int, order: str = "total") -> tuple[np.ndarray, np.ndarray]:
    """Counts of finishing ahead, from every pair of seats of every game.

    Args:
        table: games; ``seat_agent`` (G, P) indexes the agents.
        n_agents: K. order: what "ahead" means (:data:`ORDERS`; default the finishing order by total).

    Returns:
        (ahead, ties): (K, K) int64. ``ahead[a, b]`` = comparisons in which
        agent a finished ahead of agent b (higher final total, or won where b did not); ``ties[a, b]``
        = equal totals (co-winners) (symmetric). Pairs of seats held by one agent are skipped, and under
        ``"win"`` pairs of two seats that did not win, and every pair with a seat of agent -1 (an agent set aside,
        not rated: :func:`cya_sim.studies.leaderboard.rate_cell`).
    """
    seat_agent = np.asarray(table.seat_agent, dtype=np.int64)
    k = n_agents
    ahead = np.zeros(k * k, np.int64)
    ties = np.zeros(k * k, np.int64)
    p = seat_agent.shape[1]

    def count(keys: np.ndarray) -> np.ndarray:  # whole numbers, as np.add.at counts them
        return np.bincount(keys, minlength=k * k)

    for i in range(p):
        for j in range(i + 1, p):
            a, b = seat_agent[:, i], seat_agent[:, j]
            compared, w = seat_outcomes(table, i, j, order)
            diff = (a != b) & compared & (a >= 0) & (b >= 0)
            ahead += count((a * k + b)[diff & (w == 1.0)])
            ahead += count((b * k + a)[diff & (w == 0.0)])
            tie = diff & (w == 0.5)
            ties += count((a * k + b)[tie])
            ties += count((b * k + a)[tie])
    return ahead.reshape(k, k), ties.reshape(k, k)


def pair_games(table: GameTable, a: int, b: int) -> dict[str, np.ndarray]:
    """Per-game head to head of agents a and b over the games where both sit.

    Returns:
        dict of (G_ab,) arrays: ``unit`` (int64, ``game_index``: the deal),
        ``ahead``, ``behind``, ``ties`` (float comparisons), ``pairs``
        (comparisons = seats of a x seats of b), ``share_a``/``share_b`` (each
        agent's per-seat win share in the game), ``seats_a``/``seats_b``
        (seats held, float), ``diff`` (``share_a - share_b``).
    """
    return PairCounts(table, every_pair=False).pair(a, b)


#: Largest games x agents^2 for which :func:`pairwise_table` keeps every ordered pair's counts of every game in
#: one table (two int8 arrays: 2 bytes a cell, 100 MB at 50 million cells).
PAIR_COUNTS_CELLS = 50_000_000


class PairCounts:
    """:func:`pair_games` of every pair of agents of a table, what is common computed once: per game, the seats and
    the win shares summed of each agent, and (``every_pair``, up to :data:`PAIR_COUNTS_CELLS`) for every ordered pair
    of agents the seat pairs it finished ahead and level, else one pair's at a time (whole numbers: the same in any
    order of summing). :func:`pairwise_table` and the coverage study (:mod:`cya_sim.studies.validation`) read every
    pair of a table through one."""

    def __init__(self, table: GameTable, every_pair: bool = True) -> None:
        sa = np.asarray(table.seat_agent, np.int64)
        g, p = sa.shape
        k = int(sa.max()) + 1 if sa.size else 0
        self.table, self.k, self._sa = table, k, sa
        self.share = np.asarray(table.win_share)
        self._tot = np.asarray(table.totals)
        self._seats: dict[int, np.ndarray] = {}
        self._wins: dict[int, np.ndarray] = {}
        self.ahead = self.ties = None
        if every_pair and g * k * k <= PAIR_COUNTS_CELLS:
            # (K*K, G) int8 (at most P(P-1) seat pairs a game): seat pairs (seat of a, seat of b) a finished ahead of
            # b, and level with b, for every ordered pair a, b (row a K + b, contiguous over the games); one key per
            # game for each pair of seats, so the flat indices of one assignment never repeat
            ahead = np.zeros(k * k * g, np.int8)
            ties = np.zeros(k * k * g, np.int8)
            game = np.arange(g, dtype=np.int64)
            for i in range(p):
                for j in range(p):
                    if i != j:
                        idx = (sa[:, i] * k + sa[:, j]) * g + game
                        ahead[idx] += self._tot[:, i] > self._tot[:, j]
                        ties[idx] += self._tot[:, i] == self._tot[:, j]
            self.ahead, self.ties = ahead.reshape(k * k, g), ties.reshape(k * k, g)

    def _of(self, a: int) -> tuple[np.ndarray, np.ndarray]:
        """(seats (G,) int, win shares summed (G,) float) of agent a in every game."""
        if a not in self._seats:
            where = self._sa == a
            self._seats[a] = where.sum(axis=1)
            self._wins[a] = np.where(where, self.share, 0).sum(axis=1)
        return self._seats[a], self._wins[a]

    def pair(self, a: int, b: int) -> dict[str, np.ndarray]:
        """:func:`pair_games` of agents a and b."""
        na, wa = self._of(a)
        nb, wb = self._of(b)
        rows = (na > 0) & (nb > 0)
        where = np.flatnonzero(rows)
        k = self.k
        if self.ahead is not None:
            ahead = self.ahead[a * k + b].take(where).astype(np.float64)
            behind = self.ahead[b * k + a].take(where).astype(np.float64)
            ties = self.ties[a * k + b].take(where).astype(np.float64)
        else:  # one pair asked for, or too many games x agents for the table of every pair: this pair alone
            sa_r, sb_r, tot = self._sa[rows] == a, self._sa[rows] == b, self._tot[rows]
            p = sa_r.shape[1]
            counts = np.zeros((3, int(rows.sum())), np.int64)
            for i in range(p):
                for j in range(p):
                    if i != j:
                        both = sa_r[:, i] & sb_r[:, j]
                        counts[0] += both & (tot[:, i] > tot[:, j])
                        counts[1] += both & (tot[:, i] < tot[:, j])
                        counts[2] += both & (tot[:, i] == tot[:, j])
            ahead, behind, ties = counts.astype(np.float64)
        na_r, nb_r = na.take(where), nb.take(where)
        x = wa.take(where) / na_r
        y = wb.take(where) / nb_r
        return {"unit": np.asarray(self.table.game_index).take(where), "ahead": ahead, "behind": behind, "ties": ties,
                "pairs": (na_r * nb_r).astype(np.float64), "share_a": x, "share_b": y,
                "seats_a": na_r.astype(np.float64), "seats_b": nb_r.astype(np.float64), "diff": x - y}


def seat_share_difference(d: dict[str, np.ndarray], confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean over the pair's games of (a's per-seat win share - b's), with Newcombe's hybrid score interval.

    Units are ``d["unit"]`` (games, or deals); each share's most is the mean
    of 1/seats held (a wins every game), so the interval stays inside
    ``[-max_b, max_a]`` (:func:`cya_sim.reports.stats.share_difference`;
    Newcombe 1998), where a t interval can go beyond ±100%.

    Args:
        d: :func:`pair_games` of two agents. confidence: two-sided level.

    Returns:
        (difference, low, high) as fractions.
    """
    codes = unit_codes(d["unit"])
    bc = lambda w: np.bincount(codes, weights=w)
    n_c = bc(np.ones(codes.size))
    top_a = float(np.mean(1.0 / d["seats_a"]))
    top_b = float(np.mean(1.0 / d["seats_b"]))
    return share_difference(bc(d["share_a"]), bc(d["share_b"]), n_c, top_a, top_b, confidence)


def pairwise_table(table: GameTable, agents: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """Head to head as rows (``pairwise.csv``): one row per ordered pair of agents that met.

    Columns (:data:`PAIRWISE_COLUMNS`, described in :data:`PAIRWISE_DOC`):
    ``ahead_share`` = (ahead + ties/2) / comparisons, a ratio over units with a
    Wilson interval on the effective sample size; ``seat_share_diff`` with
    Newcombe's hybrid score interval (:func:`seat_share_difference`, inside
    the possible range); ``p_value`` the two-sided generalised score test
    (Boos 1992) of ahead_share = 0.5 with units clustered by game or deal
    (Liang & Zeger 1986), identical for (a, b) and (b, a); ``p_holm`` Holm
    (1979) over the unordered pairs. Pairs that never met get 0 games and NaN
    statistics.

    Raises:
        ValueError: bad ``confidence``.
    """
    k = len(agents)
    rows = []
    counts = PairCounts(table)
    for a in range(k):
        for b in range(a + 1, k):
            d = counts.pair(a, b)
            if not d["unit"].size:
                nan = float("nan")
                for x, y in ((a, b), (b, a)):
                    rows.append((agents[x], agents[y], 0, 0, 0, 0, 0, 0) + (nan,) * 8)
                continue
            codes = unit_codes(d["unit"])
            y_c = np.bincount(codes, weights=d["ahead"] + d["ties"] / 2)
            n_c = np.bincount(codes, weights=d["pairs"])
            share = estimate_from_sums(y_c, n_c, confidence, proportion=True)
            share_b = estimate_from_sums(n_c - y_c, n_c, confidence, proportion=True)
            diff = seat_share_difference(d, confidence)
            pv = score_test(y_c, n_c, 0.5)
            g, u, n = len(d["unit"]), share.units, int(d["pairs"].sum())
            ah, bh, ti = int(d["ahead"].sum()), int(d["behind"].sum()), int(d["ties"].sum())
            rows.append((agents[a], agents[b], g, u, n, ah, bh, ti, share.value, share.low, share.high,
                         diff[0], diff[1], diff[2], pv, np.nan))
            rows.append((agents[b], agents[a], g, u, n, bh, ah, ti, share_b.value, share_b.low, share_b.high,
                         -diff[0], -diff[2], -diff[1], pv, np.nan))
    df = pd.DataFrame(rows, columns=list(PAIRWISE_COLUMNS))
    if len(df):
        first = np.arange(len(df)) % 2 == 0  # one test per unordered pair
        adj = holm(df.loc[first, "p_value"].to_numpy(float))
        df["p_holm"] = np.repeat(adj, 2)
    return df


def position_of(table: GameTable, position: str) -> np.ndarray:
    """(G, P) position of every seat: ``seat`` = the chair s; ``turn_order`` = 0 for the first to move.

    Turn order q is the seat ``(first + q) % P``, ``first`` the seat that moved first
    (:meth:`~cya_sim.engine.table.GameTable.first_to_move`, by the family's setup rule: the player left of
    the first dealer, R-SETUP; the first player, R-T-SETUP).

    Raises:
        ValueError: ``position`` is not ``seat`` or ``turn_order``.
    """
    g, p = np.asarray(table.seat_agent).shape
    seats = np.broadcast_to(np.arange(p), (g, p))
    if position == "seat":
        return seats
    if position == "turn_order":
        return (seats - table.first_to_move()[:, None]) % p
    raise ValueError(f"position is {position!r}; choose seat or turn_order")


def position_test(table: GameTable, position: str = "seat") -> dict[str, object]:
    """Seat or turn-order effect on the win share, adjusted for the agents, with a clustered score test.

    Linear model over seat-games ``win_share = mu + pos_q + agent_a + e``
    (q = 1..P-1, a = the agents present but the first), least squares with
    the cluster-robust covariance by unit (``table.game_index``: the game, or
    the deal under duplicate deals; :func:`cya_sim.reports.stats.cluster_ols`) for
    the effects and their intervals, and the joint cluster-robust score (LM)
    test of ``pos_1 = ... = pos_{P-1} = 0`` on F(P-1, C-1)
    (:func:`cya_sim.reports.stats.cluster_score_test`; Wooldridge 2010; Cameron &
    Miller 2015), which kept its size with 50 duplicated deals where the
    Wald test rejected 7.7% at 5% (docs/statistics.md). Adjusting for the agents removes the strength
    differences that made the unadjusted chi-square conservative; clustering
    by deal removes the false positives of duplicate deals (every rotation of
    a deal repeats the same chair luck).

    Returns:
        dict: ``effect`` (P,) float, the adjusted difference in win share of
        position q against position 0 (0 for q = 0), ``se`` (P,) its
        cluster-robust error (Wald), ``F`` (= LM / (P-1) of the cluster-robust
        score test, :func:`cya_sim.reports.stats.cluster_score_test`),
        ``df_num`` (P-1), ``df_den`` (C-1), ``p_value``, ``units`` (C). All
        NaN when the positions are confounded with the agents (the design
        matrix is rank-deficient, e.g. one agent always first to move).

    Raises:
        ValueError: a bad ``position``.
    """
    return _position_test(table, position, {})


def _position_test(table: GameTable, position: str, shared: dict[str, np.ndarray]) -> dict[str, object]:
    """:func:`position_test`, keeping in ``shared`` what the seat and the turn-order tests of one table have in
    common (the agent codes and the sampling units).

    Every seat-game's row of the design is the row of its cell (position q, agent a), so the fit and the test
    are computed from the cells' counts and sums and per-unit score sums (:func:`cya_sim.reports.stats.cell_ols`,
    :func:`cya_sim.reports.stats.cell_score_test`), never from the (G P, P + K - 1) design."""
    sa = np.asarray(table.seat_agent)
    p = sa.shape[1]
    pos = position_of(table, position).ravel()
    if "agent" not in shared:
        shared["agent"] = _rank_codes(sa.ravel())
        shared["codes"] = unit_codes(np.repeat(np.asarray(table.game_index), p))
    agent, codes = shared["agent"], shared["codes"]
    k = int(agent.max()) + 1 if agent.size else 1
    # the design row of cell q * K + a: the intercept, position q = 1..P-1, agent a = 1..K-1 (0/1 dummies)
    q_of, a_of = np.divmod(np.arange(p * k), k)
    rows = np.column_stack([np.ones(p * k)] + [(q_of == q).astype(np.float64) for q in range(1, p)]
                           + [(a_of == a).astype(np.float64) for a in range(1, k)])
    cell = pos * k + agent
    counts = np.bincount(cell, minlength=p * k)
    xtx = rows.T @ (rows * counts.astype(np.float64)[:, None])  # whole numbers: the cells' counts
    if np.linalg.matrix_rank(xtx) < rows.shape[1]:  # positions confounded with agents: no separate effect
        nan = np.full(p, np.nan)
        c = int(codes.max()) + 1
        return {"effect": nan, "se": nan, "F": float("nan"), "df_num": p - 1, "df_den": c - 1,
                "p_value": float("nan"), "units": c}
    y = np.asarray(table.win_share, np.float64).ravel()
    beta, cov, c = cell_ols(y, cell, rows, codes=codes)
    f, pv, _ = cell_score_test(y, cell, np.delete(rows, np.s_[1:p], axis=1), rows[:, 1:p], codes=codes)
    se = np.sqrt(np.clip(np.diag(cov), 0, None))
    return {"effect": np.concatenate([[0.0], beta[1:p]]), "se": np.concatenate([[0.0], se[1:p]]), "F": f,
            "df_num": p - 1, "df_den": c - 1, "p_value": pv, "units": c}


def _rank_codes(values: np.ndarray) -> np.ndarray:
    """(N,) int64 rank of each value among the distinct values, ``pandas.factorize(values, sort=True)[0]``; for
    small non-negative integers (agent indices) by a lookup table instead of a hash table."""
    v = np.asarray(values)
    if v.dtype.kind in "iu" and v.size and 0 <= int(v.min()) and int(v.max()) < 1 << 16:
        present = np.zeros(int(v.max()) + 1, bool)
        present[v] = True
        return (np.cumsum(present) - 1)[v]
    return pd.factorize(v, sort=True)[0].astype(np.int64, copy=False)


def position_table(table: GameTable, agents: Sequence[str], confidence: float = 0.95) -> pd.DataFrame:
    """Win rate by seat and by turn order (``seats.csv``), with the adjusted clustered tests.

    Rows with agent ``(all)``: per position, ``games``, ``wins``, the win
    rate (share of games the seat in that position won) with a clustered
    Wilson interval on the effective sample size, the agent-adjusted
    ``effect`` against position 0 with its t interval, and on every row of
    the position the score-test ``F``, its degrees of freedom, ``p_value`` and
    ``p_holm`` (Holm over the two tests, seat and turn order, of the table
    size). Rows per agent: the same rates for the seat-games of that agent
    (the rotation balance), without a test.

    Raises:
        ValueError: bad ``confidence``.
    """
    sa = np.asarray(table.seat_agent)
    share = np.asarray(table.win_share, np.float64)
    g, p = sa.shape
    unit = np.asarray(table.game_index)
    frames = []
    tests = []
    games = np.arange(g)
    shared: dict[str, np.ndarray] = {}
    for position in ("seat", "turn_order"):
        # every game has exactly one seat in each position (position_of: a rotation of the chairs), so the seat in
        # position q is column chair[:, q], and its win shares in game order are the seat-games of that position
        chair = np.argsort(position_of(table, position), axis=1, kind="stable")
        res = _position_test(table, position, shared)
        tests.append(res["p_value"])
        tq = float(sps.t.ppf(0.5 + confidence / 2, max(res["df_den"], 1)))
        rows = []
        share_q = [share[games, chair[:, q]] for q in range(p)]
        agent_q = [sa[games, chair[:, q]] for q in range(p)]
        for q in range(p):
            e = ratio_estimate(share_q[q], 1.0, unit, confidence, proportion=True)
            eff, se = res["effect"][q], res["se"][q]
            rows.append((position, "(all)", q, g, float(share_q[q].sum()), e.value, e.low, e.high, eff, eff - tq * se,
                         eff + tq * se, res["F"], res["df_num"], res["df_den"], res["p_value"], np.nan))
        for a, name in enumerate(agents):
            for q in range(p):
                m = agent_q[q] == a
                n = int(m.sum())
                if n:
                    e = ratio_estimate(share_q[q][m], 1.0, unit[m], confidence, proportion=True)
                    vals = (e.value, e.low, e.high)
                else:
                    vals = (np.nan,) * 3
                rows.append((position, name, q, n, float(share_q[q][m].sum()), *vals) + (np.nan,) * 8)
        frames.append(pd.DataFrame(rows, columns=list(SEAT_COLUMNS)))
    df = pd.concat(frames, ignore_index=True)
    adj = holm(np.array(tests))
    for position, padj in zip(("seat", "turn_order"), adj):
        df.loc[(df["position"] == position) & (df["agent"] == "(all)"), "p_holm"] = padj
    return df
