"""A whole tip study: play every cell (resuming), replay the logged and traced samples, analyse, write the report.

What each step computes is in its module: the cells (:mod:`~cya_sim.studies.tips.design`), the replays
(:mod:`~cya_sim.studies.tips.replays`), the statistics (:mod:`~cya_sim.studies.tips.effects`), the verdicts
(:mod:`~cya_sim.studies.tips.verdicts`), the report and figures (:mod:`~cya_sim.studies.tips.report`).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import numpy as np
import pandas as pd

from cya_sim import __version__
from cya_sim.runs.experiment import Experiment, ExperimentError
from cya_sim.studies.tips.design import Study, hide_experiments
from cya_sim.studies.tips.effects import (
    arm_columns,
    big_pot_pooled,
    big_pot_table,
    fact_1360_table,
    hide_effects,
    per_deal_mean,
    rounds_table,
    tip_effects,
)
from cya_sim.studies.tips.plan import plan_deals
from cya_sim.studies.tips.replays import changed_decisions, logged_games, trace_rounds
from cya_sim.studies.tips.report import write_report
from cya_sim.studies.tips.result import StudyResult
from cya_sim.studies.tips.verdicts import finish


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
        study: the study. progress: progress bars. command: recorded in the run logs (``runs.json`` of the study
            and of each cell, with the wall times); REPORT.md names the first run's.
        play: False analyses only the cells already complete on disk and plays nothing; the report
            then names the missing cells (``StudyResult.missing``).

    Returns:
        the :class:`StudyResult` (also written: ``verdicts.csv``, ``rounds.csv``, ``big_pot.csv``,
        ``fact_1360.csv``, ``rounds.parquet``, ``forest.png``, ``heatmap.png``, ``REPORT.md`` in ``study.out``).

    Raises:
        ExperimentError: a cell's folder is refused (named). Errors of the engines propagate; a rerun resumes.
    """
    from cya_sim.results.folder import first_command, load_games, read_runs, record_run
    from cya_sim.runs.runner import run_experiment

    started, t_start = datetime.now(UTC).isoformat(timespec="seconds"), time.perf_counter()
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
        facts.append({**ctx, **fact_1360_table(tr)})
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
        per_deal[(p, j)] = (deals, per_deal_mean(cols, 0, deals, "win"))
        runs = [r for r in read_runs(hexp.out) if r.get("status") == "finished"]
        g0, s0 = hide_time.get(p, (0, 0.0))
        hide_time[p] = (g0 + int(hexp.games), s0 + float(sum(r.get("elapsed_s") or 0 for r in runs)))
    tr_all = pd.concat(traces, ignore_index=True)
    hide = hide_effects(per_deal, study.confidence, study.margin_pp)
    if len(hide):
        hide["games"] = [hide_time[p][0] for p in hide["players"]]
    # the wall times go to the run log (runs.json), never into the tables or REPORT.md: a replay with the same games
    # rewrites those byte for byte
    record_run(study.out, {"started_utc": started, "finished_utc": datetime.now(UTC).isoformat(timespec="seconds"),
                           "command": command, "cya_sim_version": __version__,
                           "wall_s": round(time.perf_counter() - t_start, 1),
                           "contexts": [{k: (round(x, 3) if isinstance(x, float) else x) for k, x in t.items()}
                                        for t in timings],
                           "hide_play_s": {str(p): round(s_, 3) for p, (_g, s_) in hide_time.items()}})
    command = first_command(read_runs(study.out))
    result = StudyResult(finish(pd.concat(effects, ignore_index=True), study.confidence), pd.DataFrame(rounds),
                         pd.DataFrame(bigpot), pd.DataFrame(facts), pd.DataFrame(timings), tuple(missing),
                         hide=hide,
                         plan=plan_deals(study) if study.pilot and study.target_half_width_pp else pd.DataFrame(),
                         big_pot_pooled=big_pot_pooled(tr_all, study.confidence))
    tr_all.to_parquet(study.out / "rounds.parquet")
    write_report(study, result, command)
    return result
