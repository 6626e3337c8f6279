"""The theft game of seed 003 (RULES.md §9): its rules, state, actions and positions, on the game floor.

The theft game shares no rule with the classic family; it lives on the same floors as the classic game, in a
folder named ``theft`` on each:

* here, :mod:`cya_sim.game.theft` — :mod:`.rules` (:class:`~cya_sim.game.theft.rules.TheftRuleSet`, a frozen
  rule set with the ``theft`` preset, every *(choice)* and *(option)* of §9 a named option), :mod:`.state`,
  :mod:`.actions` (the action space) and :mod:`.position` (JSON positions);
* :mod:`cya_sim.engine.theft` — the readable reference engine with its log (``reference``), the legal mask
  (``legal``), what one seat may see (``observation``, §10 applied to §9), and the compiled engine proven
  equal to it game by game: one game as one int64 row (``layout``), the rules on a row (``kernel``), B rows
  with a queue of games (``batched``), a row to a reference state and back (``rows``);
* :mod:`cya_sim.play.theft` — ``reference`` (one game or a batch with Python agents on the reference engine),
  ``loop`` (the compiled play loop with ``agents/theft/compiled.py`` and theft plug-ins,
  ``agents/theft/view.py``) and ``batched`` (batches on the compiled engine);
* ``agents/theft/registry.py``, ``agents/theft/compiled.py``, ``agents/theft/view.py`` — its agents.

The theft modules import nothing of the classic rules or engines (only the shared seeding,
:mod:`cya_sim.game.rng`, the shared error type ``RulesError``, the shared result table and the PCG64
primitives of :mod:`cya_sim.engine.pcg`).
"""
