"""The theft game of seed 003 (RULES.md §9): its own game module, beside the classic game family.

It shares the classic game's interfaces, not its rules:

* :mod:`.rules` — :class:`~cya_sim.theft.rules.TheftRuleSet`, a frozen rule set with the
  ``theft`` preset (every *(choice)* and *(option)* of §9 a named option);
* :mod:`.state`, :mod:`.actions`, :mod:`.legal` — the state, the action space, the legal mask;
* :mod:`.observation` — what one seat may see (§10 applied to §9);
* :mod:`.position` — JSON positions;
* :mod:`.engine` — the readable reference engine with its log;
* :mod:`.play` — one game with agents, or a batch into a :class:`~cya_sim.engine.table.GameTable`.

The compiled theft engine, proven equal to the reference game by game (``tests/test_theft_differential.py``):

* :mod:`.layout` — one game as one int64 row with named offsets, the rule constants as one record;
* :mod:`.kernel` — the rules on a row (the single compiled copy of R-T-DECK … R-T-END);
* :mod:`.batched` — B rows, a queue of games with auto-reset, results as a ``GameTable``;
* :mod:`.loop`, :mod:`.play_batched` — the compiled play loop with the compiled agents of
  ``agents/theft_compiled.py`` (and theft plug-ins, ``agents/theft_view.py``), compiled once and cached;
* :mod:`.rows` — a row to a reference state and back (tests, Python agents on the batched engine);
* :mod:`.cache_guard` — drops the compiled code's stale disk caches when a source changes.

The reference modules import nothing of the classic rules or engines (only the shared seeding,
:mod:`cya_sim.game.rng`, the shared error type ``RulesError`` and the shared result table); the compiled
ones reuse the classic family's PCG64 primitives (:mod:`cya_sim.engine.compiled.pcg`) and no rule of it.
No classic module imports this package except the preset lookup and the engine choice.
"""
