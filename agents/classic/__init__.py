"""The classic family's agents (RULES.md §1-§8, §10): Python agents on observations (``random``, ``greedy``,
``heuristic``, ``card_counter``, ...), their compiled forms on a game row of :mod:`cya_sim.engine.classic.layout`
(:mod:`agents.classic.compiled`), the agent view of compiled plug-ins (:mod:`agents.classic.view`,
:mod:`agents.classic.plugin`) and the registry by name (:mod:`agents.classic.registry`: ``make_agent``,
``agent_names``)."""
