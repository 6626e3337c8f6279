"""The study file of a tip study (``experiments/tips.toml``): read, validate, plan and return a :class:`Study`.

Every field is checked and a refused one is named (``tip[3].control``, ``hide_wild.deals``) in one
:class:`~cya_sim.runs.experiment.ExperimentError`; with a pilot and a target half-width the deals of every cell
are planned here, before any game (:mod:`cya_sim.studies.tips.plan`), and every cell's experiment is built once
so that its agents, sizes and design are validated up front.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from cya_sim.runs.experiment import ExperimentError
from cya_sim.studies.tips.design import Study, hide_experiments
from cya_sim.studies.tips.plan import plan_deals, plan_hide_deals
from cya_sim.tomltext import TomlTextError, load_toml

STUDY_KEYS = ("name", "seed", "deals", "players", "presets", "fields", "margin_pp", "confidence", "log_deals",
              "trace_deals", "out", "workers", "quick", "tip", "reason", "description", "pilot",
              "target_half_width_pp", "pilot_inflation", "hide_wild", "players_by_preset")
QUICK_KEYS = ("deals", "players", "presets", "fields", "log_deals", "trace_deals", "out", "workers", "pilot",
              "hide_wild", "players_by_preset")
HIDE_KEYS = ("subject", "preset", "players", "deals", "seed")


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

    The fields are checked in the order of the file's documentation (``experiments/tips.toml``), so the first
    invalid one is the one named; then the pilot plan fixes the deals and every cell's experiment is built once.

    Raises:
        ExperimentError: the first invalid field, named.
    """
    from cya_sim.game.rules import PRESETS

    d = _document(data, quick, overrides)
    name = d.get("name")
    if not isinstance(name, str) or not name:
        raise ExperimentError("name", f"{name!r}; give a name of letters, digits, '_', '.' or '-'")
    players = d.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, int) and p >= 2 for p in players) \
            or len(set(players)) != len(players):
        raise ExperimentError("players", f"{players!r}; give a list of distinct table sizes (integers >= 2)")
    presets = _names(d, "presets", tuple(PRESETS))
    from agents.classic.registry import agent_names

    fields_ = _names(d, "fields")
    for i, f in enumerate(fields_):
        if f not in agent_names():
            raise ExperimentError(f"fields[{i}]", f"{f!r}; choose registered agents: {', '.join(agent_names())}")
    tips, reasons = _tips(d), _reasons(d)
    margin = d.get("margin_pp", 0.5)
    if not isinstance(margin, (int, float)) or isinstance(margin, bool) or not 0 < margin < 100:
        raise ExperimentError("margin_pp", f"{margin!r}; give the equivalence margin in percentage points, > 0")
    conf = d.get("confidence", 0.95)
    if not isinstance(conf, float) or not 0 < conf < 1:
        raise ExperimentError("confidence", f"{conf!r}; give a level strictly between 0 and 1, e.g. 0.95")
    deals = _deals(d, players)
    log_deals = min(_int(d, "log_deals", 1, 200), min(deals))  # planned deals are never fewer (plan_deals)
    trace = min(_int(d, "trace_deals", 1, 20), log_deals)
    workers = d.get("workers")
    if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool) or workers < 1):
        raise ExperimentError("workers", f"{workers!r}; it must be an integer >= 1 (omit it for all cores)")
    pilot, target, infl = _pilot(d)
    hide = _hide_wild(d, tuple(PRESETS))
    by_preset = _players_by_preset(d, presets, players)
    out = d.get("out", f"results/{name}")
    if not isinstance(out, str) or not out:
        raise ExperimentError("out", f"{out!r}; give a folder path as a string")
    study = Study(name=name, seed=_int(d, "seed", 0), deals=deals, players=tuple(players), presets=presets,
                  fields=fields_, tips=tips, reasons=reasons, margin_pp=float(margin),
                  confidence=conf, log_deals=log_deals, trace_deals=trace, out=Path(out), workers=workers, quick=quick,
                  source=source, description=str(d.get("description", "")), pilot=pilot,
                  target_half_width_pp=target, pilot_inflation=infl, hide_wild=hide, players_by_preset=by_preset)
    names_ = {study.cell_name(*c) for c in study.all_cells()} | {"hide"}
    for x in only:
        if x not in names_:
            raise ExperimentError("only", f"{x!r}; choose cells such as {study.cell_name(*study.all_cells()[0])} "
                                  "(preset-field-Pp) or hide")
    study = _planned(replace(study, only=tuple(only)))
    for cell in study.cells():  # every cell's experiment validates its agents, sizes and design
        try:
            study.experiment(*cell)
        except ExperimentError as e:
            field_ = e.field.replace("design.tips", "tip").replace("agents", "tip")
            raise ExperimentError(field_, f"{e.detail} (cell {study.cell_name(*cell)})") from None
    hide_experiments(study)  # validates the TIP-HIDE-WILD comparison's subject, preset and sizes
    return study


def _document(data: Mapping[str, Any], quick: bool, overrides: Mapping[str, Any] | None) -> dict[str, Any]:
    """The study's fields, every key checked, with its ``[quick]`` table (when ``quick``) and ``overrides`` applied."""
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
    return d


def _int(d: Mapping[str, Any], k: str, lo: int, default: Any = None) -> int:
    """Field ``k`` as an integer >= ``lo`` (``default`` when absent)."""
    v = d.get(k, default)
    if not isinstance(v, int) or isinstance(v, bool) or v < lo:
        raise ExperimentError(k, f"{v!r}; it must be an integer >= {lo}")
    return int(v)


def _names(d: Mapping[str, Any], k: str, allowed: Sequence[str] | None = None) -> tuple[str, ...]:
    """Field ``k`` as a non-empty list of distinct names (each in ``allowed`` when given)."""
    v = d.get(k)
    if not isinstance(v, list) or not v or not all(isinstance(x, str) for x in v) or len(set(v)) != len(v):
        raise ExperimentError(k, f"{v!r}; give a non-empty list of distinct names"
                              + (f" from: {', '.join(allowed)}" if allowed else ""))
    for i, x in enumerate(v):
        if allowed is not None and x not in allowed:
            raise ExperimentError(f"{k}[{i}]", f"{x!r}; choose from: {', '.join(allowed)}")
    return tuple(v)


def _tips(d: Mapping[str, Any]) -> tuple[tuple[str, str, str], ...]:
    """The ``[[tip]]`` tables: (id, treatment spec, control spec) each."""
    tips_raw = d.get("tip")
    if not isinstance(tips_raw, list) or not tips_raw:
        raise ExperimentError("tip", "give at least one [[tip]] with id, treatment and control")
    tips = []
    for i, t in enumerate(tips_raw):
        if not isinstance(t, Mapping) or set(t) - {"id", "treatment", "control"} or not all(
                isinstance(t.get(k), str) for k in ("id", "treatment", "control")):
            raise ExperimentError(f"tip[{i}]", f"{t!r}; give id, treatment and control as strings (agent specs)")
        tips.append((t["id"], t["treatment"], t["control"]))
    return tuple(tips)


def _reasons(d: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """The ``[[reason]]`` tables: (id, why it has no verdict row), the reason on one line."""
    reasons = []
    for i, r in enumerate(d.get("reason", [])):
        if not isinstance(r, Mapping) or not isinstance(r.get("id"), str) or not isinstance(r.get("reason"), str):
            raise ExperimentError(f"reason[{i}]", f"{r!r}; give id and reason as strings")
        reasons.append((r["id"], " ".join(r["reason"].split())))
    return tuple(reasons)


def _deals(d: Mapping[str, Any], players: Sequence[int]) -> tuple[int, ...]:
    """``deals``: one integer >= 2 for every table size, or one per table size of ``players``."""
    deals_raw = d.get("deals")
    if isinstance(deals_raw, list):
        if len(deals_raw) != len(players) or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 2
                                                     for x in deals_raw):
            raise ExperimentError("deals", f"{deals_raw!r}; give an integer >= 2, or one per table size of players "
                                  f"({len(players)} integers >= 2)")
        return tuple(int(x) for x in deals_raw)
    return (_int(d, "deals", 2),) * len(players)


def _pilot(d: Mapping[str, Any]) -> tuple[tuple[Path, ...], float | None, float]:
    """The two-stage allocation's fields: ``pilot`` (CSV paths), ``target_half_width_pp`` (None: no target),
    ``pilot_inflation``."""
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
    return tuple(Path(x) for x in pilot_raw), None if target is None else float(target), float(infl)


def _hide_wild(d: Mapping[str, Any], all_presets: Sequence[str]) -> dict[str, Any] | None:
    """The ``[hide_wild]`` table (:data:`HIDE_KEYS`) normalised (deals one per table size), or None."""
    hide = d.get("hide_wild")
    if hide is None:
        return None
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
    if hide.get("preset", "classic") not in all_presets:
        raise ExperimentError("hide_wild.preset", f"{hide.get('preset')!r}; choose from: {', '.join(all_presets)}")
    out = {"subject": str(hide.get("subject", "heuristic")), "preset": hide.get("preset", "classic"),
           "players": tuple(hp), "deals": tuple(int(x) for x in hd), "seed": hide.get("seed")}
    if out["seed"] is not None and (not isinstance(out["seed"], int) or out["seed"] < 0):
        raise ExperimentError("hide_wild.seed", f"{out['seed']!r}; it must be an integer >= 0")
    return out


def _players_by_preset(d: Mapping[str, Any], presets: Sequence[str], players: Sequence[int]
                       ) -> dict[str, tuple[int, ...]]:
    """``players_by_preset``: preset -> its table sizes, a subset of ``players``."""
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
    return by_preset


def _planned(study: Study) -> Study:
    """``study`` with the deals of every cell and of the TIP-HIDE-WILD comparison fixed from its pilot
    (:func:`~cya_sim.studies.tips.plan.plan_deals`), when it has a pilot and a target; else unchanged."""
    if not study.pilot or study.target_half_width_pp is None:
        return study
    plan = plan_deals(study)
    study = replace(study, planned={k: int(v) for k, v in zip(
        zip(plan["preset"], plan["field"], plan["players"]), plan["deals"])})
    if study.hide_wild is not None:
        hplan = plan_hide_deals(study)
        if len(hplan):
            study = replace(study, hide_wild={**study.hide_wild, "deals": tuple(int(x) for x in hplan["deals"]),
                                              "planned": True})
    return study
