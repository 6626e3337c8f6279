"""The theft game of seed 003 (RULES.md §9): its own game module, beside the classic game family.

It shares the classic game's interfaces, not its rules:

* :mod:`.rules` — :class:`~cya_sim.theft.rules.TheftRuleSet`, a frozen rule set with the
  ``theft`` preset (every *(choice)* and *(option)* of §9 a named option);
* :mod:`.state`, :mod:`.actions`, :mod:`.legal` — the state, the action space, the legal mask;
* :mod:`.observation` — what one seat may see (§10 applied to §9);
* :mod:`.position` — JSON positions;
* :mod:`.engine` — the readable reference engine with its log;
* :mod:`.play` — one game with agents, or a batch into a :class:`~cya_sim.engine.table.GameTable`.

Nothing here is compiled: the theft game plays on this reference engine only.
This package imports nothing of the classic rules or engines (only the shared
seeding, :mod:`cya_sim.game.rng`, the shared error type ``RulesError`` and the
shared result table), and no classic module imports it except the preset lookup.
"""
