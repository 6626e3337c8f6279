"""The tip study: every strategy tip of TIPS.md as an ablation, with an effect, an interval and a verdict.

A *study file* (``experiments/tips.toml``) lists tips, each a treatment and a
control agent spec (the same ``heuristic`` with only the tip's switch changed),
and the contexts: table sizes, rule presets and fields. Each context *cell*
(preset, field, P) is one experiment of ``design.kind = "ablation"``
(:mod:`cya_sim.runs.experiment`): every arm sits against P - 1 copies of the field
on the same duplicated deals, seats rotated, so treatment and control play
the same cards in the same seats against the same opponents. A cell plays
``deals x arms x P`` games into its own results folder (resumable).

Per tip and cell (:func:`tip_effects`):

- the paired difference, treatment minus control, in per-game win rate and in
  mean final total (dollars). The sampling unit is the deal: per deal, each
  arm's mean over its P rotations; the effect is the mean over deals of the
  per-deal difference, with a Student-t interval on deals - 1 df
  (:func:`cya_sim.reports.stats.mean_interval`, the deal-clustered interval),
  or an exact bound when every deal gave the same difference or fewer than
  :data:`FEW_NONZERO_DEALS` deals differ from 0 (:func:`paired_effect`);
- a two-sided t test of no difference (:func:`cya_sim.reports.stats.t_test`) and an
  equivalence test, TOST (Schuirmann 1987, J. Pharmacokinet. Biopharm.
  15:657–680), of ``|effect| < m`` with the margin ``m`` in percentage points;
- Holm (1979) adjustment of both p-value columns over the whole family of
  tip x cell rows of the study (inert rows carry no test);
- the verdict (:func:`verdict`): *inert* when the switch changed no decision
  in the run (no paired game's action log differed in the logged sample and no
  paired game's outcome differed anywhere), else *supported* / *refuted* when
  the Holm-adjusted difference test rejects (sign of the effect), else *no
  effect within ±m* when the Holm-adjusted TOST rejects, else *inconclusive*.

Decisions changed (:func:`changed_decisions`): for ``log_deals`` deals per
cell every arm is replayed on the batched engine with action logs; a paired
game (same deal, same rotation) whose treatment and control logs differ has at
least one decision the switch changed — the first divergence, where both games
are in the same state (agents and engine are deterministic given the deal).
The count is of such first divergences in the logged sample, plus, over all
games, the paired games whose outcome (totals, rounds, turns, challenges,
decisions) differs.

Per-round records (:func:`trace_rounds`; TIP-BIG-POT, FACT-1360): the same
sample of deals, first arm, every rotation, replayed on the reference engine;
at every round's end the per-seat scores, the largest set and its holder, and
the R-SCORE invariant (stacks + discard pile + leftover cards = the deck's
value; at most $1,360,000 scored for the classic deck) are stored in
``rounds.parquet``. FACT-ROUNDS uses the ``rounds`` column of every game.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from cya_sim.reports.stats import holm, mean_interval, ratio_estimate
from cya_sim.runs.experiment import Experiment, ExperimentError, RunOptions, Schedule, parse_experiment
from cya_sim.tomltext import TomlTextError, load_toml

STUDY_KEYS = ("name", "seed", "deals", "players", "presets", "fields", "margin_pp", "confidence", "log_deals",
              "trace_deals", "out", "workers", "quick", "tip", "reason", "description", "pilot",
              "target_half_width_pp", "pilot_inflation", "hide_wild", "players_by_preset")
QUICK_KEYS = ("deals", "players", "presets", "fields", "log_deals", "trace_deals", "out", "workers", "pilot",
              "hide_wild", "players_by_preset")
HIDE_KEYS = ("subject", "preset", "players", "deals", "seed")
#: The conditions of the TIP-HIDE-WILD comparison: (name, rule option hidden_wilds, field agent).
HIDE_CONDITIONS = (("hidden, naive field", True, "card_counter(infer_hidden=false)"),
                   ("hidden, inferring field", True, "card_counter(infer_hidden=true)"),
                   ("revealed", False, "card_counter(infer_hidden=true)"))
#: The contrasts reported (later condition minus earlier), each a row of its own Holm family.
HIDE_CONTRASTS = ((1, 0, "opponents infer hidden wilds (hidden: inferring - naive field)"),
                  (2, 1, "wilds revealed vs hidden against inferring opponents (revealed - hidden)"),
                  (2, 0, "wilds revealed vs hidden from naive opponents (revealed - hidden, naive field)"))
VERDICTS = ("supported", "refuted", "no effect within ±m", "inconclusive", "inert")
#: Actions kept per logged game (a game of the presets here takes a few hundred).
LOG_CAP = 4000
#: Dollars at most scored in one round with the classic deck (seed 001; FACT-1360).
FACT_1360 = 1_360_000


@dataclass(frozen=True)
class Study:
    """A validated tip study.

    Attributes:
        name: identifier. seed: root seed (every cell derives its own seed from it and its position).
        deals: (S,) duplicated deals per cell at each table size (:meth:`deals_at`). players: (S,) table sizes. presets: rule presets. fields: field agents.
        tips: (id, treatment spec, control spec) per tip. reasons: id -> why it has no verdict row.
        margin_pp: TOST margin, percentage points of win rate. confidence: two-sided level.
        log_deals: deals per cell replayed with action logs (the inert check; <= deals).
        trace_deals: of those, deals replayed on the reference engine for per-round records (<= log_deals).
        out: study folder. workers: local worker processes (None: all cores). quick: the --quick form.
        source: the study file.
        pilot: pilot verdict tables (CSV paths, :func:`plan_deals`); with ``target_half_width_pp`` they fix
            the deals of each cell (the two-stage allocation); empty: ``deals`` everywhere.
        target_half_width_pp: the win-rate half-width (pp) every non-inert row should reach (None: no target).
        pilot_inflation: factor (>= 1) on the planned deals against the pilot's sampling error.
        planned: (preset, field, P) -> deals, filled by :func:`plan_deals` (empty: ``deals_at``).
        hide_wild: the TIP-HIDE-WILD comparison (:data:`HIDE_KEYS`), None to skip it.
        only: cell names (``classic-greedy-2p``) and/or ``hide`` to run and analyse only those (a
            reproduction check; each cell keeps its seed and deals); empty: everything.
        players_by_preset: preset -> the table sizes (a subset of ``players``) at which it is played, for
            presets that allow only some sizes (``two_player_draft`` only 2); a preset not named plays every
            size of ``players``. Empty: every preset at every size (the cells are the full product).
    """

    name: str
    seed: int
    deals: tuple[int, ...]
    players: tuple[int, ...]
    presets: tuple[str, ...]
    fields: tuple[str, ...]
    tips: tuple[tuple[str, str, str], ...]
    reasons: tuple[tuple[str, str], ...] = ()
    margin_pp: float = 0.5
    confidence: float = 0.95
    log_deals: int = 200
    trace_deals: int = 20
    out: Path = Path("results/tips")
    workers: int | None = None
    quick: bool = False
    source: Path | None = None
    description: str = ""
    pilot: tuple[Path, ...] = ()
    target_half_width_pp: float | None = None
    pilot_inflation: float = 1.1
    planned: Mapping[tuple[str, str, int], int] = field(default_factory=dict)
    hide_wild: Mapping[str, Any] | None = None
    only: tuple[str, ...] = ()
    players_by_preset: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def arms(self) -> tuple[str, ...]:
        """Distinct treatment and control specs in order of first mention."""
        return tuple(dict.fromkeys(a for _i, t, c in self.tips for a in (t, c)))

    def deals_at(self, p: int) -> int:
        """Duplicated deals per cell at table size ``p`` (the ``deals`` field, before any pilot plan)."""
        return self.deals[self.players.index(p)]

    def deals_of(self, preset: str, fld: str, p: int) -> int:
        """Duplicated deals of one cell: the pilot plan's (:func:`plan_deals`) when it has the cell, else ``deals_at``."""
        return int(self.planned.get((preset, fld, p), self.deals_at(p)))

    def all_cells(self) -> list[tuple[str, str, int]]:
        """(preset, field, P) of every cell of the study file, ``only`` ignored (a cell's seed is its position here).

        The product presets x fields x players, keeping for each preset only its sizes in ``players_by_preset``.
        """
        return [(pr, f, p) for pr in self.presets for f in self.fields for p in self.players
                if p in self.players_by_preset.get(pr, self.players)]

    def cells(self) -> list[tuple[str, str, int]]:
        """(preset, field, P) of every cell to run and analyse, in run order (those named in ``only`` when given)."""
        return [c for c in self.all_cells() if not self.only or self.cell_name(*c) in self.only]

    def cell_name(self, preset: str, fld: str, p: int) -> str:
        """Folder name of a cell inside ``out/cells``."""
        return f"{preset}-{fld}-{p}p"

    def experiment(self, preset: str, fld: str, p: int) -> Experiment:
        """The ablation experiment of one cell: ``deals x arms x P`` games, duplicate deals, seats rotated.

        Raises:
            ExperimentError: a field the experiment refuses (named).
        """
        i = self.all_cells().index((preset, fld, p)) if (preset, fld, p) in self.all_cells() else 0
        doc = {
            "name": f"{self.name}-{self.cell_name(preset, fld, p)}",
            "description": f"tip study {self.name}: ablation cell {preset}, field {fld}, {p} players",
            "seed": int(self.seed) * 1000 + i,
            "games": self.deals_of(preset, fld, p) * len(self.arms) * p,
            "players": p,
            "agents": [*self.arms, fld],
            "out": str(self.out / "cells" / self.cell_name(preset, fld, p)),
            "rules": {"preset": preset},
            "design": {"kind": "ablation", "field": fld,
                       "tips": [{"id": i_, "treatment": t, "control": c} for i_, t, c in self.tips]},
        }
        exp = parse_experiment(doc)
        return replace(exp, run=RunOptions(engine="batched", workers=self.workers))


def load_study(path: str | Path, quick: bool = False, overrides: Mapping[str, Any] | None = None,
               only: Sequence[str] = ()) -> Study:
    """Read and validate a study file (``experiments/tips.toml``); ``quick`` applies its ``[quick]`` table.

    Args:
        path: the TOML file. quick: the CI form. overrides: field -> value applied last (``deals``, ``out``...).
            only: as :attr:`Study.only`.

    Raises:
        ExperimentError: unreadable file or an invalid field, named (``tip[3].control``).
    """
    path = Path(path)
    try:
        data = load_toml(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ExperimentError("file", f"cannot read {str(path)!r} ({e.strerror or e}); give a tip study TOML file")
    except TomlTextError as e:
        raise ExperimentError("file", f"{str(path)!r}: {e}") from None
    return parse_study(data, quick=quick, overrides=overrides, source=path, only=only)


def parse_study(data: Mapping[str, Any], quick: bool = False, overrides: Mapping[str, Any] | None = None,
                source: Path | None = None, only: Sequence[str] = ()) -> Study:
    """Validate a parsed study document (see :func:`load_study`); ``only`` as :attr:`Study.only`.

    Raises:
        ExperimentError: the first invalid field, named.
    """
    from cya_sim.game.rules import PRESETS

    d = dict(data)
    for k in d:
        if k not in STUDY_KEYS:
            raise ExperimentError(k, f"unknown field; allowed: {', '.join(STUDY_KEYS)}")
    q = d.get("quick", {})
    if not isinstance(q, Mapping):
        raise ExperimentError("quick", f"{q!r}; it must be a table of {', '.join(QUICK_KEYS)}")
    for k in q:
        if k not in QUICK_KEYS:
            raise ExperimentError(f"quick.{k}", f"unknown field; allowed: {', '.join(QUICK_KEYS)}")
    if quick:
        d.update(q)
    d.update(overrides or {})

    def intval(k: str, lo: int, default: Any = None) -> int:
        v = d.get(k, default)
        if not isinstance(v, int) or isinstance(v, bool) or v < lo:
            raise ExperimentError(k, f"{v!r}; it must be an integer >= {lo}")
        return int(v)

    def names(k: str, allowed: Sequence[str] | None = None) -> tuple[str, ...]:
        v = d.get(k)
        if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v) or len(set(v)) != len(v):
            raise ExperimentError(k, f"{v!r}; give a non-empty list of distinct names"
                                  + (f" from: {', '.join(allowed)}" if allowed else ""))
        for i, x in enumerate(v):
            if allowed is not None and x not in allowed:
                raise ExperimentError(f"{k}[{i}]", f"{x!r}; choose from: {', '.join(allowed)}")
        return tuple(v)

    name = d.get("name")
    if not isinstance(name, str) or not name:
        raise ExperimentError("name", f"{name!r}; give a name of letters, digits, '_', '.' or '-'")
    players = d.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, int) and p >= 2 for p in players) \
            or len(set(players)) != len(players):
        raise ExperimentError("players", f"{players!r}; give a list of distinct table sizes (integers >= 2)")
    presets = names("presets", tuple(PRESETS))
    from agents.classic.registry import agent_names

    fields_ = names("fields")
    for i, f in enumerate(fields_):
        if f not in agent_names():
            raise ExperimentError(f"fields[{i}]", f"{f!r}; choose registered agents: {', '.join(agent_names())}")
    tips_raw = d.get("tip")
    if not isinstance(tips_raw, list) or not tips_raw:
        raise ExperimentError("tip", "give at least one [[tip]] with id, treatment and control")
    tips = []
    for i, t in enumerate(tips_raw):
        if not isinstance(t, Mapping) or set(t) - {"id", "treatment", "control"} or not all(
                isinstance(t.get(k), str) for k in ("id", "treatment", "control")):
            raise ExperimentError(f"tip[{i}]", f"{t!r}; give id, treatment and control as strings (agent specs)")
        tips.append((t["id"], t["treatment"], t["control"]))
    reasons = []
    for i, r in enumerate(d.get("reason", [])):
        if not isinstance(r, Mapping) or not isinstance(r.get("id"), str) or not isinstance(r.get("reason"), str):
            raise ExperimentError(f"reason[{i}]", f"{r!r}; give id and reason as strings")
        reasons.append((r["id"], " ".join(r["reason"].split())))
    margin = d.get("margin_pp", 0.5)
    if not isinstance(margin, (int, float)) or isinstance(margin, bool) or not 0 < margin < 100:
        raise ExperimentError("margin_pp", f"{margin!r}; give the equivalence margin in percentage points, > 0")
    conf = d.get("confidence", 0.95)
    if not isinstance(conf, float) or not 0 < conf < 1:
        raise ExperimentError("confidence", f"{conf!r}; give a level strictly between 0 and 1, e.g. 0.95")
    deals_raw = d.get("deals")
    if isinstance(deals_raw, list):
        if len(deals_raw) != len(players) or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 2
                                                     for x in deals_raw):
            raise ExperimentError("deals", f"{deals_raw!r}; give an integer >= 2, or one per table size of players "
                                  f"({len(players)} integers >= 2)")
        deals = tuple(int(x) for x in deals_raw)
    else:
        deals = (intval("deals", 2),) * len(players)
    log_deals = min(intval("log_deals", 1, 200), min(deals))  # planned deals are never fewer (plan_deals)
    trace = min(intval("trace_deals", 1, 20), log_deals)
    workers = d.get("workers")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise ExperimentError("workers", f"{workers!r}; it must be an integer >= 1 (omit it for all cores)")
    pilot_raw = d.get("pilot", [])
    if isinstance(pilot_raw, str):
        pilot_raw = [pilot_raw]
    if not isinstance(pilot_raw, list) or not all(isinstance(x, str) and x for x in pilot_raw):
        raise ExperimentError("pilot", f"{pilot_raw!r}; give a list of pilot verdict tables (CSV paths)")
    target = d.get("target_half_width_pp")
    if target is not None and (not isinstance(target, (int, float)) or isinstance(target, bool) or target <= 0):
        raise ExperimentError("target_half_width_pp", f"{target!r}; give the target half-width in percentage "
                              "points, > 0 (omit it for none)")
    infl = d.get("pilot_inflation", 1.1)
    if not isinstance(infl, (int, float)) or isinstance(infl, bool) or infl < 1:
        raise ExperimentError("pilot_inflation", f"{infl!r}; give a factor >= 1 on the planned deals")
    hide = d.get("hide_wild")
    if hide is not None:
        if not isinstance(hide, Mapping) or set(hide) - set(HIDE_KEYS):
            raise ExperimentError("hide_wild", f"{hide!r}; give a table of {', '.join(HIDE_KEYS)}")
        hp = hide.get("players")
        hd = hide.get("deals")
        if not isinstance(hp, list) or not hp or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 2
                                                         for x in hp):
            raise ExperimentError("hide_wild.players", f"{hp!r}; give a list of table sizes (integers >= 2)")
        if isinstance(hd, int) and not isinstance(hd, bool):
            hd = [hd] * len(hp)
        if not isinstance(hd, list) or len(hd) != len(hp) or not all(
                isinstance(x, int) and not isinstance(x, bool) and x >= 2 for x in hd):
            raise ExperimentError("hide_wild.deals", f"{hd!r}; give an integer >= 2, or one per table size")
        if hide.get("preset", "classic") not in PRESETS:
            raise ExperimentError("hide_wild.preset", f"{hide.get('preset')!r}; choose from: {', '.join(PRESETS)}")
        hide = {"subject": str(hide.get("subject", "heuristic")), "preset": hide.get("preset", "classic"),
                "players": tuple(hp), "deals": tuple(int(x) for x in hd), "seed": hide.get("seed")}
        if hide["seed"] is not None and (not isinstance(hide["seed"], int) or hide["seed"] < 0):
            raise ExperimentError("hide_wild.seed", f"{hide['seed']!r}; it must be an integer >= 0")
    by_preset_raw = d.get("players_by_preset", {})
    if not isinstance(by_preset_raw, Mapping):
        raise ExperimentError("players_by_preset", f"{by_preset_raw!r}; give a table of preset = [table sizes]")
    by_preset = {}
    for pr, sizes in by_preset_raw.items():
        if pr not in presets:
            raise ExperimentError(f"players_by_preset.{pr}", f"not in presets; choose from: {', '.join(presets)}")
        if not isinstance(sizes, list) or not sizes or not all(
                isinstance(x, int) and not isinstance(x, bool) and x in players for x in sizes):
            raise ExperimentError(f"players_by_preset.{pr}", f"{sizes!r}; give a non-empty list of table sizes "
                                  f"from players ({', '.join(map(str, players))})")
        by_preset[pr] = tuple(int(x) for x in sizes)
    out = d.get("out", f"results/{name}")
    if not isinstance(out, str) or not out:
        raise ExperimentError("out", f"{out!r}; give a folder path as a string")
    study = Study(name=name, seed=intval("seed", 0), deals=deals, players=tuple(players), presets=presets,
                  fields=fields_, tips=tuple(tips), reasons=tuple(reasons), margin_pp=float(margin),
                  confidence=conf, log_deals=log_deals, trace_deals=trace, out=Path(out), workers=workers, quick=quick,
                  source=source, description=str(d.get("description", "")),
                  pilot=tuple(Path(x) for x in pilot_raw),
                  target_half_width_pp=None if target is None else float(target), pilot_inflation=float(infl),
                  hide_wild=hide, players_by_preset=by_preset)
    names_ = {study.cell_name(*c) for c in study.all_cells()} | {"hide"}
    for x in only:
        if x not in names_:
            raise ExperimentError("only", f"{x!r}; choose cells such as {study.cell_name(*study.all_cells()[0])} "
                                  "(preset-field-Pp) or hide")
    study = replace(study, only=tuple(only))
    if study.pilot and study.target_half_width_pp is not None:
        plan = plan_deals(study)
        study = replace(study, planned={k: int(v) for k, v in zip(
            zip(plan["preset"], plan["field"], plan["players"]), plan["deals"])})
        if hide is not None:
            hplan = plan_hide_deals(study)
            if len(hplan):
                study = replace(study, hide_wild={**hide, "deals": tuple(int(x) for x in hplan["deals"]),
                                                  "planned": True})
    for cell in study.cells():  # every cell's experiment validates its agents, sizes and design
        try:
            study.experiment(*cell)
        except ExperimentError as e:
            field_ = e.field.replace("design.tips", "tip").replace("agents", "tip")
            raise ExperimentError(field_, f"{e.detail} (cell {study.cell_name(*cell)})") from None
    hide_experiments(study)  # validates the TIP-HIDE-WILD comparison's subject, preset and sizes
    return study


# -- the two-stage allocation: deals per cell from a pilot --------------------------------------
def plan_deals(study: Study) -> pd.DataFrame:
    """Deals per cell from the pilot's per-deal spread (stage 1) so every win-rate row reaches the target (stage 2).

    Method (a two-stage design with an *external* pilot, Stein 1945; Wittes &
    Brittain 1990): the pilot tables (``study.pilot``, verdict CSVs of earlier
    runs with their own seed, so their deals are independent of the study's)
    give per tip x cell the standard deviation of the per-deal win-rate
    difference, ``sd = win_se * sqrt(deals)``. A cell's deals are then fixed
    once, before any of its games is played::

        n = ceil(inflation * (t * sd_max / target) ** 2)

    with ``sd_max`` the largest sd over the cell's non-inert pilot rows (every
    arm plays the same deals), ``t`` the two-sided Student quantile on
    ``n_z - 1`` df (``n_z`` the normal-quantile size) and ``inflation``
    (``pilot_inflation``) against the pilot's own sampling error. Because ``n``
    depends only on the pilot, whose games are not reused, the study's
    intervals, tests, Holm adjustment and TOST are those of a fixed-size study:
    their error rates are unchanged (no look at the study's own outcomes, no
    peek-until-significant). At least ``log_deals`` deals per cell; a cell
    without pilot rows keeps ``deals_at``.

    Returns:
        one row per cell: ``preset``, ``field``, ``players``, ``pilot_rows``, ``pilot_deals``, ``sd_max``
        (per-deal sd of the largest row, win-rate fraction), ``tip_at_max``, ``deals`` (planned).

    Raises:
        ExperimentError: an unreadable pilot table or one without the needed columns (``pilot``).
    """
    frames = []
    for f in study.pilot:
        try:
            t = pd.read_csv(f)
        except (OSError, pd.errors.ParserError) as e:
            raise ExperimentError("pilot", f"cannot read {str(f)!r} ({e}); give verdict tables of a pilot run")
        if "contrast" in t.columns:  # a TIP-HIDE-WILD comparison table (plan_hide_deals)
            continue
        need = {"preset", "field", "players", "tip", "deals", "win_se", "inert"}
        if need - set(t.columns):
            raise ExperimentError("pilot", f"{str(f)!r} lacks columns {', '.join(sorted(need - set(t.columns)))}")
        frames.append(t[list(need)])
    pilot = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["preset", "field", "players"])
    tips = {t for t, _a, _b in study.tips}
    target = (study.target_half_width_pp or 1.0) / 100.0
    q = 0.5 + study.confidence / 2
    rows = []
    for pr, fl, p in study.cells():
        sub = pilot[(pilot["preset"] == pr) & (pilot["field"] == fl) & (pilot["players"] == p)]
        sub = sub[sub["tip"].isin(tips) & ~sub["inert"].astype(bool)]
        sd = sub["win_se"].to_numpy(np.float64) * np.sqrt(sub["deals"].to_numpy(np.float64))
        if sd.size == 0 or not np.isfinite(sd).any():
            rows.append({"preset": pr, "field": fl, "players": p, "pilot_rows": 0, "pilot_deals": 0,
                         "sd_max": float("nan"), "tip_at_max": "", "deals": study.deals_at(p)})
            continue
        i = int(np.nanargmax(sd))
        n_z = max(2, math.ceil(study.pilot_inflation * (float(sps.norm.ppf(q)) * sd[i] / target) ** 2))
        n = math.ceil(study.pilot_inflation * (float(sps.t.ppf(q, n_z - 1)) * sd[i] / target) ** 2)
        rows.append({"preset": pr, "field": fl, "players": p, "pilot_rows": int(sd.size),
                     "pilot_deals": int(sub["deals"].min()), "sd_max": float(sd[i]),
                     "tip_at_max": str(sub["tip"].iloc[i]), "deals": max(n, study.log_deals, 2)})
    return pd.DataFrame(rows)


def plan_hide_deals(study: Study) -> pd.DataFrame:
    """Deals per table size of the TIP-HIDE-WILD comparison from pilot ``hide.csv`` tables (as :func:`plan_deals`).

    Pilot tables with a ``contrast`` column are the comparison's; the largest
    per-deal sd over the contrasts of a table size fixes its deals. Table sizes
    without pilot rows keep the ``hide_wild.deals`` given.

    Returns:
        one row per table size of ``hide_wild.players``: ``players``, ``sd_max``, ``pilot_deals``, ``deals``;
        empty when no pilot table is the comparison's.
    """
    h = study.hide_wild
    frames = [t for t in (pd.read_csv(f) for f in study.pilot) if "contrast" in t.columns]
    if not h or not frames:
        return pd.DataFrame()
    pilot = pd.concat(frames, ignore_index=True)
    target = (study.target_half_width_pp or 1.0) / 100.0
    q = 0.5 + study.confidence / 2
    rows = []
    for p, given in zip(h["players"], h["deals"]):
        sub = pilot[pilot["players"] == p]
        sd = sub["win_se"].to_numpy(np.float64) * np.sqrt(sub["deals"].to_numpy(np.float64))
        if sd.size == 0 or not np.isfinite(sd).any():
            rows.append({"players": p, "sd_max": float("nan"), "pilot_deals": 0, "deals": given})
            continue
        s_max = float(np.nanmax(sd))
        n_z = max(2, math.ceil(study.pilot_inflation * (float(sps.norm.ppf(q)) * s_max / target) ** 2))
        n = math.ceil(study.pilot_inflation * (float(sps.t.ppf(q, n_z - 1)) * s_max / target) ** 2)
        rows.append({"players": p, "sd_max": s_max, "pilot_deals": int(sub["deals"].min()), "deals": max(n, 2)})
    return pd.DataFrame(rows)


# -- TIP-HIDE-WILD: hiding against revealing against inferring opponents ----------------------
def hide_experiments(study: Study) -> list[tuple[int, int, Experiment]]:
    """The experiments of the TIP-HIDE-WILD comparison: (P, condition index, experiment) per table size and condition.

    Per table size, one ``one_vs_field`` experiment per condition of
    :data:`HIDE_CONDITIONS` (the subject against P - 1 copies of the field,
    duplicate deals, seats rotated). The conditions of a table size share one
    seed, so they play the same deals (a deal depends only on the seed, its
    number and the deck) and the contrasts are paired on deals. Under
    ``hidden_wilds = false`` (R-HIDDEN-WILD) no card is hidden, so the field's
    inference switch changes nothing there and one revealed condition suffices.

    Raises:
        ExperimentError: an invalid subject or size, named (``hide_wild.subject``).
    """
    h = study.hide_wild
    if not h or (study.only and "hide" not in study.only):
        return []
    out = []
    for k, (p, deals) in enumerate(zip(h["players"], h["deals"])):
        seed = int(h["seed"]) * 1000 + k if h.get("seed") is not None else int(study.seed) * 1000 + 900 + k
        for j, (cname, hidden, fld) in enumerate(HIDE_CONDITIONS):
            doc = {"name": f"{study.name}-hide-{p}p-{j}", "seed": seed, "games": deals * p, "players": p,
                   "description": f"TIP-HIDE-WILD: {h['subject']} against {fld}, hidden_wilds={hidden}, {p} players",
                   "agents": [h["subject"], fld], "out": str(study.out / "hide" / f"{p}p-c{j}"),
                   "rules": {"preset": h["preset"], "options": {"hidden_wilds": hidden}},
                   "design": {"kind": "one_vs_field", "candidates": [h["subject"]], "field": fld, "duplicate": True}}
            try:
                exp = parse_experiment(doc)
            except ExperimentError as e:
                where = "subject" if e.field.startswith("agents[0]") else e.field
                raise ExperimentError(f"hide_wild.{where}", e.detail) from None
            out.append((p, j, replace(exp, run=RunOptions(engine="batched", workers=study.workers))))
    return out


def hide_effects(per_deal: Mapping[tuple[int, int], tuple[np.ndarray, np.ndarray]], confidence: float = 0.95,
                 margin_pp: float = 0.5) -> pd.DataFrame:
    """Paired contrasts of the TIP-HIDE-WILD comparison, Holm over its own family.

    Args:
        per_deal: (P, condition) -> (deals (D,) int64 sorted, the subject's win share per deal (D,) float64,
            mean over its P rotations). The conditions of a P hold the same deals.
        confidence, margin_pp: as :func:`tip_effects`.

    Returns:
        one row per (P, contrast of :data:`HIDE_CONTRASTS`): ``players``, ``contrast``, ``win_a``, ``win_b``
        (the two conditions' win rates), ``win_diff`` (fraction, a - b), ``win_low``/``win_high``, ``p``,
        ``p_tost``, ``p_holm``, ``p_tost_holm``, ``deals``, ``half_width_pp``, ``verdict`` (``higher``,
        ``lower``, ``no effect within ±m``, ``inconclusive``).

    Raises:
        ValueError: two conditions of a table size with different deals.
    """
    rows = []
    for p in sorted({k[0] for k in per_deal}):
        for a, b, name in HIDE_CONTRASTS:
            if (p, a) not in per_deal or (p, b) not in per_deal:
                continue
            (da, wa), (db, wb) = per_deal[(p, a)], per_deal[(p, b)]
            if not np.array_equal(da, db):
                raise ValueError(f"TIP-HIDE-WILD at {p}p: conditions {a} and {b} played different deals")
            e = paired_effect(wa - wb, confidence, margin_pp / 100.0)
            rows.append({"players": p, "contrast": name, "win_a": float(wa.mean()), "win_b": float(wb.mean()),
                         "win_diff": e["value"], "win_se": e["se"], "win_low": e["low"], "win_high": e["high"],
                         "win_rule": e["rule"], "p": e["p"], "p_tost": e["p_tost"], "deals": int(da.size)})
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["p_holm"], out["p_tost_holm"] = holm(out["p"].to_numpy(np.float64)), holm(out["p_tost"].to_numpy(np.float64))
    alpha = 1.0 - confidence
    out["verdict"] = [verdict(e, a, b, False, alpha).replace("supported", "higher").replace("refuted", "lower")
                      for e, a, b in zip(out["win_diff"], out["p_holm"], out["p_tost_holm"])]
    out["half_width_pp"] = 100.0 * (out["win_high"] - out["win_low"]) / 2.0
    return out


# -- per-game columns of one cell -------------------------------------------------------------
def arm_columns(games: pd.DataFrame, exp: Experiment) -> dict[str, np.ndarray]:
    """Per game of an ablation cell: the arm (line-up) and the arm's seat outcome.

    The arm sits at line-up position 0, so in rotation r it holds seat r
    (:class:`~cya_sim.runs.experiment.Schedule`).

    Returns:
        dict of ``arm`` (G,) int32 (index into ``exp.design.arms``), ``deal`` (G,) int64,
        ``rotation`` (G,) int16, ``win`` (G,) float64 (the arm's win share, R-TIE),
        ``total`` (G,) float64 (dollars), ``outcome`` (G, P + 4) int64 (totals, rounds, turns,
        challenges, decisions: equal rows of a pair mean the same game result).
    """
    p = exp.players[0]
    rot = games["rotation"].to_numpy().astype(np.int64)
    share = np.stack([games[f"seat_{s}_win_share"].to_numpy(np.float64) for s in range(p)], axis=1)
    totals = np.stack([games[f"seat_{s}_total"].to_numpy(np.float64) for s in range(p)], axis=1)
    rows = np.arange(len(games))
    outcome = np.column_stack([totals.astype(np.int64)] + [games[k].to_numpy().astype(np.int64)
                                                           for k in ("rounds", "turns", "challenges", "decisions")])
    return {"arm": games["lineup"].to_numpy().astype(np.int32), "deal": games["deal"].to_numpy().astype(np.int64),
            "rotation": rot.astype(np.int16), "win": share[rows, rot], "total": totals[rows, rot],
            "outcome": outcome}


def _per_deal(cols: dict[str, np.ndarray], arm: int, deals: np.ndarray, key: str) -> np.ndarray:
    """(D,) float64 mean over the arm's rotations of ``key`` on each deal (deals in ``deals`` order)."""
    sel = cols["arm"] == arm
    d = cols["deal"][sel]
    pos = np.searchsorted(deals, d)
    s = np.bincount(pos, weights=cols[key][sel], minlength=deals.size)
    n = np.bincount(pos, minlength=deals.size)
    return s / np.maximum(n, 1)


def _paired_outcome_changes(cols: dict[str, np.ndarray], t: int, c: int) -> tuple[int, int]:
    """(pairs, pairs whose outcome differs) over every (deal, rotation) both arms played."""
    def keyed(a: int) -> dict[tuple[int, int], np.ndarray]:
        sel = np.flatnonzero(cols["arm"] == a)
        return {(int(cols["deal"][i]), int(cols["rotation"][i])): cols["outcome"][i] for i in sel}

    kt, kc = keyed(t), keyed(c)
    common = kt.keys() & kc.keys()
    return len(common), sum(1 for k in common if not np.array_equal(kt[k], kc[k]))


def _constant_bounds(value: float, n: int, confidence: float) -> tuple[float, float]:
    """Interval of a mean of per-deal differences in [-1, 1] when all ``n`` observed ones equal ``value``.

    The t interval is then of zero width and claims too much. The share of
    deals whose difference is not ``value`` has the exact upper confidence
    bound ``u = 1 - (alpha / 2) ** (1 / n)`` (Clopper–Pearson with no such deal;
    about 3.7/n at 95%, the "rule of three"), and each such deal moves the
    mean by at most 2, so the mean lies in ``value ± 2u``, clipped to [-1, 1].
    """
    u = 1.0 - ((1.0 - confidence) / 2.0) ** (1.0 / n)
    return max(-1.0, value - 2 * u), min(1.0, value + 2 * u)


#: Fewer deals than this with a non-zero difference: the exact rule of :func:`few_nonzero_bounds`, not Student t.
FEW_NONZERO_DEALS = 10


def few_nonzero_bounds(diffs: np.ndarray, confidence: float, margin: float) -> tuple[float, float, float, float]:
    """Interval and tests of a mean of per-deal differences in [-1, 1] when few deals differ from 0.

    With ``m`` of ``n`` deals non-zero the Student-t interval rests on those
    ``m`` values alone: with one (``m = 1``) its standard error equals the
    effect, and its width with it (half-widths of 0.008–0.16 pp with TOST
    p < 0.0001 in the tips study). The exact rule of the all-zero rows
    (:func:`_constant_bounds`) extends to it: with ``m+`` positive and ``m-``
    negative deals, ``P(D > 0)`` and ``P(D < 0)`` have the exact one-sided
    Clopper–Pearson upper bounds ``pi+`` and ``pi-`` (level ``alpha / 2``
    each, Clopper & Pearson 1934), and since ``|D| <= 1`` the mean lies in
    ``[-pi-, pi+]`` with probability at least ``1 - alpha``.

    The test of no difference inverts the same bound: its interval holds 0 at
    every level (each upper bound is positive), so ``p = 1``: fewer than
    :data:`FEW_NONZERO_DEALS` differing deals cannot show a direction. The
    TOST of ``|mean| < margin`` is exact: ``mean >= margin`` needs
    ``P(D > 0) >= margin``, so ``p = max(B(m+; n, margin), B(m-; n, margin))``
    with ``B`` the binomial distribution function (the dual of the
    Clopper–Pearson bound at ``1 - 2 alpha``).

    Args:
        diffs: (n,) float per-deal differences in [-1, 1]. confidence: two-sided level. margin: TOST margin
            (fraction).

    Returns:
        (low, high, p, p_tost).
    """
    n = int(diffs.size)
    alpha = 1.0 - confidence

    def upper(k: int) -> float:  # one-sided Clopper–Pearson upper bound of k successes in n at alpha / 2
        return 1.0 if k >= n else float(sps.beta.ppf(1.0 - alpha / 2, k + 1, n - k))

    m_pos, m_neg = int((diffs > 0).sum()), int((diffs < 0).sum())
    p_tost = max(float(sps.binom.cdf(m_pos, n, margin)), float(sps.binom.cdf(m_neg, n, margin)))
    return -upper(m_neg), upper(m_pos), 1.0, p_tost


def paired_effect(diffs: np.ndarray, confidence: float, margin: float) -> dict[str, float]:
    """Mean of per-deal differences (treatment minus control) with its interval, test and TOST.

    Student t on ``n - 1`` df (deal-clustered, :func:`cya_sim.reports.stats.ratio_estimate`)
    when at least :data:`FEW_NONZERO_DEALS` deals differ from 0 and the
    differences are not all equal; every deal alike: :func:`_constant_bounds`;
    fewer differing deals: :func:`few_nonzero_bounds`.

    Args:
        diffs: (n,) float per-deal differences (fractions in [-1, 1]). confidence: two-sided level.
        margin: TOST margin (fraction).

    Returns:
        dict ``value``, ``se``, ``low``, ``high``, ``p`` (two-sided), ``p_tost``, ``rule`` (``t``,
        ``constant`` or ``few non-zero deals``).
    """
    diffs = np.asarray(diffs, np.float64)
    n = int(diffs.size)
    e = ratio_estimate(diffs, 1.0, np.arange(n), confidence)
    se = e.se
    if np.isfinite(se) and se == 0:  # every deal gave the same difference: no spread to test with
        lo, hi = _constant_bounds(e.value, n, confidence)
        p_tost = 0.0 if max(abs(lo), abs(hi)) < margin else 1.0
        return {"value": e.value, "se": se, "low": lo, "high": hi, "p": float(e.value == 0), "p_tost": p_tost,
                "rule": "constant"}
    if int((diffs != 0).sum()) < FEW_NONZERO_DEALS:
        lo, hi, p, p_tost = few_nonzero_bounds(diffs, confidence, margin)
        return {"value": e.value, "se": se, "low": lo, "high": hi, "p": p, "p_tost": p_tost,
                "rule": "few non-zero deals"}
    p = float("nan") if not np.isfinite(se) else float(2 * sps.t.sf(abs(e.value) / se, n - 1))
    return {"value": e.value, "se": se, "low": e.low, "high": e.high, "p": p,
            "p_tost": tost_p(e.value, se, n - 1, margin), "rule": "t"}


def tost_p(effect: float, se: float, df: int, margin: float) -> float:
    """p-value of the TOST equivalence test of ``|effect| < margin`` (Schuirmann 1987).

    The larger of the two one-sided t-test p-values, ``H0: effect <= -margin``
    and ``H0: effect >= margin``, on ``df`` degrees of freedom. A zero standard
    error gives 0.0 when the effect lies strictly inside the margin, else 1.0.

    Args:
        effect, se, margin: in the same unit (win-rate fraction or dollars); df >= 1.

    Returns:
        float in [0, 1]; NaN when the effect or se is not finite or df < 1.
    """
    if not (np.isfinite(effect) and np.isfinite(se)) or df < 1:
        return float("nan")
    if se <= 0:
        return 0.0 if abs(effect) < margin else 1.0
    p_low = float(sps.t.sf((effect + margin) / se, df))
    p_high = float(sps.t.cdf((effect - margin) / se, df))
    return max(p_low, p_high)


def verdict(effect: float, p_holm: float, tost_holm: float, inert: bool, alpha: float = 0.05) -> str:
    """The verdict of one tip row (module docstring): one of :data:`VERDICTS`.

    Args:
        effect: win-rate difference, treatment minus control. p_holm: Holm-adjusted p of no difference.
        tost_holm: Holm-adjusted TOST p. inert: the switch changed no decision in the run.
        alpha: 1 - confidence.
    """
    if inert:
        return "inert"
    if np.isfinite(p_holm) and p_holm < alpha:
        return "supported" if effect > 0 else "refuted"
    if np.isfinite(tost_holm) and tost_holm < alpha:
        return "no effect within ±m"
    return "inconclusive"


def tip_effects(games: pd.DataFrame, exp: Experiment, confidence: float = 0.95, margin_pp: float = 0.5,
                log_changes: Mapping[str, tuple[int, int, int]] | None = None) -> pd.DataFrame:
    """Paired effects of every tip of one ablation cell (Holm and verdicts come later, :func:`finish`).

    Args:
        games: the cell's games (:func:`cya_sim.results.folder.load_games`). exp: its experiment.
        confidence: two-sided level. margin_pp: TOST margin, percentage points.
        log_changes: tip id -> (logged pairs, pairs whose action logs differ, logged decisions),
            from :func:`changed_decisions`.

    Returns:
        one row per tip: ``tip``, ``treatment``, ``control``, ``deals``, ``win_diff`` (fraction) with
        ``win_low``/``win_high``/``win_se``, ``win_treatment``, ``win_control``, ``total_diff`` (dollars)
        with ``total_low``/``total_high``, ``p`` (two-sided t test, deals - 1 df), ``p_tost``,
        ``pairs``, ``pairs_outcome_changed``, ``logged_pairs``, ``decisions_changed``, ``logged_decisions``.
    """
    cols = arm_columns(games, exp)
    arms = exp.design.arms
    deals = np.unique(cols["deal"])
    rows = []
    for tid, tr, co in exp.design.tips:
        t, c = arms.index(tr), arms.index(co)
        wt, wc = _per_deal(cols, t, deals, "win"), _per_deal(cols, c, deals, "win")
        dt = _per_deal(cols, t, deals, "total") - _per_deal(cols, c, deals, "total")
        e = paired_effect(wt - wc, confidence, margin_pp / 100.0)
        m_tot, lo_tot, hi_tot = mean_interval(dt, confidence)
        pairs, changed = _paired_outcome_changes(cols, t, c)
        lg = (log_changes or {}).get(tid, (0, 0, 0))
        rows.append({"tip": tid, "treatment": tr, "control": co, "deals": int(deals.size),
                     "win_treatment": float(wt.mean()), "win_control": float(wc.mean()),
                     "win_diff": e["value"], "win_se": e["se"], "win_low": e["low"], "win_high": e["high"],
                     "win_rule": e["rule"],
                     "total_diff": m_tot, "total_low": lo_tot, "total_high": hi_tot,
                     "p": e["p"], "p_tost": e["p_tost"],
                     "pairs": pairs, "pairs_outcome_changed": changed,
                     "logged_pairs": lg[0], "decisions_changed": lg[1], "logged_decisions": lg[2]})
    return pd.DataFrame(rows)


def finish(effects: pd.DataFrame, confidence: float = 0.95) -> pd.DataFrame:
    """Holm over the family (every non-inert row of the study) and the verdicts.

    A row is *inert* when no paired game's outcome differed and no logged
    paired game's actions differed (``pairs_outcome_changed == 0`` and
    ``decisions_changed == 0``); inert rows carry no test (p columns NaN).

    Returns:
        ``effects`` with ``inert``, ``p_holm``, ``p_tost_holm``, ``verdict`` and ``half_width_pp`` added.
    """
    df = effects.copy()
    df["inert"] = (df["pairs_outcome_changed"] == 0) & (df["decisions_changed"] == 0)
    p = np.where(df["inert"], np.nan, df["p"].to_numpy(np.float64))
    pt = np.where(df["inert"], np.nan, df["p_tost"].to_numpy(np.float64))
    df["p_holm"], df["p_tost_holm"] = holm(p), holm(pt)
    alpha = 1.0 - confidence
    df["verdict"] = [verdict(e, a, b, i, alpha) for e, a, b, i in
                     zip(df["win_diff"], df["p_holm"], df["p_tost_holm"], df["inert"])]
    df["half_width_pp"] = 100.0 * (df["win_high"] - df["win_low"]) / 2.0
    return df


# -- decisions changed: action logs of paired games -------------------------------------------
def logged_games(exp: Experiment, n_deals: int) -> dict[str, np.ndarray]:
    """The first ``n_deals`` deals of a cell replayed on the batched engine with action logs (every arm and rotation).

    The games are the run's own (same key, deals and seats; agents and engine
    are deterministic given the deal).

    Returns:
        :meth:`~cya_sim.runs.experiment.Schedule.games_of` columns plus ``actions`` (G, LOG_CAP) int16 and
        ``n_actions`` (G,) int32.

    Raises:
        RuntimeError: a game longer than :data:`LOG_CAP` actions.
    """
    from cya_sim.game.rng import root_key
    from cya_sim.play import get_play_games

    p = exp.players[0]
    g = Schedule.of(exp).games_of(0, min(exp.games, n_deals * len(exp.design.arms) * p))
    _table, state = get_play_games("batched")(exp.rules, list(exp.agents), g["seat_agent"], root_key(exp.seed),
                                              g["deal"], log_cap=LOG_CAP, return_state=True)
    return {**g, "actions": np.asarray(state.queue.log_actions), "n_actions": np.asarray(state.queue.log_len)}


def changed_decisions(exp: Experiment, logged: Mapping[str, np.ndarray]) -> dict[str, tuple[int, int, int]]:
    """Per tip: (paired games logged, paired games whose action logs differ, actions logged in those treatment games).

    Two paired games (same deal, same rotation) share every state until their
    first differing action, which is therefore a decision of the tip's seat
    that the switch changed; each differing pair counts one such decision.

    Args:
        exp: the cell. logged: :func:`logged_games`.
    """
    arms = exp.design.arms
    acts, lens = logged["actions"], logged["n_actions"]
    key = {(int(d), int(r), int(a)): i for i, (d, r, a) in
           enumerate(zip(logged["deal"], logged["rotation"], logged["lineup"]))}
    out = {}
    for tid, tr, co in exp.design.tips:
        t, c = arms.index(tr), arms.index(co)
        pairs = diff = decisions = 0
        for (d, r, a), i in key.items():
            if a != t or (d, r, c) not in key:
                continue
            j = key[(d, r, c)]
            pairs += 1
            decisions += int(lens[i])
            if lens[i] != lens[j] or not np.array_equal(acts[i, :lens[i]], acts[j, :lens[j]]):
                diff += 1
        out[tid] = (pairs, diff, decisions)
    return out


# -- per-round records on the reference engine ------------------------------------------------
def trace_rounds(exp: Experiment, logged: Mapping[str, np.ndarray], n_deals: int, arm: int = 0) -> pd.DataFrame:
    """Per-round records of the first ``n_deals`` logged deals, one arm in every rotation, replayed on the reference engine.

    Each logged game's actions are applied to the reference engine (R-* rules
    in :mod:`cya_sim.engine.classic.reference`; an action it refuses raises, so the
    replay also checks the batched engine game by game). At every round's end
    (R-ROUND-END, R-SCORE): each seat's round score, the largest set in any
    stack and the seat holding it, and the dollars in play (stacks + discard
    pile + draw pile + hands + leftover draft-pile cards, R-2P-DRAFT/R-3P-DRAFT)
    against the deck's value (:meth:`~cya_sim.game.rules.RuleSet.round_total`: under the drafts without the
    removed cards, under ``advanced`` with the Penny Jars at their stated value and the action cards at $0).

    Returns:
        one row per (game, round): ``deal``, ``rotation``, ``players``, ``round``, ``scored`` (dollars, sum
        of the round's scores), ``in_play`` (dollars, draft piles included), ``deck_value`` (dollars), ``invariant_ok`` (bool:
        ``in_play == deck_value`` and each score equals its stack's value), ``largest_set`` (dollars),
        ``largest_holder`` (seat, -1 when shared), ``holder_won`` (float, the holder's win share of the game),
        ``game_rounds``, ``scores`` (list of dollars per seat).

    Raises:
        IllegalActionError: a logged action the reference engine refuses.
        RuntimeError: the replay's final totals differ from the logged game's.
    """
    from cya_sim.engine.classic.reference.setup import new_game
    from cya_sim.engine.classic.reference.step import apply_action
    from cya_sim.game.rng import root_key

    p = exp.players[0]
    key = root_key(exp.seed)
    values = np.asarray(exp.rules.deck.values, np.int64)
    deck_value = exp.rules.round_total(p)
    first = np.unique(logged["deal"])[:n_deals]
    rows = []
    for i in np.flatnonzero((logged["lineup"] == arm) & np.isin(logged["deal"], first)):
        deal, rot = int(logged["deal"][i]), int(logged["rotation"][i])
        state = new_game(exp.rules, p, key, deal)
        game_rows = []
        for a in logged["actions"][i, : logged["n_actions"][i]]:
            stacks, discard, draw, hands = state.stacks, state.discard_pile, state.draw_pile, state.hands
            piles = state.draft_piles
            n_rounds = len(state.round_scores)
            apply_action(state, int(a))
            if len(state.round_scores) > n_rounds:  # the round just scored; stacks as they were scored
                scores = [int(x) for x in state.round_scores[-1]]
                sets = [(int(sum(values[c] for c in cs.cards)), seat) for seat, st in enumerate(stacks) for cs in st]
                stack_vals = [int(sum(v for v, o in sets if o == seat)) for seat in range(p)]
                big = max((v for v, _ in sets), default=0)
                holders = sorted({o for v, o in sets if v == big}) if sets else []
                in_play = (sum(stack_vals) + int(sum(values[c] for c in discard)) + int(sum(values[c] for c in draw))
                           + int(sum(int(n) * int(values[t]) for h in hands for t, n in enumerate(h)))
                           + int(sum(values[c] for pile in piles for c in pile)))
                game_rows.append({"deal": deal, "rotation": rot, "players": p, "round": n_rounds + 1,
                                  "scored": int(sum(scores)), "in_play": in_play, "deck_value": deck_value,
                                  "invariant_ok": in_play == deck_value and stack_vals == scores,
                                  "largest_set": big, "largest_holder": holders[0] if len(holders) == 1 else -1,
                                  "scores": scores})
        if state.winners is None:
            raise RuntimeError(f"replay of deal {deal} rotation {rot} did not finish the game")
        shares = [1.0 / len(state.winners) if s in state.winners else 0.0 for s in range(p)]
        for r in game_rows:
            r["holder_won"] = shares[r["largest_holder"]] if r["largest_holder"] >= 0 else float("nan")
            r["game_rounds"] = len(game_rows)
        rows += game_rows
    return pd.DataFrame(rows)


# -- the whole study ---------------------------------------------------------------------------
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
            ``this_run_s``, ``log_s`` (the logged replays), ``trace_s`` (the reference replays).
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


def rounds_table(games: pd.DataFrame, confidence: float = 0.95) -> dict[str, float]:
    """FACT-ROUNDS of one cell: ``games``, ``mean_rounds``, ``in_3_5``, ``in_4_5`` (with deal-clustered Wilson
    intervals ``*_low``/``*_high`` when ``games`` has a ``deal`` column) and ``r1``..``r8plus`` fractions."""
    r = games["rounds"].to_numpy()
    out: dict[str, float] = {"games": int(r.size), "mean_rounds": float(r.mean()),
                             "in_3_5": float(((r >= 3) & (r <= 5)).mean()), "in_4_5": float(((r >= 4) & (r <= 5)).mean())}
    if "deal" in games:
        for k, lo in (("in_3_5", 3), ("in_4_5", 4)):
            e = ratio_estimate(((r >= lo) & (r <= 5)).astype(np.float64), 1.0, games["deal"].to_numpy(), confidence,
                               proportion=True)
            out[f"{k}_low"], out[f"{k}_high"] = e.low, e.high
    for k in range(1, 8):
        out[f"r{k}"] = float((r == k).mean())
    out["r8plus"] = float((r >= 8).mean())
    return out


def big_pot_table(trace: pd.DataFrame, p: int, confidence: float = 0.95) -> dict[str, float]:
    """TIP-BIG-POT of one cell's round records: P(win | held the largest set at a round's end) vs 1/P.

    Units are deals (every game of a deal shares its cards); round ends where
    the largest set was shared are left out (counted in ``shared``).
    """
    one = trace[trace["largest_holder"] >= 0]
    e = ratio_estimate(one["holder_won"], 1.0, one["deal"], confidence, proportion=True)
    last = one[one["round"] == one["game_rounds"]]
    e2 = ratio_estimate(last["holder_won"], 1.0, last["deal"], confidence, proportion=True)
    return {"round_ends": len(one), "shared": int((trace["largest_holder"] < 0).sum()),
            "p_win_held": e.value, "low": e.low, "high": e.high, "base_rate": 1.0 / p,
            "last_round_ends": len(last), "p_win_held_last": e2.value, "low_last": e2.low, "high_last": e2.high}


# -- verdicts of the measured claims (FACT-1360, FACT-ROUNDS, TIP-BIG-POT) ------------------------------
def _sizes(ps) -> str:
    """``2``, ``2 and 3``, ``4–6``: table sizes in words."""
    ps = sorted({int(p) for p in ps})
    if len(ps) > 2 and ps == list(range(ps[0], ps[-1] + 1)):
        return f"{ps[0]}–{ps[-1]}"
    return " and ".join(map(str, ps)) if len(ps) <= 2 else ", ".join(map(str, ps[:-1])) + f" and {ps[-1]}"


def fact_1360_verdict(fact: pd.DataFrame) -> str:
    """Whether FACT-1360 holds in the stored rounds, in words: ``holds``, ``holds only ...`` or ``does not hold``.

    The claim (TIPS.md, seed 001): at most $1,360,000 can be scored in one
    round, less the discard pile. Checked per stored round (:func:`trace_rounds`):
    the invariant (stacks + discard + draw pile + hands (+ leftover draft
    cards) = the deck in play) and the largest round score.
    """
    failures = int(fact["invariant_failures"].sum())
    checked = int(fact["rounds_checked"].sum())
    if failures:
        where = fact[fact["invariant_failures"] > 0]
        return (f"does not hold: {failures} of {checked:,} stored rounds break the round invariant ("
                + ", ".join(f"{x.preset}/{x.field}/{x.players}p" for x in where.itertuples()) + ")")
    over = fact[fact["over_1360000"] > 0]
    if len(over):
        ok = sorted(set(fact["preset"]) - set(over["preset"]))
        return (f"holds only for decks worth at most $1,360,000 a round{' (' + ', '.join(ok) + ')' if ok else ''}: "
                f"{int(over['over_1360000'].sum()):,} rounds under {', '.join(sorted(set(over['preset'])))} scored "
                f"more, up to ${int(over['max_scored'].max()):,} (the deck in play there is "
                f"${int(over['deck_value'].max()):,}); every round's total equals the deck in play ({checked:,} "
                "rounds, no failure)")
    return (f"holds: {checked:,} stored rounds, none scored more than $1,360,000 (largest "
            f"${int(fact['max_scored'].max()):,}), every round's total equals the deck in play")


def fact_rounds_verdict(rounds: pd.DataFrame) -> str:
    """Whether FACT-ROUNDS holds, in words: a game *usually* (in more than half of the games) lasts 3–5 rounds
    (seed 002) or 4–5 (seed 000).

    A context counts as holding when the deal-clustered 95% interval of the
    share lies above 50% (the point estimate when a stored table has no
    interval), as not holding when it lies below; the claim is then stated per
    table size over every preset and field.
    """
    parts = []
    for k, label in (("in_3_5", "3–5 rounds (seed 002)"), ("in_4_5", "4–5 rounds (seed 000)")):
        lo = rounds[f"{k}_low"] if f"{k}_low" in rounds else rounds[k]
        hi = rounds[f"{k}_high"] if f"{k}_high" in rounds else rounds[k]
        groups: dict[str, list[int]] = {"yes": [], "mixed": [], "no": []}
        for p, g in rounds.groupby("players"):
            yes, no = (lo[g.index] > 0.5).all(), (hi[g.index] < 0.5).all()
            groups["yes" if yes else "no" if no else "mixed"].append(int(p))

        def share(sizes: list[int], k: str = k) -> str:
            d = rounds[rounds["players"].isin(sizes)][k]
            return f"{100 * d.min():.1f}–{100 * d.max():.1f} % of games"

        if not groups["mixed"] and not groups["no"]:
            parts.append(f"{label}: holds ({share(groups['yes'])})")
        elif not groups["mixed"] and not groups["yes"]:
            parts.append(f"{label}: does not hold ({share(groups['no'])})")
        else:
            text = []
            if groups["yes"]:
                text.append(f"holds only at {_sizes(groups['yes'])} players ({share(groups['yes'])})")
            if groups["mixed"]:
                text.append(("" if groups["yes"] else "holds only ") + f"in some contexts at {_sizes(groups['mixed'])} "
                            f"players ({share(groups['mixed'])})")
            if groups["no"]:
                text.append(f"not at {_sizes(groups['no'])} ({share(groups['no'])})")
            parts.append(f"{label}: " + "; ".join(text))
    return "; ".join(parts)


def big_pot_verdict(big_pot: pd.DataFrame) -> str:
    """Whether TIP-BIG-POT holds, in words: holding the largest set at a round's end goes with a chance of winning
    the game above the base rate 1/P (deal-clustered 95% interval above it).
    """
    above = big_pot[big_pot["low"] > big_pot["base_rate"]]
    below = big_pot[big_pot["high"] < big_pot["base_rate"]]
    rng = (f"P(win | held the largest set) {100 * big_pot['p_win_held'].min():.1f}–"
           f"{100 * big_pot['p_win_held'].max():.1f} % against 1/P = {100 * big_pot['base_rate'].min():.1f}–"
           f"{100 * big_pot['base_rate'].max():.1f} %")
    n = len(big_pot)
    if len(above) == n:
        return f"holds: above the base rate in all {n} contexts ({rng})"
    if len(below) == n:
        return f"does not hold: below the base rate in all {n} contexts ({rng})"
    if not len(above):
        return f"not shown: no context's interval lies above the base rate ({rng})"
    rest = big_pot[~big_pot.index.isin(above.index)]
    return (f"holds only in {len(above)} of {n} contexts ({rng}); not shown at "
            + ", ".join(f"{x.preset}/{x.field}/{x.players}p" for x in rest.itertuples())
            + " (interval includes 1/P)" + (f"; below it at {len(below)}" if len(below) else ""))


def cell_complete(exp: Experiment) -> bool:
    """Whether a cell's results folder holds every planned chunk, each as recorded (:func:`cya_sim.results.folder.check_chunks`)."""
    from cya_sim.results.folder import FolderError, check_chunks, plan_of, read_manifest

    try:
        ranges = plan_of(read_manifest(exp.out))
    except FolderError:
        return False
    return len(check_chunks(exp.out, ranges).good) == len(ranges)


def run_study(study: Study, progress: bool = True, command: str | None = None, play: bool = True) -> StudyResult:
    """Play every cell (resuming finished chunks), replay the logged and traced samples, analyse, write the report.

    Args:
        study: the study. progress: progress bars. command: recorded in the runs and REPORT.md.
        play: False analyses only the cells already complete on disk and plays nothing; the report
            then names the missing cells (``StudyResult.missing``).

    Returns:
        the :class:`StudyResult` (also written: ``verdicts.csv``, ``rounds.csv``, ``big_pot.csv``,
        ``fact_1360.csv``, ``rounds.parquet``, ``forest.png``, ``heatmap.png``, ``REPORT.md`` in ``study.out``).

    Raises:
        ExperimentError: a cell's folder is refused (named). Errors of the engines propagate; a rerun resumes.
    """
    from cya_sim.results.folder import load_games, read_runs
    from cya_sim.runs.runner import run_experiment

    study.out.mkdir(parents=True, exist_ok=True)
    effects, rounds, bigpot, facts, traces, timings, missing = [], [], [], [], [], [], []
    for cell in study.cells():
        exp = study.experiment(*cell)
        if play:
            elapsed = run_experiment(exp, progress=progress, command=command).elapsed_s
        elif cell_complete(exp):
            elapsed = 0.0
        else:
            missing.append(study.cell_name(*cell))
            continue
        games = load_games(exp.out)
        t0 = time.perf_counter()
        logged = logged_games(exp, study.log_deals)
        logs = changed_decisions(exp, logged)
        t1 = time.perf_counter()
        tab = tip_effects(games, exp, study.confidence, study.margin_pp, logs)
        ctx = {"preset": cell[0], "field": cell[1], "players": cell[2]}
        effects.append(tab.assign(**ctx))
        rounds.append({**ctx, **rounds_table(games, study.confidence)})
        tr = trace_rounds(exp, logged, study.trace_deals)
        t2 = time.perf_counter()
        del logged
        traces.append(tr.assign(preset=cell[0], field=cell[1]))
        bigpot.append({**ctx, **big_pot_table(tr, cell[2], study.confidence)})
        facts.append({**ctx, "rounds_checked": len(tr), "invariant_failures": int((~tr["invariant_ok"]).sum()),
                      "max_scored": int(tr["scored"].max()), "deck_value": int(tr["deck_value"].iloc[0]),
                      "over_1360000": int((tr["scored"] > FACT_1360).sum())})
        runs = [r for r in read_runs(exp.out) if r.get("status") == "finished"]
        timings.append({**ctx, "games": int(exp.games), "play_s": float(sum(r.get("elapsed_s") or 0 for r in runs)),
                        "this_run_s": float(elapsed), "log_s": t1 - t0, "trace_s": t2 - t1})
        del games
    if not effects:
        raise ExperimentError("out", f"no complete cell in {str(study.out)!r}; run `cya-sim tips` without --report-only")
    per_deal, hide_time = {}, {}
    for p, j, hexp in hide_experiments(study):
        if play:
            elapsed = run_experiment(hexp, progress=progress, command=command).elapsed_s
        elif not cell_complete(hexp):
            missing.append(f"hide-{p}p-c{j}")
            continue
        cols = arm_columns(load_games(hexp.out), hexp)
        deals = np.unique(cols["deal"])
        per_deal[(p, j)] = (deals, _per_deal(cols, 0, deals, "win"))
        runs = [r for r in read_runs(hexp.out) if r.get("status") == "finished"]
        g0, s0 = hide_time.get(p, (0, 0.0))
        hide_time[p] = (g0 + int(hexp.games), s0 + float(sum(r.get("elapsed_s") or 0 for r in runs)))
    tr_all = pd.concat(traces, ignore_index=True)
    pooled = []
    for p, sub in tr_all.groupby("players"):
        unit = (sub["preset"] + "|" + sub["field"] + "|" + sub["deal"].astype(str)).to_numpy()
        one = sub["largest_holder"].to_numpy() >= 0
        e = ratio_estimate(sub["holder_won"].to_numpy()[one], 1.0, unit[one], study.confidence, proportion=True)
        last = one & (sub["round"] == sub["game_rounds"]).to_numpy()
        e2 = ratio_estimate(sub["holder_won"].to_numpy()[last], 1.0, unit[last], study.confidence, proportion=True)
        pooled.append({"players": int(p), "units": int(np.unique(unit).size), "round_ends": int(one.sum()),
                       "p_win_held": e.value, "low": e.low, "high": e.high, "base_rate": 1.0 / int(p),
                       "last_round_ends": int(last.sum()), "p_win_held_last": e2.value, "low_last": e2.low,
                       "high_last": e2.high})
    hide = hide_effects(per_deal, study.confidence, study.margin_pp)
    if len(hide):
        hide["games"] = [hide_time[p][0] for p in hide["players"]]
        hide["play_s"] = [hide_time[p][1] for p in hide["players"]]
    result = StudyResult(finish(pd.concat(effects, ignore_index=True), study.confidence), pd.DataFrame(rounds),
                         pd.DataFrame(bigpot), pd.DataFrame(facts), pd.DataFrame(timings), tuple(missing),
                         hide=hide,
                         plan=plan_deals(study) if study.pilot and study.target_half_width_pp else pd.DataFrame(),
                         big_pot_pooled=pd.DataFrame(pooled))
    tr_all.to_parquet(study.out / "rounds.parquet")
    write_report(study, result, command)
    return result


def load_result(folder: str | Path) -> StudyResult:
    """The tables of a finished study folder (``verdicts.csv`` and the others; notebooks use it).

    Raises:
        FileNotFoundError: the folder holds no ``verdicts.csv`` (run ``cya-sim tips`` first).
    """
    f = Path(folder)
    if not (f / "verdicts.csv").exists():
        raise FileNotFoundError(f"{str(f)!r} holds no verdicts.csv; run `cya-sim tips` into it first")
    read = {k: pd.read_csv(f / f"{k}.csv") for k in ("verdicts", "rounds", "big_pot", "fact_1360", "timings")}
    for k in ("hide", "plan", "big_pot_pooled"):
        if (f / f"{k}.csv").exists():
            read[k] = pd.read_csv(f / f"{k}.csv")
    return StudyResult(**read)


# -- plots and report --------------------------------------------------------------------------
#: Colour of each verdict in the forest plot and the heat map's legend.
VERDICT_COLOURS = {"supported": "#1B7837", "refuted": "#B2182B", "no effect within ±m": "#2166AC",
                   "inconclusive": "#8C8C8C", "inert": "black"}


def _context_label(preset: str, fld: str, players: int) -> str:
    return f"{preset} · vs {fld} · {int(players)}p"


def _range_text(values, every: bool = False) -> str:
    """``1,078–8,924`` (the smallest and largest); with ``every``, ``2–6`` only when no value between is missing,
    else each value (``2, 4``)."""
    v = sorted({int(x) for x in values})
    if len(v) == 1:
        return f"{v[0]:,}"
    if every and v != list(range(v[0], v[-1] + 1)):
        return ", ".join(f"{x:,}" for x in v)
    return f"{v[0]:,}–{v[-1]:,}"


def forest_figure(verdicts: pd.DataFrame, margin_pp: float, columns: int = 4):
    """Forest plot of the win-rate effects: one panel per tip, one row per context, readable at 400+ rows.

    Each panel is one tip (or AA-CHECK / TIP-HIDE-WILD row family); its rows are the
    contexts (preset, field, table size), the same rows in the same order in every
    panel, named once at the left of each row of panels. A point is the paired
    treatment-minus-control difference in win rate, in percentage points, with its
    95% deal-clustered interval (``win_low``, ``win_high``) as whiskers, coloured by
    verdict (:data:`VERDICT_COLOURS`); an **inert** row (the switch changed no
    decision, so the difference is exactly 0 by construction) is a cross without
    whiskers. The shaded band is the equivalence margin ±``margin_pp`` (TOST,
    Schuirmann 1987). Each panel has its own x range, so a tip with effects of
    ±0.3 pp is as readable as one with ±10 pp. The title carries the presets, fields,
    table sizes and deals per context.

    Args:
        verdicts: ``verdicts.csv`` (tip, preset, field, players, win_diff, win_low, win_high, inert,
            verdict, deals); proportions in [0, 1].
        margin_pp: the equivalence margin in percentage points (> 0).
        columns: panels per row of the figure.

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.

    Raises:
        ValueError: ``verdicts`` has no row.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    v = verdicts.reset_index(drop=True)
    if not len(v):
        raise ValueError("the verdict table has no row to plot")
    tips = list(dict.fromkeys(v["tip"]))
    contexts = list(dict.fromkeys(zip(v["preset"], v["field"], v["players"].astype(int))))
    row_of = {c: i for i, c in enumerate(contexts)}
    n_ctx = len(contexts)
    ncols = max(1, min(columns, len(tips)))
    nrows = math.ceil(len(tips) / ncols)
    panel_h = 0.15 * n_ctx + 0.75
    left_in = 0.25 + 0.052 * max(len(_context_label(*ctx)) for ctx in contexts)  # the row labels at 6.5 pt
    fig = Figure(figsize=(left_in + 3.3 * ncols, panel_h * nrows + 1.5), dpi=110)
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(nrows, ncols, left=left_in / fig.get_figwidth(), right=0.99, bottom=0.35 / fig.get_figheight(),
                            top=1 - 1.35 / fig.get_figheight(), hspace=0.9 / panel_h, wspace=0.12)
    y_all = np.arange(n_ctx)[::-1]
    first_ax = None
    for k, tip in enumerate(tips):
        r, c = divmod(k, ncols)
        ax = fig.add_subplot(grid[r, c], sharey=first_ax)
        first_ax = first_ax or ax
        sub = v[v["tip"] == tip]
        y = y_all[[row_of[(a, b, int(p))] for a, b, p in zip(sub["preset"], sub["field"], sub["players"])]]
        ax.axvspan(-margin_pp, margin_pp, color="#2166AC", alpha=0.10, lw=0)
        ax.axvline(0, color="black", lw=0.6)
        inert = sub["inert"].astype(bool).to_numpy()
        diff = 100 * sub["win_diff"].to_numpy(float)
        lo = 100 * sub["win_low"].to_numpy(float)
        hi = 100 * sub["win_high"].to_numpy(float)
        for verd, colour in VERDICT_COLOURS.items():
            m = (sub["verdict"].to_numpy() == verd) & ~inert
            if m.any():
                ax.errorbar(diff[m], y[m], xerr=[np.clip(diff[m] - lo[m], 0, None), np.clip(hi[m] - diff[m], 0, None)],
                            fmt="o", ms=3.2, lw=1.1, capsize=0, color=colour)
        if inert.any():
            ax.plot(diff[inert], y[inert], "x", ms=4, color=VERDICT_COLOURS["inert"])
        span = np.concatenate([lo[~inert], hi[~inert], [-margin_pp, margin_pp]])
        span = span[np.isfinite(span)]
        pad = 0.08 * (span.max() - span.min())
        ax.set_xlim(span.min() - pad, span.max() + pad)
        for i in range(1, n_ctx):  # a light rule between presets
            if contexts[i][0] != contexts[i - 1][0]:
                ax.axhline(y_all[i] + 0.5, color="0.75", lw=0.6)
        ax.set_title(tip, fontsize=8.5)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(axis="x", color="0.92")
        if c == 0:
            ax.set_yticks(y_all, [_context_label(*ctx) for ctx in contexts], fontsize=6.5)
        else:
            ax.tick_params(axis="y", labelleft=False)
        if r == nrows - 1 or k + ncols >= len(tips):
            ax.set_xlabel("win rate effect (pp)", fontsize=7.5)
    first_ax.set_ylim(-0.7, n_ctx - 0.3)
    handles = [Line2D([], [], marker="o", ls="-", color=VERDICT_COLOURS[k], ms=4, label=k)
               for k in VERDICT_COLOURS if k != "inert"]
    handles += [Line2D([], [], marker="x", ls="none", color="black", ms=5,
                       label="inert: the switch changed no decision (no interval drawn)"),
                Patch(color="#2166AC", alpha=0.15, label=f"equivalence margin ±{margin_pp:g} pp")]
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, 1 - 0.6 / fig.get_figheight()))
    fig.suptitle("Tip study: win rate, treatment minus control (percentage points), 95% deal-clustered intervals\n"
                 f"presets {', '.join(dict.fromkeys(v['preset']))}; against P−1 {' or '.join(dict.fromkeys(v['field']))}; "
                 f"{_range_text(v['players'], every=True)} players; {_range_text(v['deals'])} duplicated deals per context",
                 fontsize=9.5, y=1 - 0.12 / fig.get_figheight(), va="top")
    return fig


def heatmap_figure(verdicts: pd.DataFrame):
    """Heat map of the win-rate effect (pp) by tip (rows) and table size (columns), averaged over presets and fields.

    Args:
        verdicts: ``verdicts.csv`` (tip, players, win_diff; proportions in [0, 1]).

    Returns:
        a matplotlib ``Figure`` on an Agg canvas.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    m = verdicts.pivot_table(index="tip", columns="players", values="win_diff", aggfunc="mean", sort=False) * 100
    fig = Figure(figsize=(1.0 * m.shape[1] + 5.2, 0.4 * m.shape[0] + 1.7), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    lim = float(np.nanmax(np.abs(m.to_numpy()))) if m.size else 1.0
    im = ax.imshow(m.to_numpy(), cmap="RdBu", vmin=-max(lim, 0.5), vmax=max(lim, 0.5), aspect="auto")
    ax.set_xticks(range(m.shape[1]), [f"{c} players" for c in m.columns], fontsize=8)
    ax.set_yticks(range(m.shape[0]), m.index, fontsize=8)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            val = m.iat[i, j]
            if np.isfinite(val):
                ax.text(j, i, f"{val:+.1f}", ha="center", va="center", fontsize=7,
                        color="white" if abs(val) > 0.6 * max(lim, 0.5) else "black")
    fig.colorbar(im, ax=ax, label="win rate effect (pp)")
    ax.set_title(f"Mean win-rate effect (pp) over presets {', '.join(dict.fromkeys(verdicts['preset']))} and fields",
                 fontsize=9)
    fig.tight_layout()
    return fig


def _pp(x: float) -> str:
    return "—" if not np.isfinite(x) else f"{100 * x:+.2f}"


def _pv(x: float) -> str:
    return "—" if not np.isfinite(x) else ("<0.0001" if x < 1e-4 else f"{x:.4f}")


def verdict_markdown(study: Study, r: StudyResult) -> str:
    """The verdict table (one row per tip x context) and the rows of entries without a verdict, as Markdown."""
    v = r.verdicts
    lines = [("| tip | preset | field | P | win rate effect (pp) [95% CI] | total effect ($) [95% CI] | p (Holm) "
             "| TOST p (Holm) | decisions changed | verdict |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for x in v.itertuples():
        ch = (f"{x.decisions_changed} of {x.logged_pairs} logged pairs; outcome differs in "
              f"{x.pairs_outcome_changed:,} of {x.pairs:,}")
        lines.append(f"| {x.tip} | {x.preset} | {x.field} | {x.players} | {_pp(x.win_diff)} [{_pp(x.win_low)}, "
                     f"{_pp(x.win_high)}] | {x.total_diff:+,.0f} [{x.total_low:+,.0f}, {x.total_high:+,.0f}] | "
                     f"{_pv(x.p_holm)} | {_pv(x.p_tost_holm)} | {ch} | {x.verdict} |")
    return "\n".join(lines)


def summary_markdown(study: Study, r: StudyResult) -> str:
    """One row per tip over every context: verdict counts, effect range, largest half-width."""
    v = r.verdicts
    lines = ["| tip | treatment | control | verdicts over the contexts | win-rate effect range (pp) |",
             "|---|---|---|---|---|"]
    for tid, sub in v.groupby("tip", sort=False):
        counts = ", ".join(f"{k} {n}" for k, n in sub["verdict"].value_counts().items())
        lines.append(f"| {tid} | `{sub['treatment'].iloc[0]}` | `{sub['control'].iloc[0]}` | {counts} | "
                     f"{_pp(sub['win_diff'].min())} to {_pp(sub['win_diff'].max())} |")
    for tid, why in study.reasons:
        lines.append(f"| {tid} | — | — | no verdict row: {why} | — |")
    lines.append(f"| TIP-BIG-POT | (measurement) | | {big_pot_verdict(r.big_pot)} (table below) | — |")
    lines.append(f"| FACT-1360 | (invariant) | | {fact_1360_verdict(r.fact_1360)} (table below) | — |")
    ro = r.rounds
    lines.append(f"| FACT-ROUNDS | (distribution) | | {fact_rounds_verdict(ro)}; mean rounds per game "
                 f"{ro['mean_rounds'].min():.2f}–{ro['mean_rounds'].max():.2f} (table below) | — |")
    return "\n".join(lines)


def write_report(study: Study, r: StudyResult, command: str | None = None) -> Path:
    """Write the CSV tables, ``forest.png``, ``heatmap.png`` and ``REPORT.md`` into ``study.out``.

    Returns:
        the path of REPORT.md.
    """
    out = study.out
    for k in ("verdicts", "rounds", "big_pot", "fact_1360", "timings", "hide", "plan", "big_pot_pooled"):
        if k in ("verdicts", "rounds", "big_pot", "fact_1360", "timings") or len(getattr(r, k)):
            getattr(r, k).to_csv(out / f"{k}.csv", index=False)
    forest_figure(r.verdicts, study.margin_pp).savefig(out / "forest.png", dpi=110)
    heatmap_figure(r.verdicts).savefig(out / "heatmap.png", dpi=110)
    v = r.verdicts
    hw = v.loc[~v["inert"], "half_width_pp"]
    t = r.timings
    games = int(t["games"].sum()) if len(t) else 0
    hide_games = int(r.hide.drop_duplicates("players")["games"].sum()) if len(r.hide) else 0
    hide_s = float(r.hide.drop_duplicates("players")["play_s"].sum()) if len(r.hide) else 0.0
    cnt = v["verdict"].value_counts()
    md = [f"# Tip study `{study.name}`" + (" (quick form)" if study.quick else ""), "",
          f"Command: `{command or 'cya-sim tips ' + str(study.source)}`", "",
          (f"{len(study.tips)} ablations x {len(study.cells())} contexts (table sizes "
          f"{', '.join(map(str, study.players))}; presets {', '.join(study.presets)}"
          + ("".join(f" ({pr} at {', '.join(map(str, s))} players only)" for pr, s in study.players_by_preset.items()))
          + "; fields "
          f"{', '.join(f'P-1 {f}' for f in study.fields)}). Each context plays "
          + (f"the deals planned from the pilot (two-stage allocation, table below; {min(study.planned.values()):,}"
             f"–{max(study.planned.values()):,} duplicated deals per context)" if study.planned else
             ", ".join(f"{d:,} duplicated deals at {p}p" for p, d in zip(study.players, study.deals)))
          + f", every arm ({len(study.arms)} arms) in every rotation (deals x {len(study.arms)} x P games per "
          f"context): {games:,} games in all, seed {study.seed}"
          + (f"; and {hide_games:,} games of the TIP-HIDE-WILD comparison" if hide_games else "") + ". "
          f"Play time (sum over contexts of the runs' wall time): {t['play_s'].sum() + hide_s:,.0f} s.")
          + (f" **Not analysed (cells not complete on disk): {', '.join(r.missing)}.**" if r.missing else ""), "",
          f"Effects are treatment minus control, paired on deals (the sampling unit), with 95% Student-t "
          f"intervals on deals - 1 df; p is the two-sided t test of no difference, TOST p the equivalence test "
          f"of |effect| < {study.margin_pp:g} pp (Schuirmann 1987); both Holm-adjusted over the family of "
          f"{int((~v['inert']).sum())} non-inert tip x context rows. Verdicts: " +
          ", ".join(f"{k} {cnt.get(k, 0)}" for k in VERDICTS) + ".", "",
          f"Win-rate interval half-widths (non-inert rows): median {hw.median():.2f} pp, largest "
          f"{hw.max():.2f} pp" + ("" if study.target_half_width_pp is None else
                                  f" (target <= {study.target_half_width_pp:g} pp: met in every row)"
                                  if len(hw) and hw.max() <= study.target_half_width_pp else
                                  f" (target <= {study.target_half_width_pp:g} pp: NOT met in "
                                  f"{int((hw > study.target_half_width_pp).sum())} rows: "
                                  + ", ".join(f"{x.tip} {x.preset} {x.field} {x.players}p {x.half_width_pp:.2f}"
                                              for x in v[~v["inert"] & (v["half_width_pp"]
                                                                        > study.target_half_width_pp)].itertuples())
                                  + ")") + ".", "",
          ("*Decisions changed*: paired games (same deal, same rotation) of the first "
          f"{study.log_deals} deals replayed with action logs whose logs differ — each has one decision "
          "the switch changed, at the first divergence; and, over all games, paired games whose outcome differs. "
          "A row with both zero is *inert* and carries no test."), "",
          "## Summary per tip", "", summary_markdown(study, r), "",
          "![forest plot](forest.png)", "", "![heat map](heatmap.png)", "",
          "## Verdict table", "", verdict_markdown(study, r), "",
          "## TIP-BIG-POT", "",
          ("Per context, the first arm's games of the first "
          f"{study.trace_deals} deals replayed on the reference engine; each round end with a single holder of "
          "the largest set; P(win) is the holder's win share of the game, deal-clustered Wilson interval."), "",
          f"**Verdict:** {big_pot_verdict(r.big_pot)}.", "",
          ("| preset | field | P | round ends | P(win \\| held largest) [95% CI] | base rate | at the last round "
          "[95% CI] |"), "|---|---|---|---|---|---|---|"]
    for x in r.big_pot.itertuples():
        md.append(f"| {x.preset} | {x.field} | {x.players} | {x.round_ends} | {100 * x.p_win_held:.1f} % "
                  f"[{100 * x.low:.1f}, {100 * x.high:.1f}] | {100 * x.base_rate:.1f} % | "
                  f"{100 * x.p_win_held_last:.1f} % [{100 * x.low_last:.1f}, {100 * x.high_last:.1f}] |")
    if len(r.big_pot_pooled):
        md += ["", ("Pooled per table size over every preset and field (units: context x deal, Wilson interval on "
                    "the effective sample size):"), "",
               ("| P | units | round ends | P(win \\| held largest) [95% CI] | base rate | at the last round [95% CI] |"),
               "|---|---|---|---|---|---|"]
        for x in r.big_pot_pooled.itertuples():
            md.append(f"| {x.players} | {x.units:,} | {x.round_ends:,} | {100 * x.p_win_held:.1f} % "
                      f"[{100 * x.low:.1f}, {100 * x.high:.1f}] | {100 * x.base_rate:.1f} % | "
                      f"{100 * x.p_win_held_last:.1f} % [{100 * x.low_last:.1f}, {100 * x.high_last:.1f}] |")
    if len(r.hide):
        h = study.hide_wild or {}
        md += ["", "## TIP-HIDE-WILD: hiding against revealing against inferring opponents", "",
               ("The rules leave a player no choice to reveal a wild: under R-HIDDEN-WILD a set laid from the hand "
                "always shows only its top asset, and `hidden_wilds` is a rule option for the whole table, not a "
                "player's decision. So the tip is tested two ways. (1) The opponent switch, a verdict row in every "
                "context (TIP-HIDE-WILD:infer): `card_counter` values a hidden set card by the unseen cards it can "
                "be (the set's asset or a wild, RULES.md §10, with the public record of who gave up a challenge), "
                "`card_counter(infer_hidden=false)` at the asset's face value. (2) The comparison below: the "
                f"subject `{h.get('subject', 'heuristic')}` (preset {h.get('preset', 'classic')}) against P-1 "
                "copies of a field in three conditions on the same deals, seats rotated: hidden wilds with a naive "
                "field, hidden wilds with an inferring field, and wilds revealed (`hidden_wilds = false`, where "
                "nothing is left to infer). Effects are the subject's win rate, first condition minus second, "
                "paired on deals, 95% Student-t intervals; Holm over this family "
                f"({len(r.hide)} rows); TOST margin ±{study.margin_pp:g} pp."), "",
               "| P | contrast | win rates (%) | effect (pp) [95% CI] | p (Holm) | TOST p (Holm) | deals | verdict |",
               "|---|---|---|---|---|---|---|---|"]
        for x in r.hide.itertuples():
            md.append(f"| {x.players} | {x.contrast} | {100 * x.win_a:.2f} vs {100 * x.win_b:.2f} | "
                      f"{_pp(x.win_diff)} [{_pp(x.win_low)}, {_pp(x.win_high)}] | {_pv(x.p_holm)} | "
                      f"{_pv(x.p_tost_holm)} | {x.deals:,} | {x.verdict} |")
    fam = v[v["tip"].str.startswith("TIP-WILD-USE")].copy()
    if len(fam):
        fam["p_family"] = holm(np.where(fam["inert"], np.nan, fam["p"].to_numpy(np.float64)))
        uses = list(dict.fromkeys(t.split(":", 1)[-1] for t in fam["tip"]))
        md += ["", "## TIP-WILD-USE as one family", "",
               ("The uses of a wild, each the effect of allowing it (treatment: every use allowed; control: "
               "that use forbidden), win rate in pp [95% CI], with Holm over this family alone (its rows x "
               f"{len(study.cells())} contexts) beside the study-wide verdict."), "",
               "| preset | field | P | " + " | ".join(uses) + " | largest effect |",
               "|---|---|---|" + "---|" * (len(uses) + 1)]
        for (pr, fl, pl), sub in fam.groupby(["preset", "field", "players"], sort=False):
            cells = {x.tip.split(":", 1)[-1]: f"{_pp(x.win_diff)} [{_pp(x.win_low)}, {_pp(x.win_high)}] "
                     f"p<sub>fam</sub> {_pv(x.p_family)}, {x.verdict}" for x in sub.itertuples()}
            best = sub.loc[sub["win_diff"].abs().idxmax(), "tip"].split(":", 1)[-1]
            md.append(f"| {pr} | {fl} | {pl} | " + " | ".join(cells.get(u, "—") for u in uses) + f" | {best} |")
    md += ["", "## FACT-1360", "",
           ("Every stored round (rounds.parquet) is checked: stacks + discard pile + draw pile + hands (+ leftover "
           "draft-pile cards under a draft) = the deck's value in play, and each seat's round score = its stack's "
           "value."), "", f"**Verdict:** {fact_1360_verdict(r.fact_1360)}.", "",
           ("| preset | field | P | rounds checked | failures | largest round score ($) | deck value ($) | "
           "rounds over $1,360,000 |"), "|---|---|---|---|---|---|---|---|"]
    for x in r.fact_1360.itertuples():
        md.append(f"| {x.preset} | {x.field} | {x.players} | {x.rounds_checked} | {x.invariant_failures} | "
                  f"{x.max_scored:,} | {x.deck_value:,} | {x.over_1360000} |")
    md += ["", "## FACT-ROUNDS", "",
           ("Rounds per game over every game of the context (the seeds say a game *usually* lasts 3–5 rounds, "
            "seed 002; 4–5, seed 000: read as more than half of the games, a context holding it when the "
            "deal-clustered 95% interval lies above 50%). The games are those of the study's arms (heuristic "
            "variants against the field), not of a population of human games."), "",
           f"**Verdict:** {fact_rounds_verdict(r.rounds)}.", "",
           "| preset | field | P | games | mean | in 3–5 | in 4–5 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8+ |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for x in r.rounds.itertuples():
        hist = " | ".join(f"{100 * getattr(x, k):.1f}" for k in
                          ("r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8plus"))
        md.append(f"| {x.preset} | {x.field} | {x.players} | {x.games:,} | {x.mean_rounds:.2f} | "
                  f"{100 * x.in_3_5:.1f} % | {100 * x.in_4_5:.1f} % | {hist} |")
    if len(r.plan):
        md += ["", "## Deals per context: the two-stage allocation", "",
               ("Stage 1, the pilot (" + ", ".join(f"`{x}`" for x in study.pilot) + "; its own seed, its games not "
                "reused): per context, the largest per-deal standard deviation of a non-inert row's win-rate "
                f"difference. Stage 2, this study: deals = ceil({study.pilot_inflation:g} x (t x sd / "
                f"{study.target_half_width_pp:g} pp)^2), fixed before any game of the study is played, so its "
                "intervals, tests and verdicts keep their error rates (a fixed size chosen from independent "
                "data; no look at the study's own results). Rows: the pilot's largest sd, its tip, and the deals."),
               "", "| preset | field | P | pilot rows | pilot deals | largest sd (pp) | its tip | deals |",
               "|---|---|---|---|---|---|---|---|"]
        for x in r.plan.itertuples():
            md.append(f"| {x.preset} | {x.field} | {x.players} | {x.pilot_rows} | {x.pilot_deals:,} | "
                      f"{100 * x.sd_max:.1f} | {x.tip_at_max} | {x.deals:,} |")
    md += ["", "## Games and time per context", "",
           "| preset | field | P | deals | games | play time (s) | win-rate half-width, largest / median (pp) |",
           "|---|---|---|---|---|---|---|"]
    for x in t.itertuples():
        h = v[(v["preset"] == x.preset) & (v["field"] == x.field) & (v["players"] == x.players) & ~v["inert"]]
        hw_cell = f"{h['half_width_pp'].max():.2f} / {h['half_width_pp'].median():.2f}" if len(h) else "—"
        md.append(f"| {x.preset} | {x.field} | {x.players} | {study.deals_of(x.preset, x.field, x.players):,} | "
                  f"{x.games:,} | "
                  f"{x.play_s:,.1f} | {hw_cell} |")
    path = out / "REPORT.md"
    path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return path


def half_width_needed(sd_pp: float, target_pp: float = 1.0, confidence: float = 0.95) -> int:
    """Deals needed for a t interval of half-width ``target_pp`` given a per-deal standard deviation (pp)."""
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    return math.ceil((z * sd_pp / target_pp) ** 2)
