"""The results folder layer (:mod:`cya_sim.results.folder`): below the runner and the reports."""
