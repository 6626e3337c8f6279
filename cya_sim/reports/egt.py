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
- :func:`alpharank`: single-population α-Rank (Omidshafiei et al. 2019, Scientific Reports 9:9937) for a
  P-player symmetric game: a mutant r invades a monomorphic population of m players of s; a player's fitness
  is its expected payoff against P - 1 co-players drawn without replacement from the rest of the population
  (hypergeometric); the fixation probability is the Moran process's with Fermi selection of intensity
  alpha; the stationary distribution of the Markov chain over monomorphic states is the ranking. For P = 2
  it is the model of OpenSpiel's ``egt.alpharank.compute(..., use_local_selection_model=False)`` (the tests
  check equality).
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
from scipy.special import gammaln
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


def dominated(game: ProfileGame) -> list[tuple[int, int, float]]:
    """Strict dominance: (i, j, margin) for every pair where pure j beats pure i against every profile of the others.

    margin: the smallest ``u_j(n + e_j) - u_i(n + e_i)`` over the others' profiles n (> 0).
    """
    k, p = game.n_strategies, game.n_players
    idx = game.index()
    out = []
    others = all_profiles(k, p - 1)
    for i in range(k):
        for j in range(k):
            if i == j:
                continue
            diffs = []
            for n in others:
                a, b = n.copy(), n.copy()
                a[i] += 1
                b[j] += 1
                diffs.append(game.payoffs[idx[tuple(b)], j] - game.payoffs[idx[tuple(a)], i])
            m = float(np.min(diffs))
            if m > 0:
                out.append((i, j, m))
    return out


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


def fixation(game: ProfileGame, r: int, s: int, m: int = 50, alpha: float = 100.0,
             idx: dict | None = None) -> float:
    """Fixation probability of one mutant of r in a population of m - 1 players of s (Moran, Fermi selection).

    ``rho = 1 / (1 + sum_{l=1}^{m-1} prod_{n=1}^{l} exp(-alpha (f_r(n) - f_s(n))))``, with n players of r
    (Traulsen, Nowak & Pacheco 2006, Phys. Rev. E 74:011909; the formula of Omidshafiei et al. 2019, eq. 9).
    """
    f_r, f_s = _fitness_curves(game, idx if idx is not None else game.index(), r, s, m)
    logs = np.cumsum(-alpha * (f_r - f_s))
    top = max(0.0, float(logs.max()))
    return float(math.exp(-top) / (math.exp(-top) + np.exp(logs - top).sum()))


def alpharank(game: ProfileGame, m: int = 50, alpha: float = 100.0, use_openspiel: bool = True) -> tuple[np.ndarray,
                                                                                                           np.ndarray]:
    """Single-population α-Rank of a symmetric P-player game (module docstring).

    At P = 2 (and ``use_openspiel``) it is computed by OpenSpiel's ``egt.alpharank.compute`` on the payoff matrix
    (``use_local_selection_model=False``), when OpenSpiel is installed; otherwise, and for P > 2, by this
    module's generalisation (equal to OpenSpiel's at P = 2: tests/test_metagame.py).

    Returns:
        (pi (K,), the stationary distribution over monomorphic populations; rho (K, K), rho[s, r] the
        fixation probability of a mutant r in a population of s, 0 on the diagonal). The neutral fixation
        probability is 1/m: an edge s -> r of the response graph has ``rho[s, r] > 1/m``.
    """
    k = game.n_strategies
    idx = game.index()
    if use_openspiel and game.n_players == 2:
        try:
            from open_spiel.python.egt import alpharank as os_alpharank
        except ImportError:
            pass
        else:
            mat = np.zeros((k, k))
            for i in range(k):
                for j in range(k):
                    prof = np.zeros(k, np.int64)
                    prof[i] += 1
                    prof[j] += 1
                    mat[i, j] = game.payoffs[idx[tuple(prof)], i]
            with np.errstate(over="ignore"):  # a swamped mutant: exp overflows to inf, rho to 0 (as intended)
                rhos, _rho_m, pi, _n, _ = os_alpharank.compute([mat], m=m, alpha=alpha,
                                                               use_local_selection_model=False)
            rho = np.asarray(rhos, np.float64)
            np.fill_diagonal(rho, 0.0)
            return np.asarray(pi, np.float64), rho
    rho = np.zeros((k, k))
    for s in range(k):
        for r in range(k):
            if r != s:
                rho[s, r] = fixation(game, r, s, m, alpha, idx)
    eta = 1.0 / (k - 1)
    c = eta * rho
    c[np.diag_indices(k)] = 1.0 - c.sum(axis=1)
    w, v = np.linalg.eig(c.T)
    pi = np.abs(np.real(v[:, np.argmin(np.abs(w - 1.0))]))
    return pi / pi.sum(), rho
