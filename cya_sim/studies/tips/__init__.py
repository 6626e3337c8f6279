"""The tip study: every strategy tip of TIPS.md as an ablation, with an effect, an interval and a verdict.

One job per module: the study file (:mod:`.studyfile`), the cells and their experiments (:mod:`.design`),
the pilot plan (:mod:`.plan`), the replays on both engines (:mod:`.replays`), the statistics (:mod:`.effects`),
the verdicts (:mod:`.verdicts`), the figures (:mod:`.figures`), the report (:mod:`.report`), the tables of a
study (:mod:`.result`) and the whole study (:mod:`.run`). The names below are its face.
"""

from cya_sim.studies.tips.design import Study
from cya_sim.studies.tips.figures import forest_figure, heatmap_figure
from cya_sim.studies.tips.plan import plan_deals
from cya_sim.studies.tips.report import write_report
from cya_sim.studies.tips.result import StudyResult, load_result
from cya_sim.studies.tips.run import run_study
from cya_sim.studies.tips.studyfile import load_study, parse_study

__all__ = ["Study", "StudyResult", "forest_figure", "heatmap_figure", "load_result", "load_study", "parse_study",
           "plan_deals", "run_study", "write_report"]
