"""The empirical game of an agent pool (``cya-sim metagame``): payoffs from tournaments, then α-Rank, the replicator
dynamics, an approximate symmetric Nash mixture with a bootstrap interval, and dominance.

**Payoffs.** Every line-up of P agents drawn from the pool of K *with repetition* (every multiset but the K
single-agent ones, whose payoff is 1/P by symmetry) is played in every rotation, on duplicated deals: one
``round_robin`` experiment of the run layer with ``repeats = true`` and ``duplicate = true``
(:mod:`cya_sim.runs.experiment`; the folder ``games/``, resumable after a kill like any run), so each deal
is played by every line-up in every seat order. The payoff of agent k in profile n is its per-seat win share
(R-TIE), the ratio over deals of its win shares to its seat-games (the deal is the sampling unit; the
Wilson interval on the effective sample size, :func:`cya_sim.reports.stats.estimate_from_sums`). These form
the heuristic payoff table of a symmetric constant-sum game (:mod:`cya_sim.reports.egt`).

**Aliases.** Agents whose games are identical on the same deals (:func:`find_aliases`: the game records of every
two games whose seatings differ only by exchanging them) are one strategy: reported, and merged for the solvers
(:func:`merge_aliases`); a pool of aliases only is refused.

**Solutions.** :func:`cya_sim.reports.egt.symmetric_nash` (an epsilon-Nash mixture; its regret is reported),
:func:`cya_sim.reports.egt.alpharank` (Omidshafiei et al. 2019; its selection model named by
:func:`selection_model`; computed in log space, independent of the pool's order), the replicator trajectories
from the barycentre and from near each vertex, and strict dominance tested on the deals
(:func:`dominance_tests`: an intersection–union test of paired per-deal t tests, Holm over the ordered pairs).

**Bootstrap over deals.** B replications resample the deals with replacement (the cluster bootstrap:
every game of a deal goes with it; Davison & Hinkley 1997, *Bootstrap Methods and their Application*,
section 3.8), rebuild the payoff table, and solve again near the point estimate's mixture
(:func:`cya_sim.reports.egt.refine_nash`: the equilibrium of the replication on that support, else the
Lyapunov minimisation from it); the percentile interval of each weight and of each α-Rank mass, and the share of
replications in which an agent is in the support (weight > ``SUPPORT_MIN``), are reported. The intervals are per
agent at the stated level, not simultaneous (no multiplicity adjustment across agents). With B = 0 no interval is
printed ("no interval (--bootstrap 0)"); no printed number is ``nan`` or ``-0.000`` (:func:`number_text`).

**Outputs.** ``payoffs.csv``, ``mix.csv``, ``dominance.csv``, ``result.json``, the two plots, ``REPORT.md`` and
``openspiel_hpt.npy`` (the solvers' game as OpenSpiel's heuristic payoff table, :func:`write_outputs`).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cya_sim import __version__
from cya_sim.reports.egt import (
    ProfileGame,
    all_profiles,
    alpharank,
    openspiel_hpt,
    refine_nash,
    replicator,
    symmetric_nash,
)
from cya_sim.reports.numbers import decimals_apart
from cya_sim.reports.stats import estimate_from_sums
from cya_sim.runs.experiment import Experiment, RunOptions, design_lineups, parse_experiment

#: A weight above this is "in the support" of a mixture.
SUPPORT_MIN = 0.01


class MetagameError(ValueError):
    """A refused metagame request; ``str(e)`` is the one line shown (exit status 2)."""


@dataclass(frozen=True)
class MetagameConfig:
    """One metagame run.

    Attributes:
        pool: (K,) agent specs, K >= 2, distinct. players: table size P. deals: duplicated deals (each played
            by every line-up in every rotation). preset, options: the rules. seed: root seed.
        out: results folder. workers: local processes of the games. bootstrap: replications (0: none).
        alpha, m: α-Rank's selection intensity and population size. confidence: interval level.
    """

    pool: tuple[str, ...]
    players: int
    out: Path
    deals: int = 200
    preset: str = "classic"
    options: tuple[tuple[str, Any], ...] = ()
    seed: int = 1
    workers: int = 1
    bootstrap: int = 200
    alpha: float = 100.0
    m: int = 50
    confidence: float = 0.95


#: Upper bounds of the numeric inputs (refused before any game is played): bootstrap replications (each solves the
#: game again: about 10 ms at 5 agents), worker processes, and the interval level's range.
MAX_BOOTSTRAP = 100_000
MAX_WORKERS = 256
CONFIDENCE_RANGE = (0.5, 0.999)


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def check_config(cfg: MetagameConfig) -> Experiment:
    """Validate and return the games' experiment (nothing written, nothing played).

    Bounds: deals from 1 to ``MAX_GAMES // (line-ups x P)`` (the run layer's bound on games,
    :data:`cya_sim.game.limits.MAX_GAMES`); bootstrap from 0 to :data:`MAX_BOOTSTRAP`; alpha in
    (0, :data:`cya_sim.reports.egt.MAX_ALPHA`]; the population m from P (:func:`cya_sim.reports.egt.min_population`)
    to :data:`cya_sim.reports.egt.MAX_POPULATION`; workers from 1 to :data:`MAX_WORKERS`; confidence in
    :data:`CONFIDENCE_RANGE`.

    Raises:
        MetagameError: an empty pool, a pool of one, an agent given twice, or a number outside its bound (one line
            naming the flag and its range). ExperimentError: an unknown agent, rule option or refused folder
            (named).
    """
    from agents.spec import AgentSpecError, normalise_spec
    from cya_sim.game.limits import MAX_GAMES, MAX_SEED
    from cya_sim.reports.egt import MAX_ALPHA, MAX_POPULATION, min_population

    if not cfg.pool:
        raise MetagameError("--pool is empty; name at least two agents, e.g. --pool greedy,card_counter")
    try:
        norm = [normalise_spec(a) for a in cfg.pool]
    except AgentSpecError as e:
        raise MetagameError(str(e)) from None
    if len(norm) < 2:
        raise MetagameError(f"--pool {cfg.pool[0]!r} is a pool of one; a metagame needs at least two agents")
    dup = [a for i, a in enumerate(norm) if a in norm[:i]]
    if dup:
        raise MetagameError(f"--pool: agent {dup[0]!r} is given twice")
    doc = {"name": "metagame", "seed": 0, "games": 1, "players": cfg.players, "agents": norm,
           "out": str(cfg.out / "games"), "rules": {"preset": cfg.preset, "options": dict(cfg.options)},
           "design": {"kind": "round_robin", "repeats": True, "duplicate": True}}
    parse_experiment(doc)  # the table size, agents and rules first (their own one-line refusals)
    lineups = math.comb(len(norm) + cfg.players - 1, cfg.players) - len(norm)
    max_deals = max(1, MAX_GAMES // (lineups * cfg.players))
    if not _is_int(cfg.deals) or not 1 <= cfg.deals <= max_deals:
        raise MetagameError(f"--deals {cfg.deals!r}: must be an integer from 1 to {max_deals:,} ({len(norm)} agents "
                            f"at {cfg.players} players: {lineups} line-ups x {cfg.players} rotations per deal, at "
                            f"most {MAX_GAMES:,} games)")
    if not _is_int(cfg.bootstrap) or not 0 <= cfg.bootstrap <= MAX_BOOTSTRAP:
        raise MetagameError(f"--bootstrap {cfg.bootstrap!r}: must be an integer from 0 (none) to {MAX_BOOTSTRAP:,}")
    if not _is_number(cfg.alpha) or not (math.isfinite(cfg.alpha) and 0 < cfg.alpha <= MAX_ALPHA):
        raise MetagameError(f"--alpha {cfg.alpha!r}: must be a number > 0 and <= {MAX_ALPHA:g} (the selection "
                            "intensity; payoffs are win shares in [0, 1])")
    lo = min_population(cfg.players)
    if not _is_int(cfg.m) or not lo <= cfg.m <= MAX_POPULATION:
        raise MetagameError(f"--population {cfg.m!r}: must be an integer from {lo} to {MAX_POPULATION:,} at "
                            f"{cfg.players} players (each player's {cfg.players - 1} co-players are drawn from the "
                            "other m - 1 of the population)")
    if not _is_int(cfg.workers) or not 1 <= cfg.workers <= MAX_WORKERS:
        raise MetagameError(f"--workers {cfg.workers!r}: must be an integer from 1 to {MAX_WORKERS}")
    if not _is_int(cfg.seed) or not 0 <= cfg.seed <= MAX_SEED:
        raise MetagameError(f"--seed {cfg.seed!r}: must be an integer from 0 to {MAX_SEED:,}")
    c_lo, c_hi = CONFIDENCE_RANGE
    if not _is_number(cfg.confidence) or not c_lo <= cfg.confidence <= c_hi:
        raise MetagameError(f"confidence {cfg.confidence!r}: must be a number from {c_lo} to {c_hi}")
    exp = parse_experiment({**doc, "seed": cfg.seed, "games": cfg.deals * lineups * cfg.players})
    return replace(exp, run=RunOptions(engine="batched", workers=cfg.workers))


def deal_sums(games: pd.DataFrame, exp: Experiment) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-deal win-share sums of every (line-up, agent).

    Returns:
        (counts (L, K) int64 of the played line-ups, sums (D, L, K) float64: the agent's win shares over its
        seats and the line-up's rotations on that deal, seats (L, K): its seat-games per deal = counts x P).
        Deals some line-up did not play in full (a run cut short) are dropped.
    """
    k, p = len(exp.agents), exp.players[0]
    lu = design_lineups(exp.design, exp.agents, p)
    counts = np.stack([np.bincount(r.astype(np.int64), minlength=k) for r in lu])
    codes = {a: i for i, a in enumerate(exp.agents)}
    lineup = games["lineup"].to_numpy().astype(np.int64)
    deal = games["deal"].to_numpy().astype(np.int64)
    deals = np.unique(deal)
    pos = np.searchsorted(deals, deal)
    sums = np.zeros((deals.size, lu.shape[0], k))
    played = np.zeros((deals.size, lu.shape[0]))
    np.add.at(played, (pos, lineup), 1.0)
    for s in range(p):
        agent = games[f"seat_{s}_agent"].astype(str).map(codes).to_numpy().astype(np.int64)
        np.add.at(sums, (pos, lineup, agent), games[f"seat_{s}_win_share"].to_numpy(np.float64))
    keep = (played == p).all(axis=1)
    return counts, sums[keep], counts * p


def profile_game(counts: np.ndarray, sums: np.ndarray, seats: np.ndarray, labels: tuple[str, ...],
                 weights: np.ndarray | None = None) -> ProfileGame:
    """The profile table (every multiset of P, single-agent rows at 1/P) from per-deal sums (:func:`deal_sums`).

    ``weights`` (D,): bootstrap multiplicities of the deals (default all 1).
    """
    k = counts.shape[1]
    p = int(counts[0].sum())
    d = sums.shape[0]
    w = np.ones(d) if weights is None else np.asarray(weights, np.float64)
    tot = np.tensordot(w, sums, axes=(0, 0))  # (L, K)
    with np.errstate(invalid="ignore", divide="ignore"):
        pay = np.where(counts > 0, tot / (seats * w.sum()), np.nan)
    allp = all_profiles(k, p)
    row = {tuple(int(c) for c in r): i for i, r in enumerate(counts)}
    out = np.full(allp.shape, np.nan)
    for i, r in enumerate(allp):
        key = tuple(int(c) for c in r)
        if key in row:
            out[i] = pay[row[key]]
        else:  # a single-agent table: every seat has the same policy, win share 1/P by symmetry
            out[i, np.flatnonzero(r)[0]] = 1.0 / p
    return ProfileGame(allp, out, labels)


def payoff_table(counts: np.ndarray, sums: np.ndarray, seats: np.ndarray, labels: tuple[str, ...],
                 confidence: float = 0.95) -> pd.DataFrame:
    """``payoffs.csv``: one row per (played line-up, agent in it): ``lineup`` (agents with counts), ``agent``,
    ``seats`` (its count in the line-up), ``payoff`` (per-seat win share), ``low``, ``high`` (deal-clustered
    Wilson interval on the effective sample size), ``deals``."""
    rows = []
    for l_, c in enumerate(counts):
        name = " + ".join(f"{n}x {labels[j]}" if n > 1 else labels[j] for j, n in enumerate(c) if n)
        for j in np.flatnonzero(c):
            e = estimate_from_sums(sums[:, l_, j], np.full(sums.shape[0], float(seats[l_, j])), confidence,
                                   proportion=True)
            rows.append({"lineup": name, "agent": labels[j], "seats": int(c[j]), "payoff": e.value,
                         "low": e.low, "high": e.high, "deals": e.units})
    return pd.DataFrame(rows)


#: The common columns of a stored game compared to detect aliases (:func:`find_aliases`); every seat's total and
#: win share are added for the table size, and the game family's own columns (its counts, in its words).
ALIAS_GAME_COLUMNS = ("decisions", "capped")


def alias_columns(players: int, family: Sequence[str] = ()) -> list[str]:
    """The stored columns :func:`find_aliases` compares (and the seat agents and deal it keys on); ``family``: the
    names of the game family's own columns (``ResultColumns.names``)."""
    return (["deal"] + [f"seat_{s}_agent" for s in range(players)] + [f"seat_{s}_total" for s in range(players)]
            + [f"seat_{s}_win_share" for s in range(players)] + list(ALIAS_GAME_COLUMNS) + list(family))


def _family_columns(games: pd.DataFrame) -> list[str]:
    """The game family's own columns the frame holds (none when it holds no family's: a frame built by hand)."""
    from cya_sim.results.folder import family_of_games

    try:
        return [c for c in family_of_games(games).names if c in games.columns]
    except ValueError:
        return []


def find_aliases(games: pd.DataFrame, agents: Sequence[str], players: int) -> list[tuple[int, int, int]]:
    """Agents of the pool that play identically on the data: ``(representative, alias, pairs compared)``.

    Agents a and b (a before b in the pool) are aliases when every two games on the same duplicated deal whose
    seatings become equal once b is written as a — the same line-up with a and b exchanged in some seats —
    have the same record: every seat's total and win share, the game's decisions and cap flag
    (``ALIAS_GAME_COLUMNS``) and the family's own columns (the classic game's rounds, turns, challenges, largest
    steal; the theft game's first player, turns, thefts...), and at least one such pair was
    played. The actions themselves are not stored, so this is identity of the game records, not a proof that
    the two policies choose the same action in every state; on duplicated deals two different policies almost
    never give identical records in every one of hundreds of games. An alias of an alias belongs to the
    first representative (the earliest in the pool).

    Args:
        games: stored games with :func:`alias_columns`. agents: (K,) the pool's specs (the seat agents' names).
        players: the table size P.
    """
    k = len(agents)
    codes_of = {a: i for i, a in enumerate(agents)}
    seat = np.column_stack([games[f"seat_{s}_agent"].astype(str).map(codes_of).to_numpy().astype(np.int64)
                            for s in range(players)])
    rec_cols = ([f"seat_{s}_total" for s in range(players)] + [f"seat_{s}_win_share" for s in range(players)]
                + [c for c in ALIAS_GAME_COLUMNS if c in games.columns] + _family_columns(games))
    rec = games[rec_cols].to_numpy(np.float64)
    deal = games["deal"].to_numpy().astype(np.int64)
    rep = list(range(k))
    out = []
    for a in range(k):
        if rep[a] != a:
            continue
        for b in range(a + 1, k):
            if rep[b] != b:
                continue
            has = ((seat == a) | (seat == b)).any(axis=1)
            if not has.any():
                continue
            key = np.column_stack([deal[has], np.where(seat[has] == b, a, seat[has])])
            _u, first, inv, cnt = np.unique(key, axis=0, return_index=True, return_inverse=True, return_counts=True)
            inv = inv.ravel()
            pairs = int((cnt - 1).sum())
            if pairs == 0:
                continue
            sub = rec[has]
            if np.array_equal(sub, sub[first[inv]], equal_nan=True):
                rep[b] = a
                out.append((a, b, pairs))
    return out


def merge_aliases(counts: np.ndarray, sums: np.ndarray, seats: np.ndarray, labels: tuple[str, ...],
                  aliases: Sequence[tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                     tuple[str, ...]]:
    """The per-deal sums (:func:`deal_sums`) with every alias (:func:`find_aliases`) removed: its column and every
    line-up it sits in (their games are copies of its representative's), so the solvers see one strategy.

    Returns:
        (counts (L', K'), sums (D, L', K'), seats (L', K'), labels (K',)).
    """
    gone = sorted({b for _a, b, _n in aliases})
    if not gone:
        return counts, sums, seats, labels
    keep_k = np.array([j not in gone for j in range(counts.shape[1])])
    keep_l = counts[:, ~keep_k].sum(axis=1) == 0
    return (counts[keep_l][:, keep_k], sums[:, keep_l][:, :, keep_k], seats[keep_l][:, keep_k],
            tuple(lab for lab, k_ in zip(labels, keep_k, strict=True) if k_))


def dominance_tests(counts: np.ndarray, sums: np.ndarray, seats: np.ndarray, labels: tuple[str, ...],
                    confidence: float = 0.95) -> pd.DataFrame:
    """Strict dominance between the pure strategies, tested on the deals.

    For an ordered pair (i, j) and each profile n of the P - 1 others, the per-deal difference
    ``u_j(n + e_j) - u_i(n + e_i)`` (the deal's win shares over its seat-games; every line-up plays every deal, so
    the differences are paired by deal; a single-agent profile is 1/P exactly; rounded to 1e-12, since win shares
    are fractions with small denominators and anything below is floating-point rounding). j strictly dominates i when
    every difference is positive: an intersection–union test (Berger 1982, Technometrics 24:295–300) whose
    p-value is the largest of the one-sided paired t tests (H1: mean difference > 0, D - 1 df); its
    ``low`` is the smallest of their one-sided lower confidence bounds at ``confidence``, a lower bound of the
    margin (the smallest mean difference). Holm's (1979) adjustment over the K (K - 1) ordered pairs
    (``p_holm``); ``dominated`` = ``p_holm < 1 - confidence`` (which implies ``low > 0``: the margin's interval
    excludes 0).

    Returns:
        One row per ordered pair: ``agent`` (i), ``by`` (j), ``margin`` (win share), ``low``, ``p``, ``p_holm``,
        ``dominated`` (bool), ``deals``. With fewer than 2 deals ``low`` and the p-values are NaN, nothing dominated.
    """
    from scipy import stats as sps

    from cya_sim.reports.egt import all_profiles
    from cya_sim.reports.stats import holm

    k = counts.shape[1]
    p = int(counts[0].sum())
    d = sums.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        per_deal = np.where(counts[None] > 0, sums / np.maximum(seats, 1)[None], np.nan)  # (D, L, K)
    row = {tuple(int(c) for c in r): i for i, r in enumerate(counts)}
    others = all_profiles(k, p - 1)
    eye = np.eye(k, dtype=np.int64)
    # column of u_i(n + e_i) per deal: its line-up, or -1 for the single-agent table (1/P exactly)
    col = np.array([[row.get(tuple(int(c) for c in n + eye[i]), -1) for n in others] for i in range(k)])

    def payoff(i: int, q: int) -> np.ndarray:
        return per_deal[:, col[i, q], i] if col[i, q] >= 0 else np.full(d, 1.0 / p)

    t_crit = sps.t.ppf(confidence, d - 1) if d >= 2 else float("nan")
    rows = []
    for i in range(k):
        for j in range(k):
            if j == i:
                continue
            means, ps, lows = [], [], []
            for q in range(others.shape[0]):
                diff = np.round(payoff(j, q) - payoff(i, q), 12)  # below 1e-12: floating-point rounding
                mean = float(diff.mean())
                means.append(mean)
                if d >= 2:
                    se = float(diff.std(ddof=1)) / math.sqrt(d)
                    ps.append(float(sps.t.sf(mean / se, d - 1)) if se > 0 else (0.0 if mean > 0 else 1.0))
                    lows.append(mean - t_crit * se)
            rows.append({"agent": labels[i], "by": labels[j], "margin": min(means),
                         "low": min(lows) if lows else float("nan"), "p": max(ps) if ps else float("nan"),
                         "deals": d})
    df = pd.DataFrame(rows, columns=["agent", "by", "margin", "low", "p", "deals"])
    df["p_holm"] = holm(df["p"].to_numpy(float)) if len(df) else []
    df["dominated"] = (df["p_holm"] < 1 - confidence) & (df["low"] > 0)
    return df[["agent", "by", "margin", "low", "p", "p_holm", "dominated", "deals"]]


@dataclass
class MetagameResult:
    """What a metagame run found.

    Attributes:
        game: the point-estimate profile game. payoffs: :func:`payoff_table`. mix: one row per agent with the
            Nash weight (``nash``, ``nash_low``, ``nash_high``, ``in_support``: bootstrap share with weight >
            SUPPORT_MIN), the α-Rank mass (``alpharank``, ``alpharank_low``, ``alpharank_high``), ``fitness``
            (expected payoff against the mixture), ``dominated_by`` (agents that strictly dominate it, tested:
            :func:`dominance_tests`) and ``aliases`` (agents of the pool merged into it, :func:`find_aliases`).
            regret: the mixture's epsilon. rho: α-Rank's fixation probabilities (K, K). deals: deals used.
            elapsed_s: wall seconds. dominance: :func:`dominance_tests`. aliases: (representative, alias, pairs
            of games compared). pool: every agent of the pool, aliases too (default: the game's labels).
    """

    game: ProfileGame
    payoffs: pd.DataFrame
    mix: pd.DataFrame
    regret: float
    rho: np.ndarray
    deals: int
    elapsed_s: float = 0.0
    dominance: pd.DataFrame | None = None
    aliases: list[tuple[str, str, int]] = field(default_factory=list)
    pool: tuple[str, ...] = ()


def solve(cfg: MetagameConfig, counts: np.ndarray, sums: np.ndarray, seats: np.ndarray,
          labels: tuple[str, ...], progress: bool = False, starts: int = 4, rank: bool = True) -> MetagameResult:
    """Point estimates, the dominance tests and the bootstrap over deals (module docstring) from per-deal sums.

    ``starts``: random replicator starts of the point estimate (:func:`symmetric_nash`); ``rank``: also
    bootstrap α-Rank (False leaves its interval NaN).
    """
    from tqdm.auto import tqdm

    game = profile_game(counts, sums, seats, labels)
    x, eps = symmetric_nash(game, seed=cfg.seed, starts=starts)
    pi, rho = alpharank(game, cfg.m, cfg.alpha)
    dom = dominance_tests(counts, sums, seats, labels, cfg.confidence)
    f = _fitness(game, x)
    k, d = len(labels), sums.shape[0]
    rng = np.random.default_rng(cfg.seed)
    bx, bpi = [], []
    for _ in tqdm(range(cfg.bootstrap), desc="bootstrap", disable=not progress, dynamic_ncols=True):
        w = rng.multinomial(d, np.full(d, 1.0 / d))
        g = profile_game(counts, sums, seats, labels, w)
        xb, _ = refine_nash(g, x)
        bx.append(xb)
        if rank:
            bpi.append(alpharank(g, cfg.m, cfg.alpha)[0])
    a = (1 - cfg.confidence) / 2

    def q(v: list, j: int, lo: bool) -> float:
        return float(np.quantile(np.array(v)[:, j], a if lo else 1 - a)) if v else float("nan")

    conf = round(100 * cfg.confidence)
    rows = []
    for j in range(k):
        by = dom[(dom["agent"] == labels[j]) & dom["dominated"]]
        rows.append({"agent": labels[j], "nash": float(x[j]), "nash_low": q(bx, j, True), "nash_high": q(bx, j, False),
                     "in_support": float(np.mean([b[j] > SUPPORT_MIN for b in bx])) if bx else float("nan"),
                     "alpharank": float(pi[j]), "alpharank_low": q(bpi, j, True), "alpharank_high": q(bpi, j, False),
                     "fitness": float(f[j]),
                     "dominated_by": "; ".join(f"{t.by} (margin {_pts(t.margin)} pts, {conf}% lower bound "
                                               f"{_pts(t.low)}, p (Holm) {_pval(t.p_holm)})" for t in by.itertuples()),
                     "aliases": ""})
    return MetagameResult(game, payoff_table(counts, sums, seats, labels, cfg.confidence), pd.DataFrame(rows),
                          eps, rho, d, dominance=dom)


def number_text(v: float, digits: int = 3) -> str:
    """A number for the console and REPORT.md with ``digits`` decimals: ``n/a`` when not finite (or None), and a
    value that rounds to zero as ``0.000``, never ``-0.000``."""
    if v is None or not math.isfinite(v):
        return "n/a"
    text = f"{v:.{digits}f}"
    return f"{0.0:.{digits}f}" if float(text) == 0.0 else text


def _pts(v: float) -> str:
    """A win-share difference in points (1 point = 0.01 win share), two decimals."""
    return number_text(100 * v, 2) if v is not None and math.isfinite(v) else "n/a"


def _pval(v: float) -> str:
    if v is None or not math.isfinite(v):
        return "n/a"
    return "< 0.001" if v < 0.001 else f"{v:.3f}"


def _share(v: float) -> str:
    return "n/a" if v is None or not math.isfinite(v) else f"{v:.0%}"


def interval_text(low: float, high: float, bootstrap: int, digits: int = 3) -> str:
    """``low to high``, or ``no interval (--bootstrap 0)``, or ``n/a`` (not computed)."""
    if bootstrap == 0:
        return "no interval (--bootstrap 0)"
    if not (math.isfinite(low) and math.isfinite(high)):
        return "n/a"
    return f"{number_text(low, digits)} to {number_text(high, digits)}"


def selection_model(cfg: MetagameConfig) -> str:
    """One sentence naming α-Rank's model and its parameters (console and REPORT.md)."""
    return (f"α-Rank (Omidshafiei et al. 2019, \"α-Rank: Multi-Agent Evaluation by Evolution\", Sci. Rep. 9:9937): "
            f"one population of m = {cfg.m}, Moran process with Fermi selection of intensity alpha = {cfg.alpha:g}, "
            f"mutation rate -> 0 (the small-mutation limit: monomorphic populations, each other strategy the "
            f"mutant with probability 1/(K-1)); a player's fitness is its payoff against {cfg.players - 1} "
            f"co-player{'s' if cfg.players > 2 else ''} drawn without replacement from the rest of the population; fixation probabilities and the "
            "stationary distribution computed in log space")


def _fitness(game: ProfileGame, x: np.ndarray) -> np.ndarray:
    from cya_sim.reports.egt import expected_payoffs

    return expected_payoffs(game, x)


#: Every file and folder a metagame run writes into its results folder (a folder holding anything else is refused).
OWN_FILES = frozenset({"games", "payoffs.csv", "mix.csv", "dominance.csv", "openspiel_hpt.npy", "result.json", "runs.json",
                       "response_graph.png", "replicator.png", "REPORT.md"})


def run_metagame(cfg: MetagameConfig, progress: bool = True, command: str | None = None) -> MetagameResult:
    """Play (or resume) the games, detect aliases (:func:`find_aliases`; merged for the solvers), solve, and write
    ``payoffs.csv``, ``mix.csv``, ``dominance.csv``, ``openspiel_hpt.npy``, ``result.json``,
    ``response_graph.png``, ``replicator.png`` and ``REPORT.md`` into ``cfg.out``.

    Raises:
        MetagameError, ExperimentError: a refused input (nothing played); or, after the games, a pool whose agents
            are all aliases of one (nothing to solve; the games are kept).
        FolderError: ``cfg.out`` holds files that are not this study's (nothing played or written).
        KeyboardInterrupt: Ctrl-C; finished chunks of games are kept and a rerun resumes.
    """
    from cya_sim.results.folder import check_study_folder, first_command, load_games, read_runs, record_run
    from cya_sim.runs.runner import run_experiment

    t0 = time.perf_counter()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    exp = check_config(cfg)
    check_study_folder(cfg.out, "cya-sim metagame", OWN_FILES)
    run_experiment(exp, progress=progress, command=command)
    p = cfg.players
    from cya_sim.play.families import family_of

    games = load_games(exp.out, columns=["lineup"] + alias_columns(p, family_of(exp.rules).result_columns().names))
    labels = tuple(exp.agents)
    counts, sums, seats = deal_sums(games, exp)
    found = find_aliases(games, labels, p)
    mc, ms, mseats, mlabels = merge_aliases(counts, sums, seats, labels, found)
    if len(mlabels) < 2:
        raise MetagameError(f"--pool: every agent plays as {mlabels[0]!r} (aliases: "
                            f"{', '.join(labels[b] for _a, b, _n in found)}: identical games on every shared deal); "
                            "a metagame needs two different strategies (the games are kept in games/)")
    r = solve(cfg, mc, ms, mseats, mlabels, progress)
    r.payoffs = payoff_table(counts, sums, seats, labels, cfg.confidence)  # every line-up played, aliases too
    r.aliases = [(labels[a], labels[b], n) for a, b, n in found]
    r.pool = labels
    for rep, alias, _n in r.aliases:
        j = r.mix.index[r.mix["agent"] == rep][0]
        r.mix.loc[j, "aliases"] = "; ".join(x for x in (r.mix.loc[j, "aliases"], alias) if x)
    r.elapsed_s = time.perf_counter() - t0
    record_run(cfg.out, {"started_utc": started, "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
                         "command": command, "cya_sim_version": __version__, "wall_s": round(r.elapsed_s, 1)})
    write_outputs(cfg, r, first_command(read_runs(cfg.out)))
    return r


def response_graph_figure(r: MetagameResult, m: int):
    """The α-Rank response graph: node area ~ α-Rank mass, an arrow s -> r where a mutant r fixates in a population
    of s more often than a neutral one (rho > 1/m), its width ~ log(rho m).

    Every agent has its own colour (the same in :func:`replicator_figure`) and its label outside its node, with its
    α-Rank mass; a spec longer than :data:`cya_sim.reports.plots.LABEL_MAX` is its family and a key letter, the
    whole spec in the key under the graph, so two specs of one family stay apart.

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from cya_sim.reports.plots import DPI, MIN_FONT, agent_colours, agent_labels, with_key

    labels = r.game.labels
    k = len(labels)
    names, key = agent_labels(labels)
    colours = agent_colours(labels)
    ang = np.pi / 2 - 2 * np.pi * np.arange(k) / k
    pos = np.column_stack([np.cos(ang), np.sin(ang)])
    fig = Figure(dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = with_key(fig, key, 6.4, 5.2).subplots()
    pi = r.mix["alpharank"].to_numpy()
    area = 250 + 2500 * pi
    rad = np.sqrt(area / np.pi) + 3  # points
    for s in range(k):
        for t in range(k):
            if s != t and r.rho[s, t] > 1.0 / m:
                width = 0.5 + min(4.0, math.log(r.rho[s, t] * m))
                ax.annotate("", xy=pos[t] * 0.8, xytext=pos[s] * 0.8,
                            arrowprops={"arrowstyle": "-|>", "lw": width, "color": "0.45", "mutation_scale": 16,
                                        "shrinkA": rad[s], "shrinkB": rad[t], "connectionstyle": "arc3,rad=0.08"})
    ax.scatter(pos[:, 0] * 0.8, pos[:, 1] * 0.8, s=area, c=[colours[a] for a in labels], zorder=3,
               edgecolors="white", linewidths=1.5)
    for j in range(k):
        x, y = pos[j] * (0.8 + 0.06 + rad[j] / 110)  # outside the node: about 110 points per unit of the axes
        ax.text(x, y, f"{names[labels[j]]}\nα-Rank {number_text(pi[j], 2)}", fontsize=MIN_FONT + 0.5, zorder=4,
                ha="center" if abs(pos[j, 0]) < 0.3 else ("left" if pos[j, 0] > 0 else "right"),
                va="center" if abs(pos[j, 1]) < 0.3 else ("bottom" if pos[j, 1] > 0 else "top"),
                color=colours[labels[j]], bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1})
    ax.set_xlim(-1.75, 1.75)
    ax.set_ylim(-1.25, 1.6)  # room above the top node for its label, under the title
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"α-Rank response graph, {r.game.n_players} players (arrow s→r: a mutant r fixates in a population "
                 f"of s,\nρ > 1/m, m = {m}; width ~ log(ρm); node area ~ α-Rank mass)", fontsize=9)
    return fig


def replicator_figure(r: MetagameResult):
    """Replicator trajectories (each agent's share over time) from the barycentre and from 90% of each agent (up to
    five), one panel each, on one share axis (0 to 1, padded so a share at 0 or 1 is whole); each agent keeps the
    colour of :func:`response_graph_figure` and a line style of its own, and one legend (with the key of long
    specs) sits under the panels.

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from cya_sim.reports.plots import DPI, MIN_FONT, agent_colours, agent_labels, with_key

    g = r.game
    k = g.n_strategies
    names, key = agent_labels(g.labels)
    colours = agent_colours(g.labels)
    styles = ("-", "--", "-.", (0, (6, 1.5, 1.5, 1.5, 1.5, 1.5)), ":")  # with the colours: each agent its own
    starts = [("the barycentre (equal shares)", np.full(k, 1.0 / k))]
    for j in range(k):
        x0 = np.full(k, 0.1 / (k - 1))
        x0[j] = 0.9
        starts.append((f"90% {names[g.labels[j]]}", x0))
    starts = starts[:6]
    n = len(starts)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = Figure(dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    top = with_key(fig, key, 4.0 * cols, 2.9 * rows + 0.9)
    axes = top.subplots(rows, cols, squeeze=False, sharey=True, sharex=True)
    for ax, (name, x0) in zip(axes.ravel(), starts, strict=False):
        t, xs = replicator(g, x0, 1000.0, 301)
        for j in range(k):
            ax.plot(t, xs[:, j], color=colours[g.labels[j]], ls=styles[j % len(styles)], lw=1.6,
                    label=names[g.labels[j]])
        ax.set_title(f"from {name}", fontsize=9)
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_ylim(-0.04, 1.04)
        ax.tick_params(labelsize=MIN_FONT + 0.5, labelbottom=True)
        ax.grid(color="0.93")
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    for ax in axes[-1]:
        ax.set_xlabel("time (1/payoff; log scale past 1)", fontsize=9)
    for row in axes:
        row[0].set_ylabel("share of the population", fontsize=9)
    top.legend(*axes[0, 0].get_legend_handles_labels(), loc="outside lower center", ncol=min(k, 3),
               fontsize=MIN_FONT + 0.5, frameon=False)
    top.suptitle(f"Symmetric replicator dynamics, {g.n_players} players (payoff: per-seat win share)", fontsize=10)
    return fig


def _json_safe(v: Any) -> Any:
    """NaN and infinities as null (strict JSON), NumPy scalars as Python numbers."""
    if isinstance(v, dict):
        return {k: _json_safe(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_safe(x) for x in v]
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return float(v) if math.isfinite(v) else None
    return v


def write_outputs(cfg: MetagameConfig, r: MetagameResult, command: str | None = None) -> None:
    """Write the tables, plots, ``result.json``, ``openspiel_hpt.npy`` and ``REPORT.md``: nothing of when or how long
    (that is the run log's, ``runs.json``), so a replay with the same games writes the same bytes. ``command``: the
    first run's command line, named in REPORT.md.

    ``openspiel_hpt.npy``: the solvers' game (aliases merged) as OpenSpiel's heuristic payoff table, an (L, 2K)
    float64 array (:func:`cya_sim.reports.egt.openspiel_hpt`), strategies in the order of ``result.json``'s
    ``strategies``; ``open_spiel.python.egt.heuristic_payoff_table.from_heuristic_payoff_table`` reads it.
    """
    out = cfg.out
    r.payoffs.to_csv(out / "payoffs.csv", index=False)
    r.mix.to_csv(out / "mix.csv", index=False)
    if r.dominance is not None:
        r.dominance.to_csv(out / "dominance.csv", index=False)
    np.save(out / "openspiel_hpt.npy", openspiel_hpt(r.game))
    doc = {"pool": list(r.pool or r.game.labels),
           "strategies": list(r.game.labels),
           "aliases": [{"agent": b, "alias_of": a, "pairs_of_games_compared": n} for a, b, n in r.aliases],
           "players": cfg.players, "deals": r.deals, "seed": cfg.seed,
           "preset": cfg.preset, "regret": r.regret, "alpha": cfg.alpha, "m": cfg.m, "bootstrap": cfg.bootstrap,
           "selection_model": selection_model(cfg),
           "dominance_test": ("intersection-union of one-sided paired per-deal t tests, Holm (1979) over the "
                              "K (K - 1) ordered pairs"),
           "openspiel_hpt": "openspiel_hpt.npy: (L, 2K) heuristic payoff table, strategies in the order of "
                            "'strategies'",
           "mix": r.mix.to_dict("records")}
    (out / "result.json").write_text(json.dumps(_json_safe(doc), indent=2, allow_nan=False) + "\n")
    response_graph_figure(r, cfg.m).savefig(out / "response_graph.png")
    replicator_figure(r).savefig(out / "replicator.png")
    (out / "REPORT.md").write_text(report_markdown(cfg, r, command))


def report_markdown(cfg: MetagameConfig, r: MetagameResult, command: str | None = None) -> str:
    """REPORT.md: the stable mix, α-Rank, dominance, aliases, the selection model, how it was made."""
    conf = round(100 * cfg.confidence)
    b = cfg.bootstrap
    lines = [f"# Metagame of {len(r.pool or r.game.labels)} agents at {cfg.players} players ({cfg.preset})", "",
             (f"{r.deals:,} duplicated deals, each played by all {len(r.payoffs['lineup'].unique())} line-ups "
              f"with repetition in every rotation; payoff = per-seat win share (single-agent tables: 1/P)."), ""]
    if r.aliases:
        lines += [("**Aliases** (identical game records on every pair of games of the same deal whose seatings "
                   "differ only by exchanging the two; merged into one strategy for the solvers):"), ""]
        lines += [f"- `{alias}` plays as `{rep}` ({n:,} pairs of games compared)" for rep, alias, n in r.aliases]
        lines += [""]
    lines += [(f"| agent | Nash weight | {conf}% bootstrap | in support | α-Rank | {conf}% bootstrap | payoff vs mix "
               "| dominated by |"), "|---|---|---|---|---|---|---|---|"]
    for m in r.mix.itertuples():
        name = f"`{m.agent}`" + (f" (= `{'`, `'.join(m.aliases.split('; '))}`)" if m.aliases else "")
        dn = decimals_apart([m.nash, m.nash_low, m.nash_high], 3)  # an estimate never reads equal to a bound it
        da = decimals_apart([m.alpharank, m.alpharank_low, m.alpharank_high], 3)  # is not equal to
        lines.append(f"| {name} | {number_text(m.nash, dn)} | {interval_text(m.nash_low, m.nash_high, b, dn)} | "
                     f"{_share(m.in_support) if b else '-'} | {number_text(m.alpharank, da)} | "
                     f"{interval_text(m.alpharank_low, m.alpharank_high, b, da)} | {number_text(m.fitness, 4)} | "
                     f"{m.dominated_by or '-'} |")
    intervals = (f"Intervals: percentile bootstrap over deals ({b} replications), per agent, not simultaneous; "
                 f"'in support' is the share of replications with weight > {SUPPORT_MIN}." if b else
                 "No bootstrap intervals (--bootstrap 0).")
    lines += ["", (f"The mixture is an epsilon-Nash equilibrium of the estimated game with epsilon (regret) = "
                   f"{r.regret:.2e} win share. {intervals}"), "",
              f"Selection model: {selection_model(cfg)}.", "",
              ("Dominance: j strictly dominates i when j's payoff beats i's against every profile of the others; "
               "tested on the deals as an intersection-union test (the largest of the one-sided paired per-deal t "
               f"tests, one per profile), Holm (1979) over the {len(r.dominance) if r.dominance is not None else 0} "
               f"ordered pairs at level {1 - cfg.confidence:.2g}; listed only when rejected (then the {conf}% lower "
               "bound of the margin is above 0). All pairs: dominance.csv."), "",
              ("Plots: response_graph.png (α-Rank), replicator.png. Tables: payoffs.csv (every line-up, deal-clustered "
               "intervals), mix.csv, dominance.csv; openspiel_hpt.npy: the game as OpenSpiel's heuristic payoff table "
               "(strategies in the order of the table above). Games: games/ (resumable)."), "",
              (f"Command (the first run's): `{command or 'python'}`. Every run's command line, times and wall seconds "
               "are in the run log, `runs.json`; a replay with the same games adds an entry there and rewrites every "
               "other file byte for byte."), ""]
    return "\n".join(lines)


#: The 2-player constant-sum game of :func:`bootstrap_coverage`: ``0.5 + A / 12`` with A skew-symmetric, whose
#: unique symmetric equilibrium is interior, (1/3, 1/2, 1/6) (A x = 0).
COVERAGE_MATRIX = 0.5 + np.array([[0.0, -1.0, 3.0], [1.0, 0.0, -2.0], [-3.0, 2.0, 0.0]]) / 12.0
COVERAGE_TRUTH = np.array([1 / 3, 1 / 2, 1 / 6])


def simulate_deal_sums(matrix: np.ndarray, deals: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray,
                                                                                         np.ndarray]:
    """Per-deal sums (as :func:`deal_sums`) of a simulated 2-player game: line-up (i, j), i < j, played in both
    rotations on each deal; the row agent wins each game with probability ``matrix[i, j]`` (no ties)."""
    k = matrix.shape[0]
    lu = [(i, j) for i in range(k) for j in range(i + 1, k)]
    counts = np.zeros((len(lu), k), np.int64)
    sums = np.zeros((deals, len(lu), k))
    for l_, (i, j) in enumerate(lu):
        counts[l_, i] = counts[l_, j] = 1
        wins_i = rng.binomial(2, matrix[i, j], size=deals).astype(np.float64)
        sums[:, l_, i], sums[:, l_, j] = wins_i, 2.0 - wins_i
    return counts, sums, counts * 2


def bootstrap_coverage(reps: int = 100, deals: int = 200, bootstrap: int = 100, seed: int = 3,
                       confidence: float = 0.95) -> dict[str, Any]:
    """Coverage of the bootstrap intervals of the Nash weights on a simulated game with a known equilibrium.

    Each replication simulates ``deals`` deals of :data:`COVERAGE_MATRIX` (:func:`simulate_deal_sums`) and runs
    :func:`solve`; the truth is :data:`COVERAGE_TRUTH`.

    Returns:
        dict: ``coverage`` (K,) share of replications whose interval holds each true weight, ``joint`` (share
        holding all K at once), ``reps``, ``half_width`` (K,) mean half-widths.
    """
    rng = np.random.default_rng(seed)
    cfg = MetagameConfig(pool=("a", "b", "c"), players=2, out=Path("."), bootstrap=bootstrap, seed=seed,
                         confidence=confidence)
    hit = np.zeros((reps, 3), bool)
    hw = np.zeros((reps, 3))
    for i in range(reps):
        counts, sums, seats = simulate_deal_sums(COVERAGE_MATRIX, deals, rng)
        r = solve(replace(cfg, seed=seed + i), counts, sums, seats, ("a", "b", "c"), starts=0, rank=False)
        lo, hi = r.mix["nash_low"].to_numpy(), r.mix["nash_high"].to_numpy()
        hit[i] = (lo <= COVERAGE_TRUTH) & (COVERAGE_TRUTH <= hi)
        hw[i] = (hi - lo) / 2
    return {"coverage": hit.mean(axis=0), "joint": float(hit.all(axis=1).mean()), "reps": reps,
            "half_width": hw.mean(axis=0)}
