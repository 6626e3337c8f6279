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

**Solutions.** :func:`cya_sim.reports.egt.symmetric_nash` (an epsilon-Nash mixture; its regret is reported),
:func:`cya_sim.reports.egt.alpharank` (Omidshafiei et al. 2019), the replicator trajectories from the
barycentre and from near each vertex, and strict dominance between pure strategies.

**Bootstrap over deals.** B replications resample the deals with replacement (the cluster bootstrap:
every game of a deal goes with it; Davison & Hinkley 1997, *Bootstrap Methods and their Application*,
section 3.8), rebuild the payoff table, and solve again near the point estimate's mixture
(:func:`cya_sim.reports.egt.refine_nash`: the equilibrium of the replication on that support, else the
Lyapunov minimisation from it); the percentile interval of each weight and of each α-Rank mass, and the share of replications
in which an agent is in the support (weight > ``SUPPORT_MIN``) or stays dominated, are reported. The
intervals are per agent at the stated level, not simultaneous (no multiplicity adjustment across agents).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from cya_sim.reports.egt import (
    ProfileGame,
    all_profiles,
    alpharank,
    dominated,
    refine_nash,
    replicator,
    symmetric_nash,
)
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


def check_config(cfg: MetagameConfig) -> Experiment:
    """Validate and return the games' experiment (nothing written).

    Raises:
        MetagameError: an empty pool, a pool of one, an agent given twice, deals < 1, a negative bootstrap,
            alpha <= 0 or m < 2. ExperimentError: an unknown agent, rule option or refused folder (named).
    """
    from agents.spec import AgentSpecError, normalise_spec

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
    if cfg.deals < 1:
        raise MetagameError(f"--deals {cfg.deals}: the budget must be at least 1 deal")
    if cfg.bootstrap < 0:
        raise MetagameError(f"--bootstrap {cfg.bootstrap}: give 0 (none) or more replications")
    if not (cfg.alpha > 0 and math.isfinite(cfg.alpha)):
        raise MetagameError(f"--alpha {cfg.alpha}: must be a number > 0")
    if cfg.m < 2:
        raise MetagameError(f"--population {cfg.m}: must be at least 2")
    lineups = len(all_profiles(len(norm), cfg.players)) - len(norm)
    doc = {"name": "metagame", "seed": cfg.seed, "games": cfg.deals * lineups * cfg.players,
           "players": cfg.players, "agents": norm, "out": str(cfg.out / "games"),
           "rules": {"preset": cfg.preset, "options": dict(cfg.options)},
           "design": {"kind": "round_robin", "repeats": True, "duplicate": True}}
    exp = parse_experiment(doc)
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


@dataclass
class MetagameResult:
    """What a metagame run found.

    Attributes:
        game: the point-estimate profile game. payoffs: :func:`payoff_table`. mix: one row per agent with the
            Nash weight (``nash``, ``nash_low``, ``nash_high``, ``in_support``: bootstrap share with weight >
            SUPPORT_MIN), the α-Rank mass (``alpharank``, ``alpharank_low``, ``alpharank_high``), ``fitness``
            (expected payoff against the mixture) and ``dominated_by`` (agents that strictly dominate it, with
            the bootstrap share where that holds). regret: the mixture's epsilon. rho: α-Rank's fixation
            probabilities (K, K). deals: deals used. elapsed_s: wall seconds.
    """

    game: ProfileGame
    payoffs: pd.DataFrame
    mix: pd.DataFrame
    regret: float
    rho: np.ndarray
    deals: int
    elapsed_s: float = 0.0


def solve(cfg: MetagameConfig, counts: np.ndarray, sums: np.ndarray, seats: np.ndarray,
          labels: tuple[str, ...], progress: bool = False, starts: int = 4, rank: bool = True) -> MetagameResult:
    """Point estimates and the bootstrap over deals (module docstring) from per-deal sums.

    ``starts``: random replicator starts of the point estimate (:func:`symmetric_nash`); ``rank``: also
    bootstrap α-Rank (False leaves its interval NaN).
    """
    from tqdm.auto import tqdm

    game = profile_game(counts, sums, seats, labels)
    x, eps = symmetric_nash(game, seed=cfg.seed, starts=starts)
    pi, rho = alpharank(game, cfg.m, cfg.alpha)
    dom = dominated(game)
    f = _fitness(game, x)
    k, d = len(labels), sums.shape[0]
    rng = np.random.default_rng(cfg.seed)
    bx, bpi, bdom = [], [], []
    for _ in tqdm(range(cfg.bootstrap), desc="bootstrap", disable=not progress, dynamic_ncols=True):
        w = rng.multinomial(d, np.full(d, 1.0 / d))
        g = profile_game(counts, sums, seats, labels, w)
        xb, _ = refine_nash(g, x)
        bx.append(xb)
        if rank:
            bpi.append(alpharank(g, cfg.m, cfg.alpha)[0])
        bdom.append({(i, j) for i, j, _m in dominated(g)})
    a = (1 - cfg.confidence) / 2
    def q(v: list, j: int, lo: bool) -> float:
        return float(np.quantile(np.array(v)[:, j], a if lo else 1 - a)) if v else float("nan")

    rows = []
    for j in range(k):
        by = [(labels[jj], m_) for i, jj, m_ in dom if i == j]
        share = {lab: (np.mean([(j, labels.index(lab)) in s for s in bdom]) if bdom else float("nan")) for lab, _ in by}
        rows.append({"agent": labels[j], "nash": float(x[j]), "nash_low": q(bx, j, True), "nash_high": q(bx, j, False),
                     "in_support": float(np.mean([b[j] > SUPPORT_MIN for b in bx])) if bx else float("nan"),
                     "alpharank": float(pi[j]), "alpharank_low": q(bpi, j, True), "alpharank_high": q(bpi, j, False),
                     "fitness": float(f[j]),
                     "dominated_by": "; ".join(f"{lab} (margin {100 * m_:.1f} pts, bootstrap {share[lab]:.0%})"
                                               for lab, m_ in by)})
    return MetagameResult(game, payoff_table(counts, sums, seats, labels, cfg.confidence), pd.DataFrame(rows),
                          eps, rho, d)


def _fitness(game: ProfileGame, x: np.ndarray) -> np.ndarray:
    from cya_sim.reports.egt import expected_payoffs

    return expected_payoffs(game, x)


#: Every file and folder a metagame run writes into its results folder (a folder holding anything else is refused).
OWN_FILES = frozenset({"games", "payoffs.csv", "mix.csv", "result.json", "response_graph.png", "replicator.png",
                       "REPORT.md"})


def run_metagame(cfg: MetagameConfig, progress: bool = True, command: str | None = None) -> MetagameResult:
    """Play (or resume) the games, solve, and write ``payoffs.csv``, ``mix.csv``, ``result.json``,
    ``response_graph.png``, ``replicator.png`` and ``REPORT.md`` into ``cfg.out``.

    Raises:
        MetagameError, ExperimentError: a refused input (nothing played).
        FolderError: ``cfg.out`` holds files that are not this study's (nothing played or written).
    """
    from cya_sim.results.folder import check_study_folder, load_games
    from cya_sim.runs.runner import run_experiment

    t0 = time.perf_counter()
    exp = check_config(cfg)
    check_study_folder(cfg.out, "cya-sim metagame", OWN_FILES)
    run_experiment(exp, progress=progress, command=command)
    p = cfg.players
    games = load_games(exp.out, columns=["lineup", "deal"] + [f"seat_{s}_agent" for s in range(p)]
                       + [f"seat_{s}_win_share" for s in range(p)])
    counts, sums, seats = deal_sums(games, exp)
    r = solve(cfg, counts, sums, seats, tuple(exp.agents), progress)
    r.elapsed_s = time.perf_counter() - t0
    write_outputs(cfg, r, command)
    return r


def response_graph_figure(r: MetagameResult, m: int):
    """The α-Rank response graph: node area ~ α-Rank mass, an arrow s -> r where a mutant r fixates in a population
    of s more often than a neutral one (rho > 1/m), its width ~ log(rho m)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = r.game.labels
    k = len(labels)
    ang = np.pi / 2 - 2 * np.pi * np.arange(k) / k
    pos = np.column_stack([np.cos(ang), np.sin(ang)])
    fig, ax = plt.subplots(figsize=(6, 6))
    pi = r.mix["alpharank"].to_numpy()
    area = 300 + 3000 * pi
    rad = np.sqrt(area / np.pi) + 3  # points
    for s in range(k):
        for t in range(k):
            if s != t and r.rho[s, t] > 1.0 / m:
                width = 0.5 + min(4.0, math.log(r.rho[s, t] * m))
                ax.annotate("", xy=pos[t] * 0.85, xytext=pos[s] * 0.85,
                            arrowprops={"arrowstyle": "-|>", "lw": width, "color": "0.35", "mutation_scale": 18,
                                        "shrinkA": rad[s], "shrinkB": rad[t], "connectionstyle": "arc3,rad=0.08"})
    ax.scatter(pos[:, 0] * 0.85, pos[:, 1] * 0.85, s=area, color="C0", zorder=3)
    for j in range(k):
        ax.text(pos[j, 0] * 1.12, pos[j, 1] * 1.12, f"{labels[j][:28]}\nα-Rank {pi[j]:.2f}", ha="center",
                va="center", fontsize=8)
    ax.set_xlim(-1.5, 1.5)
    ax.set_ylim(-1.4, 1.4)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"response graph ({r.game.n_players} players; arrow s→r: r invades s, ρ > 1/m, m={m})", fontsize=9)
    fig.tight_layout()
    return fig


def replicator_figure(r: MetagameResult):
    """Replicator trajectories (each agent's share over time) from the barycentre and from near each vertex."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    g = r.game
    k = g.n_strategies
    starts = [("barycentre", np.full(k, 1.0 / k))]
    for j in range(k):
        x0 = np.full(k, 0.1 / (k - 1))
        x0[j] = 0.9
        starts.append((f"90% {g.labels[j][:20]}", x0))
    starts = starts[:6]
    n = len(starts)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 2.8 * rows), squeeze=False, sharey=True)
    for ax, (name, x0) in zip(axes.ravel(), starts, strict=False):
        t, xs = replicator(g, x0, 1000.0, 301)
        for j in range(k):
            ax.plot(t, xs[:, j], color=f"C{j}", label=g.labels[j][:30])
        ax.set_title(f"from {name}", fontsize=9)
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel("time (1/payoff; log scale past 1)")
    for ax in axes.ravel()[n:]:
        ax.axis("off")
    axes[0, 0].set_ylabel("share of the population")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle(f"symmetric replicator dynamics, {g.n_players} players", fontsize=10)
    fig.tight_layout()
    return fig


def write_outputs(cfg: MetagameConfig, r: MetagameResult, command: str | None = None) -> None:
    """Write the tables, plots, ``result.json`` and ``REPORT.md``."""
    out = cfg.out
    r.payoffs.to_csv(out / "payoffs.csv", index=False)
    r.mix.to_csv(out / "mix.csv", index=False)
    doc = {"pool": list(r.game.labels), "players": cfg.players, "deals": r.deals, "seed": cfg.seed,
           "preset": cfg.preset, "regret": r.regret, "alpha": cfg.alpha, "m": cfg.m, "bootstrap": cfg.bootstrap,
           "mix": r.mix.to_dict("records"), "command": command, "wall_s": round(r.elapsed_s, 1)}
    (out / "result.json").write_text(json.dumps(doc, indent=2, default=float) + "\n")
    response_graph_figure(r, cfg.m).savefig(out / "response_graph.png", dpi=110)
    replicator_figure(r).savefig(out / "replicator.png", dpi=100)
    (out / "REPORT.md").write_text(report_markdown(cfg, r, command))


def report_markdown(cfg: MetagameConfig, r: MetagameResult, command: str | None = None) -> str:
    """REPORT.md: the stable mix, α-Rank, dominance, how it was made."""
    conf = round(100 * cfg.confidence)
    lines = [f"# Metagame of {len(r.game.labels)} agents at {cfg.players} players ({cfg.preset})", "",
             (f"{r.deals:,} duplicated deals, each played by all {len(r.payoffs['lineup'].unique())} line-ups "
              f"with repetition in every rotation; payoff = per-seat win share (single-agent tables: 1/P)."), "",
             (f"| agent | Nash weight | {conf}% bootstrap | in support | α-Rank | {conf}% bootstrap | payoff vs mix "
             "| dominated by |"), "|---|---|---|---|---|---|---|---|"]
    for m in r.mix.itertuples():
        lines.append(f"| `{m.agent}` | {m.nash:.3f} | {m.nash_low:.3f} to {m.nash_high:.3f} | {m.in_support:.0%} | "
                     f"{m.alpharank:.3f} | {m.alpharank_low:.3f} to {m.alpharank_high:.3f} | {m.fitness:.4f} | "
                     f"{m.dominated_by or '-'} |")
    lines += ["", (f"The mixture is an epsilon-Nash equilibrium of the estimated game with epsilon (regret) = "
                   f"{r.regret:.2e} win share; α-Rank with alpha = {cfg.alpha:g}, m = {cfg.m}. Intervals: "
                   f"percentile bootstrap over deals ({cfg.bootstrap} replications), per agent, not simultaneous; "
                   f"'in support' is the share of replications with weight > {SUPPORT_MIN}."), "",
              ("Plots: response_graph.png (α-Rank), replicator.png. Tables: payoffs.csv (every line-up, deal-clustered "
              "intervals), mix.csv. Games: games/ (resumable)."), "",
              f"Command: `{command or 'python'}`; wall time {r.elapsed_s:.0f} s.", ""]
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
