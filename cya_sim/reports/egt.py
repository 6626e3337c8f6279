"""Evolutionary game theory over an empirical symmetric game: expected payoffs, replicator dynamics, an approximate
symmetric Nash mixture, dominance and α-Rank.

A symmetric P-player game over K strategies (agents) is given as a *profile table* — the heuristic payoff
table of Walsh et al. (2002, AAAI Workshop on Game-Theoretic and Decision-Theoretic Agents) and of
OpenSpiel's ``egt.heuristic_payoff_table``: one row per multiset of P strategies, ``counts`` (L, K) int (how
many players use each strategy, summing to P) and ``payoffs`` (L, K) float, the payoff of one player of
strategy k in that profile (NaN where ``counts == 0``). In the empirical game of cya-sim the payoff is the
per-seat win share (R-TIE), so every profile's payoffs, weighted by counts, sum to 1 (a constant-sum game).

- :func:`expected_payoffs`: ``f_k(x)``, the expected payoff of a player of pure strategy k when the P - 1
  others are drawn independently from the mixture x (multinomial over the others' profiles).
- :func:`replicator`: the symmetric replicator dynamics ``dx_k/dt = x_k (f_k(x) - x·f(x))`` (Taylor & Jonker
  1978, Math. Biosci. 40:145–156), integrated by ``scipy.integrate.solve_ivp``.
- :func:`symmetric_nash`: an approximate symmetric Nash mixture: candidates from replicator end points and
  time averages (which converge to the equilibrium in zero-sum games where orbits cycle; Hofbauer & Sigmund
  1998, *Evolutionary Games and Population Dynamics*, ch. 7), each polished by minimising the Lyapunov
  function ``sum_k max(0, f_k - x·f)^2`` of Nash's equilibrium map (McKelvey 1998, the "liap" method of
  Gambit), the one with the smallest regret kept. Its ``regret`` (``max_k f_k(x) - x·f(x)``) says how far
  from an exact equilibrium it is (an epsilon-Nash).
- :func:`dominated`: strict dominance between pure strategies of a symmetric game (every profile of the
  others).
- :func:`alpharank`: single-population α-Rank (Omidshafiei et al. 2019, "α-Rank: Multi-Agent Evaluation by
  Evolution", Scientific Reports 9:9937) for a P-player symmetric game: in the small-mutation limit the
  population is monomorphic; a mutant r invades a population of m players of s; a player's fitness is its
  expected payoff against P - 1 co-players drawn without replacement from the rest of the population
  (hypergeometric; so m >= P, :func:`min_population`); the fixation probability is the Moran process's with
  Fermi selection of intensity alpha; the stationary distribution of the Markov chain over monomorphic states
  is the ranking. Both are computed in log space (:func:`log_fixation`, :func:`log_stationary`), so the
  ranking does not depend on the order of the strategies when fixation probabilities underflow (1e-186 and
  below). For P = 2 it is the model of OpenSpiel's ``egt.alpharank.compute(...,
  use_local_selection_model=False)`` (the tests check equality on well-conditioned games);
  :func:`openspiel_hpt` writes a game as OpenSpiel's heuristic payoff table.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import minimize
from scipy.special import gammaln, logsumexp
from scipy.stats import hypergeom


@dataclass(frozen=True)
class ProfileGame:
    """A symmetric P-player game over K strategies as a profile table (module docstring).

    Attributes:
        counts: (L, K) int64, each row sums to P. payoffs: (L, K) float64, NaN where counts is 0.
        labels: (K,) strategy names.
    """

    counts: np.ndarray
    payoffs: np.ndarray
    labels: tuple[str, ...]

    @property
    def n_players(self) -> int:
        """P."""
        return int(self.counts[0].sum())

    @property
    def n_strategies(self) -> int:
        """K."""
        return int(self.counts.shape[1])

    @cached_property
    def _index(self) -> dict[tuple[int, ...], int]:
        return {tuple(int(c) for c in row): i for i, row in enumerate(self.counts)}

    def index(self) -> dict[tuple[int, ...], int]:
        """Row of each profile (counts as a tuple)."""
        return self._index

    @cached_property
    def prep(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(others (M, K) int, log multinomial coefficient (M,), payoff (M,), strategy (M,)) over every (row, k)
        with counts >= 1: the terms of :func:`expected_payoffs`."""
        c = self.counts
        k = self.n_strategies
        rows, ks = np.nonzero(c >= 1)
        others = c[rows] - np.eye(k, dtype=np.int64)[ks]
        p1 = self.n_players - 1
        logc = gammaln(p1 + 1) - gammaln(others + 1).sum(axis=1)
        return others.astype(np.float64), logc, np.nan_to_num(self.payoffs[rows, ks]), ks

    def payoff(self, profile: tuple[int, ...], k: int) -> float:
        """Payoff of a player of strategy k in ``profile`` (counts)."""
        return float(self.payoffs[self.index()[tuple(profile)], k])


def all_profiles(k: int, p: int) -> np.ndarray:
    """(L, K) int64 counts of every multiset of P strategies out of K (``combinations_with_replacement`` order)."""
    rows = []
    for combo in itertools.combinations_with_replacement(range(k), p):
        rows.append(np.bincount(np.array(combo, np.int64), minlength=k))
    return np.array(rows, np.int64)


def from_matrix(matrix: np.ndarray, labels: tuple[str, ...] | None = None) -> ProfileGame:
    """The 2-player symmetric game whose row player's payoff against column j is ``matrix[i, j]``."""
    m = np.asarray(matrix, np.float64)
    k = m.shape[0]
    counts = all_profiles(k, 2)
    pay = np.full(counts.shape, np.nan)
    for r, row in enumerate(counts):
        s = np.flatnonzero(row)
        i, j = (s[0], s[0]) if s.size == 1 else (s[0], s[1])
        pay[r, i], pay[r, j] = m[i, j], m[j, i]
    return ProfileGame(counts, pay, labels or tuple(str(i) for i in range(k)))


def expected_payoffs(game: ProfileGame, x: np.ndarray) -> np.ndarray:
    """(K,) expected payoff ``f_k(x)`` of pure strategy k when the P - 1 others each play the mixture ``x`` (K,).

    ``f_k(x) = sum over profiles n with n_k >= 1 of Multinomial(n - e_k; P - 1, x) * u_k(n)``.
    """
    others, logc, pay, ks = game.prep
    x = np.clip(np.asarray(x, np.float64), 0.0, None)
    with np.errstate(divide="ignore"):
        lx = np.log(x)
    with np.errstate(invalid="ignore"):
        terms = np.where(others > 0, others * lx[None, :], 0.0).sum(axis=1)  # 0 * log 0 = 0
    return np.bincount(ks, weights=np.exp(logc + terms) * pay, minlength=game.n_strategies)


def regret(game: ProfileGame, x: np.ndarray) -> float:
    """``max_k f_k(x) - x·f(x)`` (>= 0): the most a player gains by a pure deviation from the mixture x."""
    f = expected_payoffs(game, x)
    return float(max(0.0, f.max() - float(np.dot(x, f))))


def replicator(game: ProfileGame, x0: np.ndarray, t_max: float = 200.0, n_points: int = 201) -> tuple[np.ndarray,
                                                                                                      np.ndarray]:
    """The replicator dynamics from ``x0`` (K,): (times (T,), mixtures (T, K)), each row on the simplex.

    Time is in units of payoff differences (payoffs are win shares, so t = 100 moves a strategy 1 point
    better than the mean by a factor e^1).
    """
    def rhs(_t, x):
        x = np.clip(x, 0.0, None)
        x = x / x.sum()
        f = expected_payoffs(game, x)
        return x * (f - float(np.dot(x, f)))

    ts = np.linspace(0.0, t_max, n_points)
    sol = solve_ivp(rhs, (0.0, t_max), np.asarray(x0, np.float64) / np.sum(x0), t_eval=ts, rtol=1e-6, atol=1e-9)
    xs = np.clip(sol.y.T, 0.0, None)
    return sol.t, xs / xs.sum(axis=1, keepdims=True)


def _liap(z: np.ndarray, game: ProfileGame) -> float:
    x = np.exp(z - z.max())
    x /= x.sum()
    f = expected_payoffs(game, x)
    return float((np.clip(f - np.dot(x, f), 0.0, None) ** 2).sum())


def symmetric_nash(game: ProfileGame, starts: int = 4, seed: int = 0, t_max: float = 1000.0,
                   inits: Sequence[np.ndarray] = (), polish: int = 2) -> tuple[np.ndarray, float]:
    """An approximate symmetric Nash mixture (module docstring): (x (K,), regret).

    Candidates: every pure strategy, the replicator end points and time averages from the barycentre and from
    ``starts`` random interior points (``numpy.random.default_rng(seed)``) and from ``inits`` (e.g. the point
    estimate's mixture, for a bootstrap replication), each polished by L-BFGS-B on the Lyapunov function over
    the softmax parameters (the ``polish`` interior candidates of least regret); the candidate of least
    :func:`regret` is returned, with weights below 1e-6 set to 0.
    """
    k = game.n_strategies
    rng = np.random.default_rng(seed)
    cands = [np.eye(k)[i] for i in range(k)]
    x0s = [np.full(k, 1.0 / k), *[np.clip(np.asarray(x, np.float64), 1e-3, None) for x in inits]]
    x0s += [rng.dirichlet(np.ones(k)) for _ in range(starts)]
    for x0 in x0s:
        _t, xs = replicator(game, x0, t_max, 401)
        cands += [xs[-1], xs.mean(axis=0)]
    best, best_r = cands[0], regret(game, cands[0])
    for c in cands:
        c = np.clip(c, 1e-12, None)
        c = c / c.sum()
        r = regret(game, c)
        if r < best_r - 1e-12:
            best, best_r = c, r
    interior = sorted(cands[k:], key=lambda c: regret(game, c))
    for c in interior[:polish]:  # polish the best interior candidates
        x = _polish(game, np.clip(c, 1e-12, None))
        r = regret(game, x)
        if r < best_r - 1e-12:
            best, best_r = x, r
    best = np.where(best < 1e-6, 0.0, best)
    best = best / best.sum()
    x, r = refine_nash(game, best)
    return (x, r) if r <= regret(game, best) else (best, regret(game, best))


def refine_nash(game: ProfileGame, x0: np.ndarray, support_min: float = 1e-4) -> tuple[np.ndarray, float]:
    """A symmetric equilibrium near ``x0`` (K,): (x, regret).

    On the support S of ``x0`` (weights > ``support_min``) the equal-payoff equations ``f_i(x) = f_j(x)``
    (i, j in S) with ``sum x = 1`` are solved by Powell's hybrid method (``scipy.optimize.root``, from ``x0``) —
    support enumeration seeded by the estimate (Porter, Nudelman & Shoham 2008, Games Econ. Behav. 63:642–662);
    if that fails (a weight turns negative, no convergence, or a larger regret) the Lyapunov minimisation from
    ``x0`` is used. Fast enough to solve every bootstrap replication.
    """
    from scipy.optimize import root

    k = game.n_strategies
    x0 = np.clip(np.asarray(x0, np.float64), 0.0, None)
    x0 = x0 / x0.sum()
    sup = np.flatnonzero(x0 > support_min)
    best, best_r = x0, regret(game, x0)
    if sup.size == 1:
        x = np.zeros(k)
        x[sup[0]] = 1.0
        r = regret(game, x)
        if r <= best_r:
            return x, r
    elif sup.size > 1:
        def eqs(y: np.ndarray) -> np.ndarray:
            x = np.zeros(k)
            x[sup] = y
            f = expected_payoffs(game, x)[sup]
            return np.concatenate([f[1:] - f[0], [y.sum() - 1.0]])

        sol = root(eqs, x0[sup], method="hybr")
        if sol.success and (sol.x >= -1e-12).all():
            x = np.zeros(k)
            x[sup] = np.clip(sol.x, 0.0, None)
            x /= x.sum()
            r = regret(game, x)
            if r <= best_r + 1e-12:
                return x, r
    x = _polish(game, np.clip(x0, 1e-9, None))
    r = regret(game, x)
    return (x, r) if r < best_r else (best, best_r)


def _polish(game: ProfileGame, x: np.ndarray) -> np.ndarray:
    z0 = np.log(np.clip(x, 1e-9, None))
    res = minimize(_liap, z0, args=(game,), method="L-BFGS-B", options={"ftol": 1e-15, "gtol": 1e-10,
                                                                         "maxiter": 200})
    z = res.x
    y = np.exp(z - z.max())
    return y / y.sum()


def dominance_margins(game: ProfileGame) -> np.ndarray:
    """(K, K) float64: ``[i, j]`` the smallest ``u_j(n + e_j) - u_i(n + e_i)`` over every profile n of the P - 1
    others; NaN on the diagonal. Pure j strictly dominates pure i when it is > 0."""
    k, p = game.n_strategies, game.n_players
    idx = game.index()
    others = all_profiles(k, p - 1)
    eye = np.eye(k, dtype=np.int64)
    u = np.array([[game.payoffs[idx[tuple(n + eye[i])], i] for n in others] for i in range(k)])  # (K, Q)
    out = (u[None, :, :] - u[:, None, :]).min(axis=2)
    out[np.diag_indices(k)] = np.nan
    return out


def dominated(game: ProfileGame) -> list[tuple[int, int, float]]:
    """Strict dominance: (i, j, margin) for every pair where pure j beats pure i against every profile of the others.

    margin: the smallest ``u_j(n + e_j) - u_i(n + e_i)`` over the others' profiles n (> 0;
    :func:`dominance_margins`). On estimated payoffs a margin says nothing about its uncertainty:
    :mod:`cya_sim.studies.metagame` tests it.
    """
    m = dominance_margins(game)
    k = game.n_strategies
    return [(i, j, float(m[i, j])) for i in range(k) for j in range(k) if i != j and m[i, j] > 0]


def _fitness_curves(game: ProfileGame, idx: dict, r: int, s: int, m: int) -> tuple[np.ndarray, np.ndarray]:
    """(f_r, f_s), each (m - 1,): expected payoff of a player of r (of s) when n = 1..m-1 players of the
    population of m play r and the rest s; the P - 1 co-players are drawn without replacement from the other
    m - 1 (hypergeometric)."""
    p1 = game.n_players - 1
    n = np.arange(1, m)
    j = np.arange(p1 + 1)
    # u_r(j co-players of r), u_s(j co-players of r)
    u_r, u_s = np.zeros(p1 + 1), np.zeros(p1 + 1)
    for jj in j:
        prof = np.zeros(game.n_strategies, np.int64)
        prof[r] += jj
        prof[s] += p1 - jj
        a, b = prof.copy(), prof.copy()
        a[r] += 1
        b[s] += 1
        u_r[jj] = game.payoffs[idx[tuple(a)], r]
        u_s[jj] = game.payoffs[idx[tuple(b)], s]
    pr = hypergeom.pmf(j[None, :], m - 1, (n - 1)[:, None], p1)  # a player of r: n - 1 other r's
    ps = hypergeom.pmf(j[None, :], m - 1, n[:, None], p1)  # a player of s: n r's among the others
    return np.nan_to_num(pr) @ u_r, np.nan_to_num(ps) @ u_s


def min_population(n_players: int) -> int:
    """The smallest α-Rank population for a table of ``n_players`` (P): m >= P.

    In the model of :func:`alpharank` a player's P - 1 co-players are drawn without replacement from the other
    m - 1 members of the population, so m - 1 >= P - 1. With fewer, no table can be seated: every fitness is
    undefined (the hypergeometric draw is empty) and the chain would be neutral, a silent uniform answer.
    """
    return int(n_players)


#: Bounds of α-Rank's parameters: the selection intensity alpha in (0, MAX_ALPHA] (payoffs here are win shares in
#: [0, 1], so alpha * m * payoff gap stays far inside float range), the population m in [P, MAX_POPULATION].
MAX_ALPHA = 1e6
MAX_POPULATION = 10_000


def check_alpharank_parameters(n_players: int, m: int, alpha: float) -> None:
    """Refuse α-Rank parameters outside the model.

    Raises:
        ValueError: m not an integer in [P, MAX_POPULATION] (:func:`min_population`), or alpha not a finite
            number in (0, MAX_ALPHA].
    """
    lo = min_population(n_players)
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not lo <= m <= MAX_POPULATION:
        raise ValueError(f"population {m!r}: must be an integer from {lo} (the table size: the {n_players - 1} "
                         f"co-players are drawn from the other m - 1) to {MAX_POPULATION:,}")
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating, np.integer)) \
            or not (math.isfinite(alpha) and 0 < alpha <= MAX_ALPHA):
        raise ValueError(f"alpha {alpha!r}: must be a number > 0 and <= {MAX_ALPHA:g}")


def log_fixation(game: ProfileGame, r: int, s: int, m: int = 50, alpha: float = 100.0,
                 idx: dict | None = None) -> float:
    """Natural log of the fixation probability of one mutant of r in a population of m - 1 players of s.

    ``rho = 1 / (1 + sum_{l=1}^{m-1} prod_{n=1}^{l} exp(-alpha (f_r(n) - f_s(n))))`` with n players of r (Moran
    process, Fermi selection; Traulsen, Nowak & Pacheco 2006, Phys. Rev. E 74:011909; Omidshafiei et al. 2019,
    eq. 9), computed as ``-logsumexp([0, cumsum(-alpha (f_r - f_s))])``: finite however small rho is (no
    underflow to 0 at 1e-186 or 1e-400).
    """
    f_r, f_s = _fitness_curves(game, idx if idx is not None else game.index(), r, s, m)
    logs = np.cumsum(-alpha * (f_r - f_s))
    return float(-logsumexp(np.concatenate([[0.0], logs])))


def fixation(game: ProfileGame, r: int, s: int, m: int = 50, alpha: float = 100.0,
             idx: dict | None = None) -> float:
    """Fixation probability of one mutant of r in a population of m - 1 players of s: ``exp`` of
    :func:`log_fixation` (0.0 where it underflows)."""
    return math.exp(log_fixation(game, r, s, m, alpha, idx))


def log_stationary(log_rates: np.ndarray) -> np.ndarray:
    """(K,) log stationary distribution of the continuous- or discrete-time Markov chain whose off-diagonal
    transition rates are ``exp(log_rates)`` (K, K) (the diagonal is ignored; -inf is a rate of 0).

    The Grassmann–Taksar–Heyman state reduction (Grassmann, Taksar & Heyman 1985, Operations Research
    33:1107–1116), which adds and multiplies positive numbers only (no subtraction, so no cancellation),
    carried out in log space (``logaddexp``), so rates spanning hundreds of orders of magnitude keep their
    relative accuracy and the answer does not depend on the order of the states (exact arithmetic gives the
    same distribution for any labelling; floating point agrees to rounding). A common factor of the rates (such
    as α-Rank's ``eta = 1 / (K - 1)``) cancels.

    Raises:
        ValueError: the chain is reducible (a state with no way out to the states before it in the reduction).
    """
    a = np.array(log_rates, np.float64, copy=True)
    k = a.shape[0]
    out_sum = np.zeros(k)
    for n in range(k - 1, 0, -1):
        s_n = logsumexp(a[n, :n])
        if not np.isfinite(s_n):
            raise ValueError("the chain is reducible: no unique stationary distribution")
        out_sum[n] = s_n
        with np.errstate(invalid="ignore"):
            upd = a[:n, n:n + 1] + a[n:n + 1, :n] - s_n
        a[:n, :n] = np.logaddexp(a[:n, :n], np.where(np.isnan(upd), -np.inf, upd))
    lp = np.zeros(k)
    for n in range(1, k):
        lp[n] = logsumexp(lp[:n] + a[:n, n]) - out_sum[n]
    return lp - logsumexp(lp)


def log_alpharank(game: ProfileGame, m: int = 50, alpha: float = 100.0) -> tuple[np.ndarray, np.ndarray]:
    """Single-population α-Rank in log space (module docstring): (log pi (K,), log rho (K, K), -inf on the
    diagonal), ``log_rho[s, r]`` the log fixation probability of a mutant r in a population of s.

    The chain over monomorphic populations moves s -> r at rate ``eta * rho[s, r]`` (the small-mutation limit of
    Omidshafiei et al. 2019); its stationary distribution is :func:`log_stationary` of ``log rho``, so it is
    independent of the order of the strategies even where rho underflows double precision.

    Raises:
        ValueError: :func:`check_alpharank_parameters`.
    """
    check_alpharank_parameters(game.n_players, m, alpha)
    k = game.n_strategies
    idx = game.index()
    lrho = np.full((k, k), -np.inf)
    for s in range(k):
        for r in range(k):
            if r != s:
                lrho[s, r] = log_fixation(game, r, s, m, alpha, idx)
    return log_stationary(lrho), lrho


def alpharank(game: ProfileGame, m: int = 50, alpha: float = 100.0, use_openspiel: bool = False) -> tuple[np.ndarray,
                                                                                                            np.ndarray]:
    """Single-population α-Rank of a symmetric P-player game (module docstring): ``exp`` of :func:`log_alpharank`.

    With ``use_openspiel`` at P = 2 it is instead computed by OpenSpiel's ``egt.alpharank.compute`` on the payoff
    matrix (``use_local_selection_model=False``; an eigenvector of the linear transition matrix, which loses
    the small fixation probabilities to rounding: where they underflow its answer follows the order of the
    strategies, or it raises ``ValueError('Expected 1 stationary distribution ...')``). The two agree on
    well-conditioned games (tests/test_metagame.py).

    Returns:
        (pi (K,), the stationary distribution over monomorphic populations; rho (K, K), rho[s, r] the
        fixation probability of a mutant r in a population of s, 0 on the diagonal). The neutral fixation
        probability is 1/m: an edge s -> r of the response graph has ``rho[s, r] > 1/m``.

    Raises:
        ValueError: :func:`check_alpharank_parameters`.
    """
    check_alpharank_parameters(game.n_players, m, alpha)
    k = game.n_strategies
    if use_openspiel and game.n_players == 2:
        from open_spiel.python.egt import alpharank as os_alpharank

        with np.errstate(over="ignore"):  # a swamped mutant: exp overflows to inf, rho to 0 (as intended)
            rhos, _rho_m, pi, _n, _ = os_alpharank.compute([payoff_matrix(game)], m=m, alpha=alpha,
                                                           use_local_selection_model=False)
        rho = np.asarray(rhos, np.float64)
        np.fill_diagonal(rho, 0.0)
        return np.asarray(pi, np.float64), rho
    lpi, lrho = log_alpharank(game, m, alpha)
    rho = np.exp(lrho)
    rho[np.diag_indices(k)] = 0.0
    return np.exp(lpi), rho


def payoff_matrix(game: ProfileGame) -> np.ndarray:
    """(K, K) float64: at P = 2, ``[i, j]`` the payoff of a player of i against one of j.

    Raises:
        ValueError: the game is not a 2-player game.
    """
    if game.n_players != 2:
        raise ValueError(f"a payoff matrix needs a 2-player game, not {game.n_players}")
    k = game.n_strategies
    idx = game.index()
    mat = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            prof = np.zeros(k, np.int64)
            prof[i] += 1
            prof[j] += 1
            mat[i, j] = game.payoffs[idx[tuple(prof)], i]
    return mat


def openspiel_hpt(game: ProfileGame) -> np.ndarray:
    """(L, 2K) float64: the game as OpenSpiel's heuristic payoff table (``egt.heuristic_payoff_table``): per row the
    counts of the K strategies, then the payoff of a player of each (0 where the count is 0, OpenSpiel's
    convention). ``heuristic_payoff_table.from_heuristic_payoff_table`` reads it; at P = 2
    ``alpharank.compute([table], m, alpha, use_local_selection_model=False)`` on it is :func:`alpharank`'s model.
    """
    return np.hstack([game.counts.astype(np.float64), np.nan_to_num(game.payoffs, nan=0.0)])
