"""Pictures of a game: the table of one state drawn as SVG, PNG or an ``(H, W, 3) uint8`` array, and a
self-contained HTML replay that steps through a game (as pgx's ``save_svg``, RLCard's replay page).

One layout (:func:`cya_sim.render.table.layout`) turns a state of either game — the classic family
(:class:`~cya_sim.game.classic.state.GameState`, every preset) or the theft game
(:class:`~cya_sim.game.theft.state.TheftState`, RULES.md §9) — into drawing primitives, as the full view
(``seat=None``: every card, hidden ones marked) or as one seat may see it (RULES.md §10: its own hand, the
other hands as counts, a hidden set card R-HIDDEN-WILD or a face-down first asset card as ``?``, a
face-down draft top as ``?``). Two back ends draw those primitives: :mod:`cya_sim.render.svg` (pure string
building) and :mod:`cya_sim.render.raster` (matplotlib's Agg canvas). :mod:`cya_sim.render.replay` writes
the HTML replay from recorded frames.

Floor: above the game and the engines (it reads states and :mod:`cya_sim.engine.classic.reference.draft`),
below the agents, the environments and the CLI (``tests/test_layers.py``).
"""

from cya_sim.render.raster import rgb_array, save_png
from cya_sim.render.svg import save_svg, svg_text
from cya_sim.render.table import as_state, layout, state_text

__all__ = ["as_state", "layout", "rgb_array", "save_png", "save_svg", "state_text", "svg_text"]
