"""The studies floor: what designs games, has the runner play them and the reports analyse them.

Flags-only tournaments (:mod:`~cya_sim.studies.tournament`), the tip study (:mod:`~cya_sim.studies.tips`),
coverage checks of the statistics on simulated nulls (:mod:`~cya_sim.studies.validation`), policy tuning
(:mod:`~cya_sim.studies.tune`), the meta-game (:mod:`~cya_sim.studies.metagame`), the leaderboard
(:mod:`~cya_sim.studies.leaderboard`) and the speed benchmarks (:mod:`~cya_sim.studies.bench`,
:mod:`~cya_sim.studies.bench_theft`). They stand on both :mod:`cya_sim.runs` (play and store) and
:mod:`cya_sim.reports` (read and analyse), which never import each other.
"""
