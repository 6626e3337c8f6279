"""The theft game's engines (RULES.md §9): the readable reference engine and the compiled row engine (see
:mod:`cya_sim.game.theft`)."""
