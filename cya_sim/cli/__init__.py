"""The top floor: the ``cya-sim`` command (:mod:`cya_sim.cli.main`) and its sub-commands."""
