"""The theft game's agents (RULES.md §9): ``random``, ``greedy``, ``defender`` on observations and by name
(:mod:`agents.theft.registry`), their compiled forms on a theft row (:mod:`agents.theft.compiled`) and the theft agent
view of compiled plug-ins (:mod:`agents.theft.view`)."""
