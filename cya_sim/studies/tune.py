"""Parameter tuning of a policy family (``cya-sim tune``): optuna search, then an honest held-out evaluation.

A *family* is an agent spec whose parameters are searched: every switch and
dollar threshold of ``heuristic`` (:class:`agents.classic.heuristic.HeuristicConfig`),
``card_counter``'s ``min_gain`` and ``infer_hidden``, or the numeric
``params`` of a compiled plug-in (``my_mod:decide(a=1, b=2)``; a plug-in has
no known ranges, so each searched parameter needs ``--space a=LO:HI``). Every
candidate is a spec string, so a candidate costs no compile: the view policies
take their parameters as data (:func:`agents.classic.registry.policy_of`).

**Objective.** A candidate sits in seat position 0 against ``P - 1`` field
agents (the field list cycled), on the same ``trial_deals`` duplicated deals
for every trial (common random numbers: two candidates are compared on the
same cards), each deal played in all P rotations. The value is the
candidate's per-game win rate (its win share, R-TIE, averaged over the
rotations and the deals). The tuning deals are engine game indices
``TRIAL_DEAL_OFFSET + d`` under the seed's root key, disjoint from the
held-out deals ``0..heldout_deals - 1``.

**Search.** optuna (Akiba et al. 2019, KDD, "Optuna: A Next-generation
Hyperparameter Optimization Framework"): the tree-structured Parzen estimator
(Bergstra et al. 2011, NeurIPS, "Algorithms for Hyper-Parameter Optimization";
``TPESampler(multivariate=True)``), or CMA-ES (Hansen & Ostermeier 2001,
Evolutionary Computation 9:159–195; ``CmaEsSampler``, numeric spaces only),
or random search. The baseline spec is the first trial. The study lives in
the results folder as ``study.db`` (optuna's RDB storage on SQLite), so a
killed run resumes: every finished trial is kept, a trial that was running
when the process died is marked failed and never counted. Each trial's
sampler is made afresh, seeded by the seed and the number of finished trials
(:func:`sampler_seed`), so a run killed (SIGKILL, Ctrl-C) and resumed with
the same command makes exactly the suggestions, and ends with exactly the
best spec, of a run never interrupted; a suggestion already evaluated is not
played again (its value is reused, the trial marked ``repeat_of``).

**Held-out evaluation (no winner's curse).** The best trial's value is biased
upward: it is the maximum of many noisy estimates on the same deals. So the
best spec, the baseline and each ``compare`` spec are replayed on *fresh*
deals — an ``explicit`` experiment of the run layer (:mod:`cya_sim.runs.experiment`,
duplicate deals, seats rotated; the folder ``heldout/``, resumable like any
run) — and compared there. The sampling unit is the deal: per deal, each arm's
mean win share over its P rotations; a gain is the mean over deals of the
paired per-deal difference with a Student-t interval on deals - 1 df and its
two-sided t test, or the exact bound when fewer than 10 deals differ or every
deal gave the same difference (:func:`cya_sim.reports.stats.paired_difference`,
the tip study's estimator too; never a zero-width interval), and Holm's (1979)
adjustment over the family of comparisons of one run. Each arm's own win rate has the deal-clustered Wilson
interval on the effective sample size. :func:`heldout_coverage` checks the
paired interval's coverage on replications of real games.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self

import numpy as np
import pandas as pd

from cya_sim import __version__
from cya_sim.errors import FieldError
from cya_sim.game.limits import MAX_GAMES
from cya_sim.reports.numbers import decimals_apart
from cya_sim.reports.stats import estimate_from_sums, holm, paired_difference, ratio_estimate
from cya_sim.results.folder import check_study_folder
from cya_sim.runs.experiment import Experiment, RunOptions, parse_experiment

#: First engine game index of the tuning deals (the held-out deals are 0, 1, ...; never the same deals).
TRIAL_DEAL_OFFSET = 1 << 40
SAMPLERS = ("tpe", "cmaes", "random")
STUDY_FILE = "study.db"
CONFIG_FILE = "tune.json"
RESULT_FILE = "result.json"
#: Every file and folder a tuning run writes into its results folder (a folder holding anything else is refused).
OWN_FILES = frozenset({CONFIG_FILE, RESULT_FILE, "study.db", "study.db-journal", "heldout", "trials.csv",
                       "heldout.csv", "heldout_arms.csv", "history.png", "REPORT.md", "runs.json"})
STUDY_NAME = "cya-sim-tune"
#: Keys of :class:`TuneConfig` that fix the study (a resume must match them).
IDENTITY_KEYS = ("agent", "field", "players", "preset", "options", "space", "trial_deals", "seed", "sampler")


#: Largest ``--trials`` and ``--workers`` (beyond, a typo rather than a plan).
MAX_TRIALS = 1_000_000
MAX_WORKERS = 1024


def _short_int(v: int) -> str:
    """An integer for a one-line message: its digit count when it is too long to echo."""
    return f"{v:,}" if abs(v) < 10**30 else f"(an integer of about {int(abs(v).bit_length() * math.log10(2)) + 1:,} digits)"


def _shown(text: str) -> str:
    """User text for a one-line message, cut to 80 characters."""
    return repr(text) if len(text) <= 80 else repr(text[:77] + "...")


class TuneError(ValueError):
    """A refused tuning request; ``str(e)`` is the one line shown (exit status 2)."""


@dataclass(frozen=True)
class Dimension:
    """One searched parameter.

    Attributes:
        name: the agent's parameter name. kind: ``bool``, ``int`` or ``float``.
        low, high: bounds (inclusive) for ``int``/``float``. step: grid step of an ``int``
            (dollars: 5,000), or None.
    """

    name: str
    kind: str
    low: float = 0.0
    high: float = 1.0
    step: float | None = None

    def text(self) -> str:
        """The ``--space`` spelling (``backup=bool``, ``first_set_min=0:100000:5000``)."""
        if self.kind == "bool":
            return f"{self.name}=bool"
        lo, hi = (_num(self.low), _num(self.high))
        return f"{self.name}={lo}:{hi}" + (f":{_num(self.step)}" if self.step else "")


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


_DOLLARS = (0, 100_000, 5_000)
#: The searched space of each built-in family (every switch and threshold).
FAMILY_SPACES: dict[str, tuple[Dimension, ...]] = {
    "heuristic": tuple(
        Dimension(n, "int", *_DOLLARS) if n in ("first_set_min", "cover_min", "let_go_max") else Dimension(n, "bool")
        for n in ("fast_first", "first_set_min", "cover", "cover_min", "pair_first", "backup", "count",
                  "save_wild", "wild_first", "let_go", "let_go_max", "wild_for_sets", "wild_for_challenges",
                  "wild_for_defence")),
    "card_counter": (Dimension("min_gain", "int", -50_000, 50_000, 2_500), Dimension("infer_hidden", "bool")),
}
_SPACE_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=\s*(.+?)\s*$")


def parse_dimension(text: str) -> Dimension:
    """A ``--space`` entry: ``NAME=bool``, ``NAME=LO:HI`` (float, or int when both are integers) or ``NAME=LO:HI:STEP``.

    (A plug-in parameter whose default in the spec is a float, ``p=0.5``, is searched as a float even with
    integer bounds: :func:`resolve_space`.)

    Raises:
        TuneError: malformed text, bounds that are not numbers, ``LO >= HI`` or a step <= 0.
    """
    m = _SPACE_RE.match(text or "")
    if not m:
        raise TuneError(f"--space {_shown(text or '')}: write NAME=bool, NAME=LO:HI or NAME=LO:HI:STEP")
    name, rng = m.group(1), m.group(2)
    if rng.lower() == "bool":
        return Dimension(name, "bool")
    parts = rng.split(":")
    if len(parts) not in (2, 3):
        raise TuneError(f"--space {_shown(text)}: write NAME=bool, NAME=LO:HI or NAME=LO:HI:STEP")
    try:
        vals = [float(p) for p in parts]
    except ValueError:
        raise TuneError(f"--space {_shown(text)}: bounds must be numbers") from None
    if not all(math.isfinite(v) for v in vals) or vals[0] >= vals[1]:
        raise TuneError(f"--space {_shown(text)}: needs finite LO < HI")
    if len(vals) == 3 and vals[2] <= 0:
        raise TuneError(f"--space {_shown(text)}: the step must be > 0")
    is_int = all(re.fullmatch(r"\s*[+-]?\d+\s*", p) for p in parts)
    return Dimension(name, "int" if is_int else "float", vals[0], vals[1], vals[2] if len(vals) == 3 else None)


@dataclass(frozen=True)
class TuneConfig:
    """One tuning run.

    Attributes:
        agent: the baseline spec of the family (its parameters are the first trial and the control).
        field: (F,) field specs, cycled over the P - 1 other seats.
        players: table size P. preset: rule preset. options: rule options (``cya-sim rules``).
        space: searched dimensions (:class:`Dimension`), in the plug-in's parameter order.
        trials: optuna trials in total (>= 1; a resume runs the missing ones).
        trial_deals: duplicated deals per trial (each played in P rotations).
        heldout_deals: fresh duplicated deals of the held-out evaluation (0: skip it).
        compare: extra specs replayed against the field on the held-out deals (e.g. ``card_counter``).
        seed: root seed of deals and sampler. sampler: one of :data:`SAMPLERS`.
        out: results folder. workers: local processes of the held-out run. confidence: interval level.
    """

    agent: str
    field: tuple[str, ...]
    players: int
    out: Path
    preset: str = "classic"
    options: dict[str, Any] = field(default_factory=dict)
    space: tuple[Dimension, ...] = ()
    trials: int = 100
    trial_deals: int = 1000
    heldout_deals: int = 5000
    compare: tuple[str, ...] = ()
    seed: int = 1
    sampler: str = "tpe"
    workers: int = 1
    confidence: float = 0.95

    def identity(self) -> dict[str, Any]:
        """What fixes the study: a resume with another identity is refused."""
        d = {k: getattr(self, k) for k in IDENTITY_KEYS}
        d["field"] = list(self.field)
        d["space"] = [x.text() for x in self.space]
        return d

    def to_dict(self) -> dict[str, Any]:
        """JSON form (``tune.json``)."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d.update(field=list(self.field), compare=list(self.compare), out=str(self.out),
                 space=[asdict(x) for x in self.space])
        return d


def family_of(spec: str) -> tuple[str, list[tuple[str, Any]], bool]:
    """(name, parameters as written, is a compiled plug-in) of an agent spec.

    Raises:
        TuneError: a malformed spec or an unknown agent.
    """
    from agents.classic.registry import REGISTRY
    from agents.plugin import is_compiled_function
    from agents.spec import AgentSpecError, parse_agent_spec, resolve_factory

    try:
        s = parse_agent_spec(spec)
        factory = resolve_factory(s.name, REGISTRY)
    except AgentSpecError as e:
        raise TuneError(str(e)) from None
    return s.name, list(s.params), is_compiled_function(factory)


def resolve_space(agent: str, space: Sequence[Dimension] = (), fix: Sequence[str] = ()) -> tuple[Dimension, ...]:
    """The searched dimensions: the family's space (``FAMILY_SPACES``) with ``space`` overriding, less ``fix``.

    For a compiled plug-in only ``space`` is searched, in the order of the spec's parameters
    (``params[i]`` is the i-th written), so each searched name must be written in the spec with its
    default value.

    Raises:
        TuneError: an unknown parameter (the known ones named), a plug-in parameter not in the spec, a
            dimension of the wrong kind for the parameter, or nothing left to search.
    """
    name, params, plugin = family_of(agent)
    given = dict(params)
    if plugin:
        unknown = [d.name for d in space if d.name not in given]
        if unknown:
            raise TuneError(f"--space {unknown[0]}: plug-in {name!r} is not given that parameter; write its default "
                            f"in the agent spec (e.g. {name}({unknown[0]}=1)) so its position in params is known")
        bools = [d.name for d in space if d.kind == "bool"]
        if bools:
            raise TuneError(f"--space {bools[0]}=bool: a plug-in's params are numbers; give LO:HI")
        # integer bounds of a parameter whose default is written as a float search floats
        by = {d.name: (replace(d, kind="float") if d.kind == "int" and isinstance(given[d.name], float) else d)
              for d in space}
        dims = tuple(by[k] for k in given if k in by)
    else:
        base = {d.name: d for d in FAMILY_SPACES.get(name, ())}
        for d in space:
            if name in FAMILY_SPACES and d.name not in base:
                raise TuneError(f"--space {d.name}: unknown parameter of {name}; it takes: {', '.join(base)}")
            if d.name in base and (d.kind == "bool") != (base[d.name].kind == "bool"):
                raise TuneError(f"--space {d.text()}: {name} parameter {d.name!r} is "
                                f"{'a switch (bool)' if base[d.name].kind == 'bool' else 'a number (LO:HI)'}")
            base[d.name] = d
        dims = tuple(base.values())
    for f in fix:
        if f not in {d.name for d in dims} and f not in {d.name for d in FAMILY_SPACES.get(name, ())}:
            raise TuneError(f"--fix {f}: not a searched parameter of {name}; searched: "
                            f"{', '.join(d.name for d in dims) or 'none'}")
    dims = tuple(d for d in dims if d.name not in set(fix))
    if not dims:
        raise TuneError(f"agent {agent!r}: no parameter to search; "
                        + (f"{name} has none" if not plugin and name not in FAMILY_SPACES else
                           "give --space NAME=LO:HI (a plug-in's ranges are not known)" if plugin else
                           "every one is fixed (--fix)"))
    return dims


def candidate_spec(agent: str, values: dict[str, Any]) -> str:
    """The spec of the baseline ``agent`` with ``values`` set, normalised and pasteable.

    Built-in families: the parameters that differ from the family's own defaults, in the
    family's order. Plug-ins: every parameter of the baseline spec, in its order (their position is
    their index in ``params``).
    """
    from agents.spec import normalise_spec

    name, params, plugin = family_of(agent)
    merged = dict(params)
    merged.update(values)
    if not plugin:
        defaults = _family_defaults(name)
        order = [d.name for d in FAMILY_SPACES.get(name, ())] + [k for k in merged if k not in defaults]
        merged = {k: merged[k] for k in order if k in merged and (k not in defaults or merged[k] != defaults[k])}
    if not merged:
        return normalise_spec(name)
    return normalise_spec(f"{name}({', '.join(f'{k}={_spec_value(v)}' for k, v in merged.items())})")


def _family_defaults(name: str) -> dict[str, Any]:
    if name == "heuristic":
        from agents.classic.heuristic import HeuristicConfig

        return asdict(HeuristicConfig())
    if name == "card_counter":
        return {"min_gain": 0, "infer_hidden": True}
    return {}


def _spec_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return repr(v)


def check_config(cfg: TuneConfig) -> Experiment:
    """Validate a run before anything is played; return its held-out experiment.

    Raises:
        TuneError: an empty field, more field specs than the P - 1 other seats, a budget of 0 (trials or deals), a sampler that cannot search the
            space (CMA-ES needs numeric dimensions), a baseline or field spec that the compiled engine
            refuses; ExperimentError: a rule option, preset or folder refused by the run layer (named).
    """
    from agents.classic.registry import policy_of

    if not cfg.field:
        raise TuneError("--field is empty; name the opponents, e.g. --field card_counter")
    if len(cfg.field) > cfg.players - 1:  # the extra specs would never play, while REPORT.md would name them
        raise TuneError(f"--field: {len(cfg.field)} specs given ({', '.join(cfg.field)}) but a {cfg.players}-player "
                        f"table has {cfg.players - 1} other seat{'s' if cfg.players > 2 else ''}; give at most "
                        f"{cfg.players - 1} (they are cycled over the other seats)")
    if cfg.trials < 1:
        raise TuneError(f"--trials {cfg.trials}: the budget must be at least 1 trial")
    if cfg.trials > MAX_TRIALS:
        raise TuneError(f"--trials {_short_int(cfg.trials)}: give at most {MAX_TRIALS:,} trials")
    if cfg.trial_deals < 1:
        raise TuneError(f"--trial-deals {cfg.trial_deals}: each trial needs at least 1 deal")
    if cfg.trial_deals * cfg.players > MAX_GAMES:
        raise TuneError(f"--trial-deals {_short_int(cfg.trial_deals)}: a trial plays deals x P games; give at most "
                        f"{MAX_GAMES // cfg.players:,} deals at {cfg.players} players")
    if cfg.heldout_deals < 0 or cfg.heldout_deals == 1:
        raise TuneError(f"--heldout-deals {cfg.heldout_deals}: give 0 (no held-out evaluation) or at least 2 deals "
                        "(an interval needs two)")
    arms = 2 + len(cfg.compare)
    if cfg.heldout_deals * arms * cfg.players > MAX_GAMES:
        raise TuneError(f"--heldout-deals {_short_int(cfg.heldout_deals)}: the held-out run plays deals x arms x P "
                        f"games (at most {MAX_GAMES:,}); give at most {MAX_GAMES // (arms * cfg.players):,} deals "
                        f"for {arms} arms at {cfg.players} players")
    if not 1 <= cfg.workers <= MAX_WORKERS:
        raise TuneError(f"--workers {_short_int(cfg.workers)}: give 1 to {MAX_WORKERS:,} processes")
    if cfg.sampler not in SAMPLERS:
        raise TuneError(f"--sampler {cfg.sampler!r}; choose one of: {', '.join(SAMPLERS)}")
    if cfg.sampler == "cmaes" and any(d.kind == "bool" for d in cfg.space):
        raise TuneError("--sampler cmaes searches numbers only; the space has switches ("
                        + ", ".join(d.name for d in cfg.space if d.kind == "bool")
                        + "): use --sampler tpe, or --fix them")
    exp = heldout_experiment(cfg, cfg.agent)
    for spec in (cfg.agent, *cfg.field, *cfg.compare):
        try:
            if policy_of(spec, exp.rules)[0] < 0:
                raise TuneError(f"agent {spec!r} has no compiled form; tune plays compiled agents only "
                                "(heuristic, card_counter, greedy, random, wild_hoarder, oracle, plug-ins)")
        except ValueError as e:
            if isinstance(e, TuneError):
                raise
            raise TuneError(str(e)) from None
    for d in cfg.space:  # every bound must be a value the agent accepts
        for v in ((d.low, d.high) if d.kind != "bool" else (True, False)):
            v = int(v) if d.kind == "int" else v
            try:
                policy_of(candidate_spec(cfg.agent, {d.name: v}), exp.rules)
            except ValueError as e:
                raise TuneError(f"--space {d.text()}: {' '.join(str(e).split())}") from None
    return exp


def arms_of(cfg: TuneConfig, best: str) -> list[str]:
    """Held-out arms, each once: the best spec, the baseline, then the ``compare`` specs."""
    from agents.spec import normalise_spec

    out: list[str] = []
    for s in (best, cfg.agent, *cfg.compare):
        n = normalise_spec(s)
        if n not in out:
            out.append(n)
    return out


def heldout_experiment(cfg: TuneConfig, best: str) -> Experiment:
    """The held-out run: each arm (:func:`arms_of`) against the field, on ``heldout_deals`` duplicated deals.

    An ``explicit`` design with ``duplicate = true``: one cycle plays one deal with every arm in every
    rotation, so the arms are paired deal by deal and seat by seat.

    Raises:
        ExperimentError: a rule preset or option the run layer refuses.
    """
    from agents.spec import normalise_spec

    arms = arms_of(cfg, best)
    others = [normalise_spec(cfg.field[i % len(cfg.field)]) for i in range(cfg.players - 1)]
    pool = list(dict.fromkeys(arms + others))
    tables = [[a, *others] for a in arms]
    deals = max(cfg.heldout_deals, 1)
    doc = {"name": "tune-heldout", "seed": cfg.seed, "games": deals * len(tables) * cfg.players,
           "players": cfg.players, "agents": pool, "out": str(cfg.out / "heldout"),
           "rules": {"preset": cfg.preset, "options": dict(cfg.options)},
           "design": {"kind": "explicit", "tables": tables, "duplicate": True}}
    exp = parse_experiment(doc)
    return replace(exp, run=RunOptions(engine="batched", workers=cfg.workers))


def lineup_seats(n_players: int, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """(seat_agent (D*P, P) int16, rotation (D*P,) int64) of ``[candidate, field...]`` in every rotation.

    Agent 0 is the candidate; agents 1.. are the field positions; rotation r seats the candidate at seat r
    (as :class:`cya_sim.runs.schedule.Schedule`).
    """
    p = n_players
    rot = np.tile(np.arange(p), deals)
    lineup = np.arange(p)
    return lineup[(np.arange(p)[None, :] - rot[:, None]) % p].astype(np.int16), rot


def play_candidate(spec: str, cfg: TuneConfig, rules, deals: np.ndarray, key: int) -> np.ndarray:
    """Per-deal win rate of ``spec`` against the field: (D,) float64, the mean over the P rotations of each deal.

    Args:
        spec: the candidate. cfg: the run (field, players). rules: its RuleSet.
        deals: (D,) int64 engine game indices. key: the root key of the seed.

    Raises:
        AgentSpecError: a learned model asked to play a setting it was not trained for (named).
    """
    from agents.spec import normalise_spec
    from cya_sim.play.classic.batched import play_games
    from cya_sim.play.families import family_of

    p = cfg.players
    field_specs = [normalise_spec(cfg.field[i % len(cfg.field)]) for i in range(p - 1)]
    agents = [spec, *field_specs]
    for a in agents:  # a learned model at a table size or under rules it was not trained for: refused, not played
        family_of(rules).check_setting(a, rules, p)
    seat_agent, rot = lineup_seats(p, deals.size)
    t = play_games(rules, agents, seat_agent, key, np.repeat(np.asarray(deals, np.int64), p))
    win = np.asarray(t.win_share)[np.arange(len(t)), rot]
    return win.reshape(deals.size, p).mean(axis=1)


def sampler_seed(seed: int, complete: int) -> int:
    """The sampler's seed for the trial that follows ``complete`` finished trials: a function of the run's seed
    and that count only (:class:`numpy.random.SeedSequence`), so an interrupted and resumed study draws exactly the
    suggestions an uninterrupted one draws."""
    return int(np.random.SeedSequence([int(seed), int(complete)]).generate_state(1)[0])


def _sampler(cfg: TuneConfig, n_trials: int, complete: int = 0):
    """A fresh sampler for the next trial, seeded by :func:`sampler_seed` (its other state is the study's trials,
    read from ``study.db``: TPE, CMA-ES and random search keep none of their own between trials)."""
    import optuna

    seed = sampler_seed(cfg.seed, complete)
    if cfg.sampler == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed)
    if cfg.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed, multivariate=True,
                                      n_startup_trials=max(1, min(10, n_trials // 4)))


def _suggest(trial, d: Dimension) -> Any:
    if d.kind == "bool":
        return trial.suggest_categorical(d.name, [False, True])
    if d.kind == "int":
        return trial.suggest_int(d.name, int(d.low), int(d.high), step=int(d.step or 1))
    if d.step:
        return trial.suggest_float(d.name, d.low, d.high, step=d.step)
    return trial.suggest_float(d.name, d.low, d.high)


def baseline_values(cfg: TuneConfig) -> dict[str, Any]:
    """The baseline spec's value of each searched dimension (family default when the spec does not give it),
    clipped into the dimension's range."""
    _name, params, _plugin = family_of(cfg.agent)
    given = {**_family_defaults(_name), **dict(params)}
    out: dict[str, Any] = {}
    for d in cfg.space:
        v = given.get(d.name, False if d.kind == "bool" else d.low)
        if d.kind == "bool":
            out[d.name] = bool(v)
        else:
            v = min(max(float(v), d.low), d.high)
            if d.step:
                v = d.low + round((v - d.low) / d.step) * d.step
            out[d.name] = int(v) if d.kind == "int" else float(v)
    return out


def open_study(cfg: TuneConfig):
    """The study of ``cfg.out`` (created, or loaded to resume); trials left running by a killed run are failed
    (the resumed run draws their parameters again: :func:`run_trials`).

    Raises:
        TuneError: the folder holds a study of another configuration (the differing keys named).
    """
    import optuna
    from optuna.trial import TrialState

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    cfg.out.mkdir(parents=True, exist_ok=True)
    conf = cfg.out / CONFIG_FILE
    if conf.exists():
        old = json.loads(conf.read_text())
        ident = json.loads(json.dumps(cfg.identity()))
        diff = [k for k in IDENTITY_KEYS if old.get("identity", {}).get(k) != ident.get(k)]
        if diff:
            raise TuneError(f"--out {str(cfg.out)!r} holds a tuning run of another configuration (differs in: "
                            f"{', '.join(diff)}); give a new folder, or the same arguments to resume")
    else:
        conf.write_text(json.dumps({"identity": cfg.identity(), "config": cfg.to_dict()}, indent=2) + "\n")
    storage = optuna.storages.RDBStorage(f"sqlite:///{(cfg.out / STUDY_FILE).resolve()}")
    study = optuna.create_study(study_name=STUDY_NAME, storage=storage, direction="maximize",
                                sampler=_sampler(cfg, cfg.trials), load_if_exists=True)
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        # killed mid-trial: failed (never counted); the next trial, seeded by the count of finished trials
        # (sampler_seed) on the same history, draws the same parameters again
        storage.set_trial_state_values(t._trial_id, TrialState.FAIL)
    if not any(t.state != TrialState.FAIL for t in study.get_trials(deepcopy=False)):
        study.enqueue_trial(baseline_values(cfg))
    return study


@dataclass
class TuneResult:
    """What a tuning run found.

    Attributes:
        best: the best trial's spec. baseline: the baseline spec. best_value, baseline_value: their
            in-sample win rates (tuning deals; the best one is biased upward). trials: one row per finished
            trial (``number``, ``value``, ``spec``, parameters). heldout: one row per comparison (best minus
            another arm) on the fresh deals, or an empty table. arms: per-arm held-out win rates.
        elapsed_s: wall seconds of this invocation.
    """

    best: str
    baseline: str
    best_value: float
    baseline_value: float
    trials: pd.DataFrame
    heldout: pd.DataFrame
    arms: pd.DataFrame
    elapsed_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


class _SigintAtSafePoints:
    """Ctrl-C held back while optuna works on the study, and raised at the next safe point.

    A KeyboardInterrupt raised inside optuna's storage (a suggestion, ``tell``) can leave its lock taken, and the
    failed trial's own ``tell`` then waits for it for ever (seen: 1 run in 2 hung after SIGINT). So while this
    guard is entered, SIGINT only sets a flag, which :meth:`check` turns into the KeyboardInterrupt between optuna
    calls; inside :meth:`at_once` (the games, which hold no optuna lock) it is raised at once, as usual. optuna's
    calls take milliseconds, so Ctrl-C still ends the run within the 10 s a run promises. Outside the main thread
    (where no handler can be set) it does nothing.
    """

    def __init__(self) -> None:
        self.pending = False
        self.raise_now = False
        self._previous: Any = None

    def _handler(self, signum, frame) -> None:
        if self.raise_now:
            raise KeyboardInterrupt
        self.pending = True

    def __enter__(self) -> Self:
        import signal

        try:
            self._previous = signal.signal(signal.SIGINT, self._handler)
        except ValueError:  # not the main thread
            self._previous = None
        return self

    def __exit__(self, *exc) -> None:
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def check(self) -> None:
        """Raise the KeyboardInterrupt of a Ctrl-C held back since the last check."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def at_once(self):
        """Within: Ctrl-C raises at once (code that holds no optuna lock)."""
        self.raise_now = True
        try:
            yield
        finally:
            self.raise_now = False


def run_trials(cfg: TuneConfig, rules, progress: bool = True) -> Any:
    """Run the missing trials of the study (:func:`open_study`); return the study.

    Each trial plays ``trial_deals x P`` games in this process (:func:`play_candidate`). What resume guarantees:
    the sampler of each trial is made afresh, seeded by the run's seed and the number of finished trials
    (:func:`sampler_seed`), and reads only the finished trials from ``study.db``; so a run killed at any point
    (SIGKILL, Ctrl-C) and resumed with the same command makes the same suggestions, finishes the same trials and
    reports the same best spec as one that was never interrupted. A trial cut short is failed and never counted.
    A suggestion whose spec was already evaluated is not played again: its value is reused and the trial records
    ``repeat_of`` (the trial it repeats).

    Raises:
        KeyboardInterrupt: Ctrl-C; the trial under way is marked failed first (the folder resumes).
    """
    from optuna.trial import TrialState
    from tqdm.auto import tqdm

    from cya_sim.game.rng import root_key

    study = open_study(cfg)
    deals = TRIAL_DEAL_OFFSET + np.arange(cfg.trial_deals, dtype=np.int64)
    key = root_key(cfg.seed)
    finished = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    seen = {t.user_attrs["spec"]: t for t in finished if "spec" in t.user_attrs}
    done = len(finished)
    bar = tqdm(total=cfg.trials, initial=done, desc="trials", unit="trial", disable=not progress, dynamic_ncols=True)
    guard = _SigintAtSafePoints()
    try:
        with guard:
            while done < cfg.trials:
                guard.check()
                study.sampler = _sampler(cfg, cfg.trials, done)
                trial = study.ask()
                try:
                    values = {d.name: _suggest(trial, d) for d in cfg.space}
                    spec = candidate_spec(cfg.agent, values)
                    if spec in seen:  # already evaluated (the same deals): its value, not a second play
                        first = seen[spec]
                        value, se = float(first.value), first.user_attrs.get("se", float("nan"))
                        trial.set_user_attr("repeat_of", int(first.number))
                    else:
                        guard.check()
                        with guard.at_once():  # the games: Ctrl-C stops them where they are
                            w = play_candidate(spec, cfg, rules, deals, key)
                        value, se = float(w.mean()), float(ratio_estimate(w, 1.0, np.arange(w.size),
                                                                          cfg.confidence).se)
                    trial.set_user_attr("spec", spec)
                    trial.set_user_attr("se", se)
                except BaseException:  # Ctrl-C or a refused candidate: the trial is failed, not left running
                    study.tell(trial, state=TrialState.FAIL)
                    raise
                frozen = study.tell(trial, value)
                seen.setdefault(spec, frozen)
                done += 1
                bar.update(1)
                bar.set_postfix_str(f"best {study.best_value:.4f}")
            guard.check()
    finally:
        bar.close()
    return study


def trials_frame(study) -> pd.DataFrame:
    """Finished trials: ``number``, ``value`` (in-sample win rate), ``se``, ``spec``, ``repeat_of`` (the trial whose
    spec it repeats, its value reused; empty for a spec played), one column per parameter."""
    from optuna.trial import TrialState

    rows = []
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        rows.append({"number": t.number, "value": t.value, "se": t.user_attrs.get("se", float("nan")),
                     "spec": t.user_attrs.get("spec", ""), "repeat_of": t.user_attrs.get("repeat_of", pd.NA),
                     **t.params})
    return pd.DataFrame(rows).sort_values("number").reset_index(drop=True) if rows else pd.DataFrame(
        columns=["number", "value", "se", "spec", "repeat_of"])


def per_deal_wins(games: pd.DataFrame, n_players: int, n_arms: int) -> tuple[np.ndarray, np.ndarray]:
    """(deals (D,) int64, wins (A, D) float64): each arm's mean win share over its rotations of each deal.

    The arm of a held-out game is its line-up (arm a sits at line-up position 0, seat = rotation). Deals
    that some arm did not play (a run cut short) are dropped, so the arms stay paired.
    """
    rot = games["rotation"].to_numpy().astype(np.int64)
    share = np.stack([games[f"seat_{s}_win_share"].to_numpy(np.float64) for s in range(n_players)], axis=1)
    win = share[np.arange(len(games)), rot]
    arm = games["lineup"].to_numpy().astype(np.int64)
    deal = games["deal"].to_numpy().astype(np.int64)
    deals = np.unique(deal)
    pos = np.searchsorted(deals, deal)
    s = np.zeros((n_arms, deals.size))
    n = np.zeros((n_arms, deals.size))
    np.add.at(s, (arm, pos), win)
    np.add.at(n, (arm, pos), 1.0)
    keep = (n == n_players).all(axis=0)
    return deals[keep], (s[:, keep] / n_players)


def paired_gains(wins: np.ndarray, arms: Sequence[str], confidence: float = 0.95) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Held-out statistics of arm 0 (the tuned spec) against each other arm (the deal as the unit).

    Args:
        wins: (A, D) per-deal win rates (:func:`per_deal_wins`). arms: (A,) specs.

    Returns:
        (arms table: ``arm``, ``win_rate``, ``low``, ``high``, ``deals``; gains table: ``versus``, ``gain``
        (win-rate fraction, arm 0 minus the other), ``low``, ``high``, ``se``, ``p`` (two-sided, H0: no
        difference), ``deals``, ``rule`` and ``p_holm`` (Holm over the rows): the paired per-deal difference of
        :func:`cya_sim.reports.stats.paired_difference`, the tip study's estimator (Student t on deals - 1 df, or
        its exact bound when fewer than 10 deals differ or every deal gave the same difference; never a
        zero-width interval)).
    """
    a, d = wins.shape
    rows = []
    for i in range(a):
        e = estimate_from_sums(wins[i], np.ones(d), confidence, proportion=True)
        rows.append({"arm": arms[i], "win_rate": e.value, "low": e.low, "high": e.high, "deals": d})
    gains = []
    for j in range(1, a):
        g = paired_difference(wins[0] - wins[j], confidence)
        gains.append({"versus": arms[j], "gain": g.value, "low": g.low, "high": g.high, "se": g.se, "p": g.p,
                      "deals": d, "rule": g.rule})
    g = pd.DataFrame(gains, columns=["versus", "gain", "low", "high", "se", "p", "deals", "rule"])
    g["p_holm"] = holm(g["p"].to_numpy(float)) if len(g) > 1 else g["p"]
    return pd.DataFrame(rows), g


def run_tune(cfg: TuneConfig, progress: bool = True, command: str | None = None) -> TuneResult:
    """Trials, then the held-out evaluation, then ``result.json``, ``trials.csv``, ``heldout.csv``,
    ``history.png`` and ``REPORT.md`` in ``cfg.out``. Rerunning the same command resumes.

    Raises:
        TuneError, ExperimentError: a refused input or folder (nothing played).
        FolderError: ``cfg.out`` is a file or holds files that are not this study's (nothing written).
    """
    from cya_sim.results.folder import first_command, folder_lock, load_games, read_runs, record_run
    from cya_sim.runs.runner import run_experiment

    t0 = time.perf_counter()
    started = datetime.now(UTC).isoformat(timespec="seconds")
    exp0 = check_config(cfg)
    check_study_folder(cfg.out, "cya-sim tune", OWN_FILES)  # before the lock file is made
    with folder_lock(cfg.out, command):
        study = run_trials(cfg, exp0.rules, progress)
        trials = trials_frame(study)
        best_t = study.best_trial
        best = best_t.user_attrs["spec"]
        base = candidate_spec(cfg.agent, baseline_values(cfg))
        base_rows = trials[trials["spec"] == base]
        base_value = float(base_rows["value"].iloc[0]) if len(base_rows) else float("nan")
        arms_t, gains = pd.DataFrame(), pd.DataFrame()
        if cfg.heldout_deals:
            exp = heldout_experiment(cfg, best)
            _check_heldout_folder(exp)
            run_experiment(exp, progress=progress, command=command)
            games = load_games(exp.out, columns=["lineup", "deal", "rotation"]
                               + [f"seat_{s}_win_share" for s in range(cfg.players)])
            arms = arms_of(cfg, best)
            _deals, wins = per_deal_wins(games, cfg.players, len(arms))
            arms_t, gains = paired_gains(wins, arms, cfg.confidence)
        res = TuneResult(best, base, float(best_t.value), base_value, trials, gains, arms_t,
                         time.perf_counter() - t0)
        record_run(cfg.out, {"started_utc": started, "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
                             "command": command, "cya_sim_version": __version__, "wall_s": round(res.elapsed_s, 1)})
        write_outputs(cfg, res, first_command(read_runs(cfg.out)))
    return res


def _check_heldout_folder(exp: Experiment) -> None:
    """A held-out folder of an earlier best spec (the study grew after a resume) is replaced, not mixed."""
    import shutil

    from cya_sim.runs.runner import check_folder

    try:
        check_folder(exp)
    except FieldError:  # another experiment's results, or a damaged folder (FolderError)
        shutil.rmtree(exp.out)


def write_outputs(cfg: TuneConfig, r: TuneResult, command: str | None = None) -> None:
    """Write ``result.json``, ``trials.csv``, ``heldout.csv``, ``heldout_arms.csv``, ``history.png``, ``REPORT.md``:
    nothing of when or how long (that is the run log's, ``runs.json``), so a replay with the same results writes the
    same bytes. ``command``: the first run's command line, named in REPORT.md."""
    out = cfg.out
    r.trials.to_csv(out / "trials.csv", index=False)
    if len(r.heldout):
        r.heldout.to_csv(out / "heldout.csv", index=False)
        r.arms.to_csv(out / "heldout_arms.csv", index=False)
    doc = {"best": r.best, "baseline": r.baseline, "best_in_sample": r.best_value,
           "baseline_in_sample": r.baseline_value, "trials": len(r.trials), "heldout_arms": r.arms.to_dict("records"),
           "heldout_gains": r.heldout.to_dict("records"), "adjustment": "Holm (1979) over the gains of this run"}
    (out / RESULT_FILE).write_text(json.dumps(doc, indent=2, default=float) + "\n")
    history_figure(r, cfg).savefig(out / "history.png")
    (out / "REPORT.md").write_text(report_markdown(cfg, r, command))


def history_figure(r: TuneResult, cfg: TuneConfig):
    """Optimisation history (left): every trial's in-sample win rate, the running best and the baseline; held-out
    (right): each arm's win rate on the fresh deals with its 95% interval, as a dot plot with the estimate and
    interval printed beside it (:func:`cya_sim.reports.numbers.percent_interval`).

    Win rates are in percent on axes padded so 0% is inside the frame; a spec longer than
    :data:`cya_sim.reports.plots.LABEL_MAX` is its family and a key letter (the whole spec in the key under the
    panels); the legend sits under the trials' panel.

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator, PercentFormatter

    from cya_sim.reports.numbers import percent_interval
    from cya_sim.reports.plots import DPI, MIN_FONT, agent_labels, with_key

    t = r.trials
    arms = list(r.arms["arm"]) if len(r.arms) else []
    names, key = agent_labels([r.best, r.baseline, *arms])
    fig = Figure(dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    top = with_key(fig, key, 10.0, 4.4)
    ax, side = top.subplots(1, 2, width_ratios=[2.3, 1.7] if arms else [3, 0.01])
    if len(t):
        ax.scatter(t["number"], 100 * t["value"], s=10, color="0.55", label="trial (tuning deals, in-sample)", zorder=2)
        ax.plot(t["number"], 100 * t["value"].cummax(), color="C0", lw=1.6, label="best so far (in-sample, biased up)")
    if np.isfinite(r.baseline_value):
        ax.axhline(100 * r.baseline_value, color="C1", ls="--", lw=1.2,
                   label=f"baseline {names[r.baseline]} (in-sample)")
    top_value = max(float(np.nanmax(100 * t["value"].to_numpy(float), initial=0.0)) if len(t) else 0.0, 1.0)
    ax.set_ylim(-0.04 * top_value, 1.06 * top_value)
    ax.yaxis.set_major_locator(MaxNLocator(steps=[1, 2, 5, 10]))
    ax.yaxis.set_major_formatter(PercentFormatter(100, decimals=None))
    ax.grid(axis="y", color="0.93")
    ax.set_xlabel("trial", fontsize=9)
    ax.set_ylabel("in-sample win rate against the field", fontsize=9)
    ax.set_title(f"tune {cfg.agent} vs {', '.join(cfg.field)} ({cfg.players} players, {cfg.preset}), {cfg.sampler}:\n"
                 f"{len(t)} trials on {cfg.trial_deals:,} tuning deals", fontsize=9, loc="left")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1, fontsize=MIN_FONT, frameon=False)
    if arms:
        rows = r.arms.reset_index(drop=True)
        y = np.arange(len(arms))[::-1]
        w, lo, hi = (100 * rows[k].to_numpy(float) for k in ("win_rate", "low", "high"))
        side.errorbar(w, y, xerr=np.clip(np.vstack([w - lo, hi - w]), 0, None), fmt="o", ms=5, capsize=3,
                      color="C2", elinewidth=1.6)
        for yy, row in zip(y, rows.itertuples()):
            side.annotate(" ".join(percent_interval(row.win_rate, row.low, row.high, decimals=2)), xy=(1.02, yy),
                          xycoords=("axes fraction", "data"), va="center", ha="left", fontsize=MIN_FONT, color="C2")
        side.set_yticks(y, [names[a] for a in arms], fontsize=MIN_FONT + 0.5)
        side.set_ylim(-0.6, len(arms) - 0.4)
        span = max(float(np.nanmax(hi)) - min(0.0, float(np.nanmin(lo))), 1.0)
        side.set_xlim(min(0.0, float(np.nanmin(lo))) - 0.05 * span, float(np.nanmax(hi)) + 0.08 * span)
        side.xaxis.set_major_locator(MaxNLocator(nbins=5, steps=[1, 2, 5, 10]))
        side.xaxis.set_major_formatter(PercentFormatter(100, decimals=None))
        side.set_xlabel("held-out win rate (95% deal-clustered interval)", fontsize=9)
        side.set_title(f"held-out: {int(rows['deals'].iloc[0]):,} fresh deals, every arm in every seat", fontsize=9,
                       loc="left")
        side.grid(axis="x", color="0.93")
    else:
        side.set_visible(False)
    for a in (ax, side):
        a.tick_params(labelsize=MIN_FONT + 0.5)
    return fig


def _pp(x: float) -> str:
    return f"{100 * x:+.2f}" if np.isfinite(x) else "n/a"


def _pv(p: float) -> str:
    """A p-value as text; one below the smallest float (printed 0) reads ``< 1e-300``."""
    return "< 1e-300" if p == 0 else f"{p:.3g}"


def _repeats(trials: pd.DataFrame) -> int:
    """Trials whose spec repeats an evaluated one (``repeat_of`` set)."""
    return int(trials["repeat_of"].notna().sum()) if "repeat_of" in trials else 0


def report_markdown(cfg: TuneConfig, r: TuneResult, command: str | None = None) -> str:
    """REPORT.md of a tuning run: the pasteable spec, the held-out table, how it was made."""
    lines = [f"# Tuning {cfg.agent} against {', '.join(cfg.field)} ({cfg.players} players, {cfg.preset})", "",
             f"Best spec (paste as an agent): `{r.best}`", "",
             (f"In-sample (the {cfg.trial_deals:,} tuning deals, biased upward by the search): best "
              f"{100 * r.best_value:.2f}% vs baseline {100 * r.baseline_value:.2f}% "
              f"({len(r.trials)} trials, sampler {cfg.sampler}"
              + (f"; {_repeats(r.trials)} of them drew a spec already evaluated and reused its value"
                 if _repeats(r.trials) else "") + ")."), ""]
    if len(r.heldout):
        conf = round(100 * cfg.confidence)
        lines += [f"## Held-out: {int(r.arms['deals'].iloc[0]):,} fresh duplicated deals, every arm in every seat", "",
                  f"| arm | win rate | {conf}% interval |", "|---|---|---|"]
        for a in r.arms.itertuples():  # two decimals, more where an estimate would read equal to a bound it is not
            d = decimals_apart([100 * a.win_rate, 100 * a.low, 100 * a.high], 2)
            lines.append(f"| `{a.arm}` | {100 * a.win_rate:.{d}f}% | {100 * a.low:.{d}f} to {100 * a.high:.{d}f} |")
        lines += ["", f"| gain of the best over | points | {conf}% interval | p | p (Holm) |", "|---|---|---|---|---|"]
        lines += [f"| `{g.versus}` | {_pp(g.gain)} | {_pp(g.low)} to {_pp(g.high)}"
                  + ("" if g.rule == "t" else f" (exact bound: {g.rule})") + f" | {_pv(g.p)} | {_pv(g.p_holm)} |"
                  for g in r.heldout.itertuples()]
        lines += ["", ("The deal is the sampling unit (per deal, each arm's mean over its rotations); a gain is the "
                       "mean paired per-deal difference with a Student-t interval on deals - 1 df (an exact bound, "
                       "never of zero width, when fewer than 10 deals differ or every deal gave the same difference; "
                       "docs/statistics.md); Holm (1979) over this table's rows.")]
    lines += ["", (f"Command (the first run's): `{command or 'python'}`. Every run's command line, times and wall "
                   "seconds are in the run log, `runs.json`; a replay with the same results adds an entry there and "
                   "rewrites every other file byte for byte."),
              ("Files: study.db (optuna, resumable), trials.csv, heldout.csv, heldout_arms.csv, history.png, heldout/, "
              "runs.json."),
              ""]
    return "\n".join(lines)


def heldout_coverage(reps: int = 200, deals: int = 30, players: int = 2, preset: str = "classic",
                     treatment: str = "heuristic(count=true)", control: str = "heuristic",
                     field: str = "greedy", seed: int = 7, confidence: float = 0.95) -> dict[str, float]:
    """Coverage of the held-out paired-gain interval (:func:`cya_sim.reports.stats.paired_difference`) on
    replications of real games.

    ``reps`` disjoint replications of ``deals`` duplicated deals each (treatment and control against the
    field, every rotation); the truth is the gain pooled over all replications (its error is about
    1/sqrt(reps) of one replication's), as :mod:`cya_sim.studies.validation` does for designs without a
    known truth. Also reports the false-positive rate of the t test at that truth.

    Returns:
        dict: ``coverage`` (share of intervals holding the pooled gain), ``reps``, ``truth`` (fraction),
        ``half_width`` (mean, fraction), ``rejections`` (share of p < 1 - confidence).
    """
    from cya_sim.game.rng import root_key
    from cya_sim.game.rules import get_rules

    cfg = TuneConfig(agent=control, field=(field,), players=players, out=Path("."), preset=preset)
    rules = get_rules(preset)
    d = np.arange(reps * deals, dtype=np.int64)
    key = root_key(seed)
    wt = play_candidate(treatment, cfg, rules, d, key).reshape(reps, deals)
    wc = play_candidate(control, cfg, rules, d, key).reshape(reps, deals)
    truth = float((wt - wc).mean())
    cover, hw, rej = 0, [], 0
    for i in range(reps):
        g = paired_difference(wt[i] - wc[i], confidence)
        cover += g.low <= truth <= g.high
        hw.append((g.high - g.low) / 2)
        rej += bool(paired_difference(wt[i] - wc[i] - truth, confidence, bound=1 + abs(truth)).p < 1 - confidence)
    return {"coverage": cover / reps, "reps": reps, "truth": truth, "half_width": float(np.mean(hw)),
            "rejections": rej / reps}


